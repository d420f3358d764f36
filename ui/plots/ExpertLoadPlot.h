#pragma once

#include "PlotWidget.h"

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
    // Long runs are averaged into at most this many columns.
    static constexpr int kMaxColumns = 600;

    explicit ExpertLoadPlot(QWidget *parent = nullptr);

    void clearData();
    // Rebuilds the map from the series' MoE steps.
    void setSeries(const RunSeries &series);

    int columnCount() const;
    int rowCount() const;
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

    QCPColorMap *map_ = nullptr;
    std::vector<QCPItemStraightLine *> separators_;
    QCPColorScale *scale_ = nullptr;
    double balanced_ = 0;
    int experts_ = 0;
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
