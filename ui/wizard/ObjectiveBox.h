#pragma once

#include <QComboBox>

namespace headroom::ui {

// The preference objectives (train.objective) the data page offers for a file of preference
// pairs, DPO first; each item's data is the key's value.
class ObjectiveBox : public QComboBox {
    Q_OBJECT

public:
    explicit ObjectiveBox(QWidget *parent = nullptr);
};

} // namespace headroom::ui
