#include "look/ElidedLabel.h"

#include <QHelpEvent>
#include <QPainter>
#include <QStyle>
#include <QToolTip>

#include <algorithm>

namespace headroom::ui {

namespace {
// Enough for a few characters and the ellipsis before the label gives up more width.
constexpr int kMinimumCharacters = 8;
// A label asks for at most this many characters' width; more is shown when there is room.
constexpr int kPreferredCharacters = 48;
} // namespace

ElidedLabel::ElidedLabel(QWidget *parent, Qt::TextElideMode mode) : QLabel(parent), mode_(mode) {
    setWordWrap(false);
}

bool ElidedLabel::isElided() const {
    return fontMetrics().horizontalAdvance(text()) > contentsRect().width();
}

QSize ElidedLabel::minimumSizeHint() const {
    const QSize hint = QLabel::minimumSizeHint();
    const int width = fontMetrics().averageCharWidth() * kMinimumCharacters;
    return {std::min(hint.width(), width), hint.height()};
}

QSize ElidedLabel::sizeHint() const {
    const QSize hint = QLabel::sizeHint();
    const int width = fontMetrics().averageCharWidth() * kPreferredCharacters;
    return {std::min(hint.width(), width), hint.height()};
}

bool ElidedLabel::event(QEvent *event) {
    if (event->type() == QEvent::ToolTip && toolTip().isEmpty() && isElided()) {
        QToolTip::showText(static_cast<QHelpEvent *>(event)->globalPos(), text(), this);
        return true;
    }
    return QLabel::event(event);
}

void ElidedLabel::paintEvent(QPaintEvent *event) {
    if (!isElided()) {
        QLabel::paintEvent(event);
        return;
    }
    QPainter painter(this);
    const QRect area = contentsRect();
    const QString shown = fontMetrics().elidedText(text(), mode_, area.width());
    style()->drawItemText(&painter, area, int(alignment()) | Qt::TextSingleLine, palette(),
                          isEnabled(), shown, foregroundRole());
}

} // namespace headroom::ui
