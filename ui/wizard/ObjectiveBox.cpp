#include "ObjectiveBox.h"

#include <QSignalBlocker>

namespace headroom::ui {

ObjectiveBox::ObjectiveBox(QWidget *parent) : QComboBox(parent) {
    setObjectName(QStringLiteral("objective"));
    setAccessibleName(tr("Objective"));
    setToolTip(tr("train.objective: preference tuning learns from each pair which completion "
                  "people preferred. DPO and IPO compare with the base model (with LoRA: the "
                  "base with its adapters switched off, no extra memory)."));
    offer(false);
}

void ObjectiveBox::offer(bool unpaired) {
    if (count() > 0 && unpaired == (currentData().toString() == QLatin1String("kto"))) {
        return; // the same kind of data: the person's choice stays
    }
    const QSignalBlocker quiet(this);
    clear();
    if (unpaired) {
        addItem(tr("KTO: desirable and undesirable completions, against the base"),
                QStringLiteral("kto"));
        return;
    }
    addItem(tr("DPO: prefer the chosen completion, against the base"), QStringLiteral("dpo"));
    addItem(tr("IPO: DPO with a bounded margin"), QStringLiteral("ipo"));
    addItem(tr("SimPO: length-normalized, no reference model"), QStringLiteral("simpo"));
    addItem(tr("ORPO: learn and prefer in one, no reference model"), QStringLiteral("orpo"));
}

bool ObjectiveBox::offerFor(const DataPreview &preview) {
    if (!preview.preference_pairs && !preview.unpaired_preference) {
        // The next file of preference data starts from the first objective again.
        const QSignalBlocker quiet(this);
        setCurrentIndex(0);
        return false;
    }
    offer(preview.unpaired_preference);
    return true;
}

} // namespace headroom::ui
