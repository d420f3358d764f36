#pragma once

#include <QComboBox>

namespace headroom::ui {

// The preference objectives (train.objective) the data page offers: for a file of preference
// pairs DPO, IPO, SimPO and ORPO (DPO first), for unpaired records KTO; each item's data is the
// key's value.
class ObjectiveBox : public QComboBox {
    Q_OBJECT

public:
    explicit ObjectiveBox(QWidget *parent = nullptr);
    // The objectives of pairs, or (unpaired) of KTO's records; keeps the choice when it fits.
    void offer(bool unpaired);
};

} // namespace headroom::ui
