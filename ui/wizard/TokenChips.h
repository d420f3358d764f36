#pragma once

#include <QString>
#include <QWidget>

#include <vector>

namespace headroom::ui {

// A tokenized text as a row of chips that wraps with the width: each chip shows the token's
// piece (whitespace made visible) over its id, in alternating tints that read on light and
// dark palettes; special tokens have a dashed outline, a prompt's tokens a warmer tint. The
// tooltip of a chip names its id and piece.
class TokenChips : public QWidget {
    Q_OBJECT

public:
    struct Chip {
        std::int32_t id = 0;
        QString piece; // as the engine spells it
        bool special = false;
        bool prompt = false;
    };

    explicit TokenChips(QWidget *parent = nullptr);

    void setChips(std::vector<Chip> chips);
    const std::vector<Chip> &chips() const { return chips_; }
    // The piece as a chip shows it: " " reads "·", a newline "↵", a tab "→".
    static QString visiblePiece(const QString &piece);

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    QSize chipSize(const Chip &chip) const;
    // Chip rectangles for a width, in chip order; fills laid_out_ for the current width.
    std::vector<QRect> layoutFor(int width) const;
    void relayout();
    QString toolTipFor(const Chip &chip) const;

    std::vector<Chip> chips_;
    std::vector<QRect> laid_out_;
};

} // namespace headroom::ui
