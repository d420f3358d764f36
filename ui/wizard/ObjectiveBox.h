#pragma once

#include <headroom/config.h>
#include <headroom/data_preview.h>

#include <QComboBox>

#include <string>
#include <vector>

namespace headroom::ui {

// The objectives (train.objective) the data page offers beyond next-token training: for a file of
// preference pairs DPO, IPO, SimPO and ORPO (DPO first), for unpaired records KTO, for prompts
// without completions GRPO; each item's data is the key's value.
class ObjectiveBox : public QComboBox {
    Q_OBJECT

public:
    explicit ObjectiveBox(QWidget *parent = nullptr);
    enum class Data { Pairs, Unpaired, Prompts };
    // The objectives of that kind of data; keeps the choice when it fits.
    void offer(Data data);
    // Offers what the checked data holds; false when it holds neither preference data nor
    // prompts.
    bool offerFor(const DataPreview &preview);
    bool isGrpo() const;
    // Why the data of `preview` (offered an objective) needs a pretrained model.
    static QString needsPretrained(const DataPreview &preview);
    // GRPO trains on whole groups of completions: when train.micro_batch x train.accumulation
    // is not a multiple of grpo.group_size, one group per step (the plan page may cut it into
    // smaller micro-batches). Returns the keys it set.
    static std::vector<std::string> fitWholeGroups(Config &config);

private:
    Data offered_ = Data::Pairs;
};

} // namespace headroom::ui
