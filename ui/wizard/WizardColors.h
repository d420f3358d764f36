#pragma once

#include "plots/PlotStyle.h"

#include <QColor>
#include <QLabel>
#include <QPalette>

namespace headroom::ui {

// Text colours of the wizard's verdicts and problems, readable on light and dark palettes.
inline QColor problemColor(const QPalette &palette) {
    return plots::isDarkPalette(palette) ? QColor(0xff, 0x7b, 0x72) : QColor(0xc0, 0x1c, 0x28);
}

inline QColor cautionColor(const QPalette &palette) {
    return plots::isDarkPalette(palette) ? QColor(0xf6, 0xd3, 0x2d) : QColor(0x9c, 0x6a, 0x00);
}

enum class TextTone { Normal, Caution, Problem };

// Colours a label's text for its tone; Normal goes back to the application's colours (so a
// later theme change reaches it again).
inline void setTextTone(QLabel *label, TextTone tone) {
    QPalette palette;
    if (tone != TextTone::Normal) {
        palette = label->palette();
        palette.setColor(QPalette::WindowText,
                         tone == TextTone::Problem ? problemColor(palette) : cautionColor(palette));
    }
    label->setPalette(palette);
}

} // namespace headroom::ui
