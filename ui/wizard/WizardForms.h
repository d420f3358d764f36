#pragma once

#include <QFormLayout>
#include <QLabel>
#include <QString>
#include <QWidget>

namespace headroom::ui {

// A label whose mnemonic (the & in its text) moves the focus to `buddy`.
inline QLabel *buddyLabel(const QString &text, QWidget *buddy, QWidget *parent) {
    auto *label = new QLabel(text, parent);
    label->setBuddy(buddy);
    return label;
}

// Adds "label: field" to a form, the label being the field's buddy; returns the label.
inline QLabel *addBuddyRow(QFormLayout *form, const QString &text, QWidget *field,
                           QWidget *parent) {
    QLabel *label = buddyLabel(text, field, parent);
    form->addRow(label, field);
    return label;
}

} // namespace headroom::ui
