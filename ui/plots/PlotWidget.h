#pragma once

#include "plots/QCustomPlot.h"

#include <QTimer>

#include <initializer_list>

namespace headroom::ui::plots {

// A QCustomPlot that replots at most once per kReplotIntervalMs (coalescing any number of
// data updates), follows the window palette and exports itself as PNG or PDF.
class PlotWidget : public QCustomPlot {
    Q_OBJECT

public:
    static constexpr int kReplotIntervalMs = 40;

    explicit PlotWidget(const QString &title, QWidget *parent = nullptr);

    // Marks the plot dirty; the replot happens on the next timer tick.
    void scheduleReplot();
    // How many coalesced replots ran (for tests and benchmarks).
    int replotCount() const { return replot_count_; }
    // Writes PNG or PDF by the file's suffix; returns false when writing failed.
    bool exportTo(const QString &path);

protected:
    void changeEvent(QEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    // Called before each replot while the view follows the data (until the user pans or
    // zooms; a double click follows again).
    virtual void fitRanges();
    // Called when the palette changed: restyle series.
    virtual void restyle() {}
    // The legend beside the axes, one entry per row, instead of inside them (where it would
    // cover curves that fill the whole height).
    void placeLegendBeside();
    // The left axis over the graphs' values with 0 in view and a 5 % margin (rewards start at 0
    // and move both ways).
    void fitValuesAroundZero(std::initializer_list<QCPGraph *> graphs);

private:
    void replotNow();

    QTimer replot_timer_;
    bool follow_ = true;
    QCPTextElement *title_ = nullptr;
    int replot_count_ = 0;
};

} // namespace headroom::ui::plots
