#include "PlotStyle.h"

#include "plots/QCustomPlot.h"

#include <array>

namespace headroom::ui::plots {

bool isDarkPalette(const QPalette &palette) {
    return palette.color(QPalette::Window).lightness() < 128;
}

PlotColors plotColors(const QPalette &palette) {
    const bool dark = isDarkPalette(palette);
    PlotColors colors;
    colors.train = dark ? QColor(0x6c, 0xb4, 0xff) : QColor(0x1f, 0x62, 0xb4);
    colors.train_raw = colors.train;
    colors.train_raw.setAlpha(70);
    colors.validation = dark ? QColor(0xff, 0xb3, 0x47) : QColor(0xd0, 0x6a, 0x00);
    colors.live = colors.train;
    colors.peak = dark ? QColor(0xc5, 0x8a, 0xff) : QColor(0x7b, 0x3f, 0xb5);
    colors.budget = dark ? QColor(0xff, 0x6b, 0x6b) : QColor(0xc0, 0x1c, 0x28);
    colors.throughput = dark ? QColor(0x5f, 0xd3, 0x8f) : QColor(0x1b, 0x7f, 0x45);
    colors.oom = colors.budget;
    colors.ladder = colors.validation;
    colors.warning = dark ? QColor(0xf5, 0xd0, 0x4c) : QColor(0x9a, 0x7b, 0x00);
    return colors;
}

QColor seriesColor(int index, const QPalette &palette) {
    static constexpr std::array<QRgb, 6> kLight = {0x1f62b4, 0xd06a00, 0x1b7f45,
                                                   0xb51f5e, 0x6b3fb5, 0x5a5a5a};
    static constexpr std::array<QRgb, 6> kDark = {0x6cb4ff, 0xffb347, 0x5fd38f,
                                                  0xff7eb3, 0xc58aff, 0xc8c8c8};
    const std::array<QRgb, 6> &colors = isDarkPalette(palette) ? kDark : kLight;
    const auto slot = static_cast<std::size_t>(index < 0 ? -index : index) % colors.size();
    return QColor(colors[slot]); // QColor(QRgb) is opaque
}

void applyPalette(QCustomPlot *plot, const QPalette &palette) {
    const QColor base = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::WindowText);
    QColor grid = text;
    grid.setAlpha(40);
    QColor sub_grid = text;
    sub_grid.setAlpha(18);
    plot->setBackground(base);
    for (QCPAxisRect *rect : plot->axisRects()) {
        rect->setBackground(base);
        for (QCPAxis *axis : rect->axes()) {
            axis->setBasePen(QPen(text));
            axis->setTickPen(QPen(text));
            axis->setSubTickPen(QPen(text));
            axis->setTickLabelColor(text);
            axis->setLabelColor(text);
            axis->grid()->setPen(QPen(grid, 0, Qt::DotLine));
            axis->grid()->setSubGridPen(QPen(sub_grid, 0, Qt::DotLine));
            axis->grid()->setZeroLinePen(Qt::NoPen);
        }
    }
    if (plot->legend) {
        QColor translucent = base;
        translucent.setAlpha(210);
        plot->legend->setBrush(translucent);
        plot->legend->setTextColor(text);
        plot->legend->setBorderPen(QPen(grid));
    }
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i) {
        if (auto *title = qobject_cast<QCPTextElement *>(plot->plotLayout()->elementAt(i))) {
            title->setTextColor(text);
        }
    }
}

} // namespace headroom::ui::plots
