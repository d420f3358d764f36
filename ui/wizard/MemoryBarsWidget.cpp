#include "MemoryBarsWidget.h"

#include "look/DisplayText.h"
#include "plots/PlotStyle.h"

#include <headroom/plan.h>

#include <QEvent>
#include <QFontMetrics>
#include <QPainter>

#include <algorithm>
#include <numeric>

namespace headroom::ui {

namespace {
constexpr int kBarHeight = 34;
constexpr int kMargin = 8;
} // namespace

MemoryBarsWidget::MemoryBarsWidget(QWidget *parent) : QWidget(parent), parts_(PartCount, 0) {
    setObjectName(QStringLiteral("memoryBars"));
    setAccessibleName(tr("Predicted memory by role"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    updateDescription();
}

void MemoryBarsWidget::setEstimate(const MemoryEstimate &estimate) {
    const quint64 raw[PartCount] = {estimate.weights, estimate.gradients, estimate.optimizer,
                                    estimate.activations, estimate.overhead};
    const quint64 sum = std::accumulate(std::begin(raw), std::end(raw), quint64(0));
    // The history correction scales the whole prediction; spread it over the parts.
    const double scale = sum > 0 ? double(estimate.peak) / double(sum) : 1.0;
    for (int part = 0; part < PartCount; ++part) {
        parts_[part] = quint64(double(raw[part]) * scale + 0.5);
    }
    budget_ = estimate.budget;
    updateDescription();
    update();
}

void MemoryBarsWidget::clear() {
    parts_.fill(0);
    budget_ = 0;
    updateDescription();
    update();
}

quint64 MemoryBarsWidget::total() const {
    return std::accumulate(parts_.begin(), parts_.end(), quint64(0));
}

QString MemoryBarsWidget::partName(Part part) {
    switch (part) {
    case Weights:
        return tr("Weights");
    case Gradients:
        return tr("Gradients");
    case Optimizer:
        return tr("Optimizer state");
    case Activations:
        return tr("Activations");
    case Overhead:
    case PartCount:
        break;
    }
    return tr("Overhead");
}

QSize MemoryBarsWidget::sizeHint() const {
    const int line = fontMetrics().height();
    return {480, kMargin * 2 + line + 4 + kBarHeight + 8 + 2 * (line + 4)};
}

QSize MemoryBarsWidget::minimumSizeHint() const {
    return {320, sizeHint().height()};
}

QColor MemoryBarsWidget::partColor(int part) const {
    static const QColor light[PartCount] = {QColor(0x1c, 0x71, 0xd8), QColor(0x26, 0xa2, 0x69),
                                            QColor(0xe5, 0xa5, 0x0a), QColor(0xc6, 0x46, 0x00),
                                            QColor(0x81, 0x3d, 0x9c)};
    static const QColor dark[PartCount] = {QColor(0x62, 0xa0, 0xea), QColor(0x57, 0xe3, 0x89),
                                           QColor(0xf8, 0xe4, 0x5c), QColor(0xff, 0xa3, 0x48),
                                           QColor(0xc0, 0x61, 0xcb)};
    return plots::isDarkPalette(palette()) ? dark[part] : light[part];
}

void MemoryBarsWidget::paintEvent(QPaintEvent *) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing, false);
    const QFontMetrics metrics = fontMetrics();
    const int line = metrics.height();
    const QRect area = rect().adjusted(kMargin, kMargin, -kMargin, -kMargin);
    const quint64 sum = total();
    const quint64 scale_max = std::max<quint64>({sum, budget_, 1}) * 11 / 10;
    const auto xFor = [&](quint64 bytes) {
        return area.left() + int(double(bytes) / double(scale_max) * area.width());
    };

    const QRect bar(area.left(), area.top() + line + 4, area.width(), kBarHeight);
    painter.fillRect(bar, palette().color(QPalette::AlternateBase));
    quint64 start = 0;
    for (int part = 0; part < PartCount; ++part) {
        const int left = xFor(start);
        start += parts_[part];
        const int right = xFor(start);
        if (right > left) {
            painter.fillRect(QRect(left, bar.top(), right - left, bar.height()), partColor(part));
        }
    }
    painter.setPen(palette().color(QPalette::WindowText));
    const QString peak_text = tr("Peak %1").arg(DisplayText::bytes(sum));
    painter.drawText(QRect(area.left(), area.top(), area.width(), line),
                     Qt::AlignLeft | Qt::AlignVCenter, peak_text);

    if (budget_ > 0) {
        const int x = xFor(budget_);
        const QColor budget_color = plots::plotColors(palette()).budget;
        painter.setPen(QPen(budget_color, 2, Qt::DashLine));
        painter.drawLine(x, bar.top() - 4, x, bar.bottom() + 4);
        const QString budget_text = tr("Budget %1").arg(DisplayText::bytes(budget_));
        const int width = metrics.horizontalAdvance(budget_text);
        const int text_left =
            std::clamp(x - width / 2, area.left() + metrics.horizontalAdvance(peak_text) + 12,
                       std::max(area.left(), area.right() - width));
        painter.setPen(budget_color);
        painter.drawText(QRect(text_left, area.top(), width + 2, line),
                         Qt::AlignLeft | Qt::AlignVCenter, budget_text);
    }

    // Legend: three columns of swatch, name and size.
    const int columns = 3;
    const int column_width = area.width() / columns;
    int row_top = bar.bottom() + 8;
    for (int part = 0; part < PartCount; ++part) {
        const int column = part % columns;
        if (part > 0 && column == 0) {
            row_top += line + 4;
        }
        const int left = area.left() + column * column_width;
        painter.fillRect(QRect(left, row_top + (line - 10) / 2, 10, 10), partColor(part));
        painter.setPen(palette().color(QPalette::WindowText));
        const QString text =
            QStringLiteral("%1 %2").arg(partName(Part(part)), DisplayText::bytes(parts_[part]));
        painter.drawText(QRect(left + 14, row_top, column_width - 16, line),
                         Qt::AlignLeft | Qt::AlignVCenter,
                         metrics.elidedText(text, Qt::ElideRight, column_width - 16));
    }
}

void MemoryBarsWidget::changeEvent(QEvent *event) {
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
        updateGeometry();
        update();
    }
    QWidget::changeEvent(event);
}

void MemoryBarsWidget::updateDescription() {
    QStringList parts;
    for (int part = 0; part < PartCount; ++part) {
        parts << QStringLiteral("%1 %2").arg(partName(Part(part)),
                                             DisplayText::bytes(parts_[part]));
    }
    parts << tr("Budget %1").arg(budget_ > 0 ? DisplayText::bytes(budget_) : tr("none"));
    setAccessibleDescription(parts.join(QStringLiteral(", ")));
}

} // namespace headroom::ui
