#pragma once

#include <headroom/data_preview.h>

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
    // Offers what the checked data holds; false when it holds no preference data.
    bool offerFor(const DataPreview &preview);
};

} // namespace headroom::ui
