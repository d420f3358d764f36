#include "ObjectiveBox.h"

#include <QSignalBlocker>

namespace headroom::ui {

ObjectiveBox::ObjectiveBox(QWidget *parent) : QComboBox(parent) {
    setObjectName(QStringLiteral("objective"));
    setAccessibleName(tr("Objective"));
    setToolTip(tr("train.objective: preference tuning learns from each pair which completion "
                  "people preferred. DPO and IPO compare with the base model (with LoRA: the "
                  "base with its adapters switched off, no extra memory)."));
    offer(Data::Pairs);
}

void ObjectiveBox::offer(Data data) {
    if (count() > 0 && data == offered_) {
        return; // the same kind of data: the person's choice stays
    }
    offered_ = data;
    const QSignalBlocker quiet(this);
    clear();
    if (data == Data::Unpaired) {
        addItem(tr("KTO: desirable and undesirable completions, against the base"),
                QStringLiteral("kto"));
        return;
    }
    if (data == Data::Prompts) {
        addItem(tr("GRPO: sample completions, reinforce the better-rewarded"),
                QStringLiteral("grpo"));
        return;
    }
    addItem(tr("DPO: prefer the chosen completion, against the base"), QStringLiteral("dpo"));
    addItem(tr("IPO: DPO with a bounded margin"), QStringLiteral("ipo"));
    addItem(tr("SimPO: length-normalized, no reference model"), QStringLiteral("simpo"));
    addItem(tr("ORPO: learn and prefer in one, no reference model"), QStringLiteral("orpo"));
}

bool ObjectiveBox::offerFor(const DataPreview &preview) {
    if (!preview.preference_pairs && !preview.unpaired_preference && !preview.prompts) {
        // The next file of preference data starts from the first objective again.
        const QSignalBlocker quiet(this);
        setCurrentIndex(0);
        return false;
    }
    offer(preview.prompts               ? Data::Prompts
          : preview.unpaired_preference ? Data::Unpaired
                                        : Data::Pairs);
    return true;
}

QString ObjectiveBox::needsPretrained(const DataPreview &preview) {
    return preview.prompts ? tr("The file holds prompts without completions, for online RL "
                                "(GRPO) on a pretrained model: choose \"Start from a pretrained "
                                "model\".")
                           : tr("The file holds preference data (\"chosen\" and \"rejected\", "
                                "or a \"label\"), which tunes a pretrained model: choose "
                                "\"Start from a pretrained model\".");
}

std::vector<std::string> ObjectiveBox::fitWholeGroups(Config &config) {
    const std::int64_t group = config.integer("grpo.group_size");
    if (config.text("train.objective") != "grpo" ||
        config.integer("train.micro_batch") * config.integer("train.accumulation") % group == 0) {
        return {};
    }
    config.set("train.micro_batch", std::to_string(group));
    config.set("train.accumulation", "1");
    return {"train.micro_batch", "train.accumulation"};
}

bool ObjectiveBox::isGrpo() const {
    return currentData().toString() == QLatin1String("grpo");
}

} // namespace headroom::ui
