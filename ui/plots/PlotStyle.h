#pragma once

#include <QColor>
#include <QPalette>

class QCustomPlot;

namespace headroom::ui::plots {

// Colours of plot elements that stay readable on light and dark window palettes. Data lines
// use 1 px pens: a wider pen makes QPainter stroke every sampled segment as a polygon (a
// 1 M-point replot went from 14 ms to 2 s).
struct PlotColors {
    QColor train;
    QColor train_raw;
    QColor validation;
    QColor live;
    QColor peak;
    QColor budget;
    QColor throughput;
    QColor oom;
    QColor ladder;
    QColor warning;
};

bool isDarkPalette(const QPalette &palette);
PlotColors plotColors(const QPalette &palette);
// The n-th colour of a series of runs compared side by side.
QColor seriesColor(int index, const QPalette &palette);
// Background, axes, grid, legend and text from the palette (QCustomPlot does not follow it).
void applyPalette(QCustomPlot *plot, const QPalette &palette);

} // namespace headroom::ui::plots
