#pragma once

#include <QString>
#include <QWidget>

class QLabel;
class QLineEdit;

namespace headroom::ui {

// grpo.reward as the data page asks for it when the file holds prompts for online RL: what a
// sampled completion earns, with a line under it saying what the text means or what is wrong
// with it (the engine's own check).
class RewardField : public QWidget {
    Q_OBJECT

public:
    explicit RewardField(QWidget *parent = nullptr);

    QString text() const;
    void setText(const QString &text);
    // Why the text cannot be used; empty when it can.
    QString problem() const;
    QLineEdit *edit() const { return edit_; }
    // "Reward:", the field's form label (its buddy the line edit).
    QLabel *label() const { return label_; }
    // Shows or hides the field with its label.
    void setRowVisible(bool visible);

Q_SIGNALS:
    void changed();

private:
    void check();

    QLineEdit *edit_;
    QLabel *label_;
    QLabel *verdict_;
    QString problem_;
};

} // namespace headroom::ui
