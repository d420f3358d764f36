#include "TokenChips.h"

#include "plots/PlotStyle.h"

#include <QEvent>
#include <QFontDatabase>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace headroom::ui {

namespace {
constexpr int kPaddingX = 5;
constexpr int kPaddingY = 2;
constexpr int kSpacing = 3;
constexpr int kMaxPieceWidth = 220;

QFont pieceFont(const QFont &base) {
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    font.setPointSizeF(base.pointSizeF());
    return font;
}

QFont idFont(const QFont &base) {
    QFont font = base;
    font.setPointSizeF(base.pointSizeF() * 0.8);
    return font;
}

// Pale tints on a light palette, deep ones on a dark palette: the palette's text colour reads
// on both. Text alternates blue and green, a prompt amber and violet.
QColor chipColor(const TokenChips::Chip &chip, int index, const QPalette &palette) {
    static constexpr int kTextHues[] = {210, 140};
    static constexpr int kPromptHues[] = {35, 280};
    const int hue = chip.prompt ? kPromptHues[index % 2] : kTextHues[index % 2];
    return plots::isDarkPalette(palette) ? QColor::fromHsl(hue, 90, 62)
                                         : QColor::fromHsl(hue, 150, 222);
}
} // namespace

TokenChips::TokenChips(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("tokenChips"));
    // The scroll area reads height-for-width from the size policy, not from the virtual.
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

void TokenChips::setChips(std::vector<Chip> chips) {
    chips_ = std::move(chips);
    QStringList pieces;
    for (const Chip &chip : chips_) {
        pieces << visiblePiece(chip.piece);
    }
    setAccessibleDescription(pieces.join(QLatin1Char(' ')));
    relayout();
}

QString TokenChips::visiblePiece(const QString &piece) {
    QString shown;
    for (const QChar c : piece) {
        if (c == QLatin1Char(' ')) {
            shown += QChar(0x00B7);
        } else if (c == QLatin1Char('\n')) {
            shown += QChar(0x21B5);
        } else if (c == QLatin1Char('\t')) {
            shown += QChar(0x2192);
        } else if (c == QLatin1Char('\r')) {
            shown += QStringLiteral("\\r");
        } else if (c.category() == QChar::Other_Control) {
            shown += QStringLiteral("<0x%1>").arg(c.unicode(), 2, 16, QLatin1Char('0')).toUpper();
        } else {
            shown += c;
        }
    }
    return shown;
}

QSize TokenChips::chipSize(const Chip &chip) const {
    const QFontMetrics piece_metrics(pieceFont(font()));
    const QFontMetrics id_metrics(idFont(font()));
    // Rounded up with a pixel to spare: elidedText cuts a text whose width is the box's exactly.
    const int piece_width = std::min(
        kMaxPieceWidth,
        static_cast<int>(std::ceil(
            QFontMetricsF(pieceFont(font())).horizontalAdvance(visiblePiece(chip.piece)))) +
            2);
    const int id_width = id_metrics.horizontalAdvance(QString::number(chip.id));
    return {std::max(piece_width, id_width) + 2 * kPaddingX,
            piece_metrics.height() + id_metrics.height() + 2 * kPaddingY};
}

std::vector<QRect> TokenChips::layoutFor(int width) const {
    std::vector<QRect> rects;
    rects.reserve(chips_.size());
    int x = 0;
    int y = 0;
    int row_height = 0;
    for (const Chip &chip : chips_) {
        const QSize size = chipSize(chip);
        if (x > 0 && x + size.width() > width) {
            x = 0;
            y += row_height + kSpacing;
            row_height = 0;
        }
        rects.emplace_back(QPoint(x, y), size);
        x += size.width() + kSpacing;
        row_height = std::max(row_height, size.height());
    }
    return rects;
}

int TokenChips::heightForWidth(int width) const {
    const std::vector<QRect> rects = layoutFor(width);
    int bottom = 0;
    for (const QRect &rect : rects) {
        bottom = std::max(bottom, rect.bottom() + 1);
    }
    return bottom;
}

QSize TokenChips::sizeHint() const {
    return {400, heightForWidth(400)};
}

QSize TokenChips::minimumSizeHint() const {
    return {kMaxPieceWidth + 2 * kPaddingX, 0};
}

void TokenChips::relayout() {
    laid_out_ = layoutFor(width());
    updateGeometry();
    update();
}

void TokenChips::resizeEvent(QResizeEvent *event) {
    QWidget::resizeEvent(event);
    laid_out_ = layoutFor(width());
}

QString TokenChips::toolTipFor(const Chip &chip) const {
    // Rich text on purpose: a piece such as "<s>" would otherwise be taken for markup.
    QStringList lines{tr("id %1 · piece “%2”").arg(chip.id).arg(chip.piece).toHtmlEscaped()};
    if (chip.special) {
        lines << tr("special token").toHtmlEscaped();
    }
    if (chip.prompt) {
        lines << tr("prompt (not learned)").toHtmlEscaped();
    }
    return QStringLiteral("<p style='white-space:pre'>%1</p>")
        .arg(lines.join(QStringLiteral("<br>")));
}

bool TokenChips::event(QEvent *event) {
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        for (std::size_t i = 0; i < laid_out_.size(); ++i) {
            if (laid_out_[i].contains(help->pos())) {
                QToolTip::showText(help->globalPos(), toolTipFor(chips_[i]), this, laid_out_[i]);
                return true;
            }
        }
        QToolTip::hideText();
        event->ignore();
        return true;
    }
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange) {
        relayout();
    }
    return QWidget::event(event);
}

void TokenChips::paintEvent(QPaintEvent *) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QFont piece_font = pieceFont(font());
    const QFont id_font = idFont(font());
    const QFontMetrics piece_metrics(piece_font);
    const QPalette &colors = palette();
    QColor id_color = colors.color(QPalette::Text);
    id_color.setAlphaF(0.7);
    for (std::size_t i = 0; i < chips_.size() && i < laid_out_.size(); ++i) {
        const Chip &chip = chips_[i];
        const QRectF box = QRectF(laid_out_[i]).adjusted(0.5, 0.5, -0.5, -0.5);
        if (chip.special) {
            painter.setBrush(colors.color(QPalette::Base));
            painter.setPen(QPen(colors.color(QPalette::Text), 1, Qt::DashLine));
        } else {
            painter.setBrush(chipColor(chip, static_cast<int>(i), colors));
            painter.setPen(Qt::NoPen);
        }
        painter.drawRoundedRect(box, 3, 3);
        const QRect inner = laid_out_[i].adjusted(kPaddingX, kPaddingY, -kPaddingX, -kPaddingY);
        painter.setPen(colors.color(QPalette::Text));
        painter.setFont(piece_font);
        const QRect piece_rect(inner.topLeft(), QSize(inner.width(), piece_metrics.height()));
        painter.drawText(
            piece_rect, Qt::AlignHCenter | Qt::AlignVCenter,
            piece_metrics.elidedText(visiblePiece(chip.piece), Qt::ElideMiddle, inner.width()));
        painter.setPen(id_color);
        painter.setFont(id_font);
        const QRect id_rect(inner.left(), piece_rect.bottom() + 1, inner.width(),
                            inner.bottom() - piece_rect.bottom());
        painter.drawText(id_rect, Qt::AlignHCenter | Qt::AlignVCenter, QString::number(chip.id));
    }
}

} // namespace headroom::ui
