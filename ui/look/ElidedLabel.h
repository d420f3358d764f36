#pragma once

#include <QLabel>

namespace headroom::ui {

// A one-line label that never asks for the width of its text: a long text is cut with "…" to the
// width it is given and shown whole in the tooltip (unless the label has a tooltip of its own).
// For status and caption texts, which must never widen the window.
class ElidedLabel : public QLabel {
    Q_OBJECT

public:
    explicit ElidedLabel(QWidget *parent = nullptr, Qt::TextElideMode mode = Qt::ElideRight);

    // Whether the text is shown cut at the current width (text() is always the whole text).
    bool isElided() const;

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;

private:
    Qt::TextElideMode mode_;
};

} // namespace headroom::ui
