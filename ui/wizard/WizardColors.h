#pragma once

#include "plots/PlotStyle.h"

#include <QColor>
#include <QPalette>

namespace headroom::ui {

// Text colours of the wizard's verdicts and problems, readable on light and dark palettes.
inline QColor problemColor(const QPalette &palette) {
    return plots::isDarkPalette(palette) ? QColor(0xff, 0x7b, 0x72) : QColor(0xc0, 0x1c, 0x28);
}

inline QColor cautionColor(const QPalette &palette) {
    return plots::isDarkPalette(palette) ? QColor(0xf6, 0xd3, 0x2d) : QColor(0x9c, 0x6a, 0x00);
}

} // namespace headroom::ui
