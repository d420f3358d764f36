#pragma once

#include "PlotWidget.h"

#include <cstdint>
#include <vector>

namespace headroom::ui {
struct RunSeries;
}

namespace headroom::ui::plots {

// Expert load of a Mixture-of-Experts run as a heat map: x = step, one row per expert of each
// MoE block, colour = the expert's share of its block's assignments. The colour scale is
// centred on a perfectly balanced 1/E, so balance reads as neutral and over- or under-used
// experts stand out in every block at once (stacked areas would show one block at a time).
class ExpertLoadPlot : public PlotWidget {
    Q_OBJECT

public:
    // A column averages a power-of-two number of consecutive steps; when a run would need more
    // than kMaxColumns columns, neighbouring columns merge in pairs. Long runs therefore show
    // between kMaxColumns / 2 and kMaxColumns columns, and a new step only touches its own
    // column (plus, rarely, a merge or a larger map: bounded by the map's size).
    static constexpr int kMaxColumns = 1200;

    explicit ExpertLoadPlot(QWidget *parent = nullptr);

    void clearData();
    // Rebuilds the map from the series' MoE steps.
    void setSeries(const RunSeries &series);
    // Adds the series' MoE steps from first_moe_step on to the columns shown; rebuilds when the
    // map does not hold exactly the steps before it.
    void append(const RunSeries &series, int first_moe_step);

    int columnCount() const { return columns_; }
    int rowCount() const { return rows_; }
    int stepsPerColumn() const { return width_; }
    // Map cells written since the last clearData (the cost of keeping the map up to date).
    std::int64_t cellsWritten() const { return cells_written_; }
    // The share shown in a cell; row = block * experts + expert.
    double share(int column, int row) const;
    // The share at which the colour is neutral (1/E); 0 before any data.
    double balancedShare() const { return balanced_; }
    // What the tooltip says at plot coordinates; empty outside the map.
    QString cellText(double key, double value) const;

protected:
    void restyle() override;
    void fitRanges() override;
    void mouseMoveEvent(QMouseEvent *event) override;

private:
    QPen separatorPen() const;
    void startMap(const RunSeries &series);
    void addStep(double key, const QVector<double> &load);
    void mergeColumnPairs();
    bool reserveColumns(int columns);
    void writeColumns(int first, int last);
    double columnSpacing() const;

    QCPColorMap *map_ = nullptr;
    std::vector<QCPItemStraightLine *> separators_;
    QCPColorScale *scale_ = nullptr;
    double balanced_ = 0;
    int experts_ = 0;
    int rows_ = 0;
    int steps_ = 0;   // MoE steps in the map
    int columns_ = 0; // columns holding steps; the map's further columns are NaN (transparent)
    int width_ = 1;   // steps per full column
    std::vector<double> sums_; // per column, rows_ summed shares
    std::vector<int> counts_;
    std::vector<double> key_sums_;
    std::int64_t cells_written_ = 0;
};

// What a user tunes moe.capacity_factor and moe.aux_loss by: the fraction of assignments
// dropped over capacity (left axis, %) and the balancing and router z losses (right axis).
class RoutingPlot : public PlotWidget {
    Q_OBJECT

public:
    explicit RoutingPlot(QWidget *parent = nullptr);

    void clearData();
    void append(const RunSeries &series, int first_moe_step);
    QCPGraph *droppedGraph() const { return dropped_; }
    QCPGraph *auxLossGraph() const { return aux_; }
    QCPGraph *zLossGraph() const { return z_; }

protected:
    void restyle() override;
    void fitRanges() override;

private:
    QCPGraph *dropped_ = nullptr;
    QCPGraph *aux_ = nullptr;
    QCPGraph *z_ = nullptr;
};

} // namespace headroom::ui::plots
