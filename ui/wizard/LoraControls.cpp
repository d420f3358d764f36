#include "LoraControls.h"

#include "WizardForms.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

namespace headroom::ui {

namespace {
constexpr int kColumns = 4;
constexpr int kDefaultRank = 8;
} // namespace

QStringList loraProjectionNames(const PretrainedInfo &info) {
    if (info.model_type == "gpt2") {
        return {QStringLiteral("c_attn"), QStringLiteral("c_proj"), QStringLiteral("c_fc")};
    }
    QStringList names = {QStringLiteral("q_proj"), QStringLiteral("k_proj"),
                         QStringLiteral("v_proj"), QStringLiteral("o_proj")};
    if (info.experts > 0) { // Mixtral: every expert's SwiGLU projections
        return names +
               QStringList{QStringLiteral("w1"), QStringLiteral("w2"), QStringLiteral("w3")};
    }
    return names + QStringList{QStringLiteral("gate_proj"), QStringLiteral("up_proj"),
                               QStringLiteral("down_proj")};
}

QString defaultLoraTargets(const PretrainedInfo &info) {
    return info.model_type == "gpt2" ? QStringLiteral("c_attn") : QStringLiteral("q_proj,v_proj");
}

std::string pretrainedLearningRate(bool lora) {
    return lora ? "0.0002" : "0.00002";
}

LoraControls::LoraControls(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("loraControls"));
    enabled_ = new QCheckBox(tr("Train &LoRA adapters (the base model stays frozen)"), this);
    enabled_->setObjectName(QStringLiteral("loraEnabled"));
    enabled_->setAccessibleName(tr("Train LoRA adapters"));
    enabled_->setToolTip(tr("Off: every weight of the model is trained (needs memory for their "
                            "gradients and optimizer state)."));
    rank_ = new QSpinBox(this);
    rank_->setObjectName(QStringLiteral("loraRank"));
    rank_->setAccessibleName(tr("LoRA rank"));
    rank_->setRange(1, 4096);
    rank_->setValue(kDefaultRank);
    all_linear_ = new QCheckBox(tr("All linear layers"), this);
    all_linear_->setObjectName(QStringLiteral("loraAllLinear"));
    all_linear_->setToolTip(tr("lora.targets=all-linear: every projection of every block"));

    base_format_ = new QComboBox(this);
    base_format_->setObjectName(QStringLiteral("baseFormat"));
    base_format_->setAccessibleName(tr("Frozen base held as"));
    base_format_->addItem(tr("fp32 (4 bytes a weight)"), QStringLiteral("fp32"));
    base_format_->addItem(tr("bf16 (2 bytes)"), QStringLiteral("bf16"));
    base_format_->addItem(tr("fp16 (2 bytes)"), QStringLiteral("fp16"));
    base_format_->addItem(tr("int8 (about 1 byte)"), QStringLiteral("int8"));
    base_format_->addItem(tr("nf4, 4-bit (about 0.52 bytes)"), QStringLiteral("nf4"));
    base_format_->setToolTip(
        tr("model.base_dtype: how the frozen attention and MLP weights are held. int8 and nf4 "
           "are dequantized layer by layer in each step: less memory, somewhat slower steps. "
           "Embeddings, norms and the output head stay fp32."));
    base_format_label_ = buddyLabel(tr("&Base held as:"), base_format_, this);

    // [x] Train LoRA adapters ...  Base held as: [fp32 v]  Rank: [8]
    // Adapt: [ ] All linear layers  [x] q_proj  [ ] k_proj  [x] v_proj  [ ] o_proj
    //                               [ ] gate_proj ...
    rank_->setMinimumWidth(rank_->fontMetrics().horizontalAdvance(QStringLiteral("00000")) + 40);
    rank_label_ = buddyLabel(tr("&Rank:"), rank_, this);
    auto *top = new QHBoxLayout;
    top->addWidget(enabled_);
    top->addStretch(1);
    top->addWidget(base_format_label_);
    top->addWidget(base_format_);
    top->addSpacing(12);
    top->addWidget(rank_label_);
    top->addWidget(rank_);

    targets_label_ = new QLabel(tr("Adapt:"), this);
    grid_ = new QGridLayout;
    grid_->setHorizontalSpacing(16);
    grid_->setVerticalSpacing(2);
    grid_->addWidget(targets_label_, 0, 0);
    grid_->addWidget(all_linear_, 0, 1);
    grid_->setColumnStretch(kColumns + 2, 1);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addLayout(grid_);

    connect(enabled_, &QCheckBox::toggled, this, [this] {
        updateEnabled();
        if (!loading_) {
            Q_EMIT changed();
        }
    });
    connect(rank_, &QSpinBox::valueChanged, this, [this] {
        if (!loading_) {
            Q_EMIT changed();
        }
    });
    connect(base_format_, &QComboBox::currentIndexChanged, this, [this] {
        if (!loading_) {
            Q_EMIT changed();
        }
    });
    connect(all_linear_, &QCheckBox::toggled, this, [this] {
        updateEnabled();
        if (!loading_) {
            Q_EMIT changed();
        }
    });
    updateEnabled();
}

void LoraControls::setModel(const PretrainedInfo &info) {
    for (QCheckBox *box : projections_) {
        delete box;
    }
    projections_.clear();
    const QStringList names = loraProjectionNames(info);
    for (int i = 0; i < names.size(); ++i) {
        auto *box = new QCheckBox(names.at(i), this);
        box->setObjectName(QStringLiteral("loraTarget_") + names.at(i));
        box->setProperty("target", names.at(i)); // the text may gain an accelerator
        grid_->addWidget(box, i / kColumns, 2 + i % kColumns);
        connect(box, &QCheckBox::toggled, this, [this] {
            if (!loading_) {
                Q_EMIT changed();
            }
        });
        projections_.push_back(box);
    }
    updateEnabled();
}

void LoraControls::load(const Config &config) {
    loading_ = true;
    const bool on = config.integer("lora.rank") > 0;
    enabled_->setChecked(on);
    rank_->setValue(on ? int(config.integer("lora.rank")) : kDefaultRank);
    const QStringList targets =
        QString::fromStdString(config.text("lora.targets")).split(QLatin1Char(','));
    QStringList trimmed;
    for (const QString &target : targets) {
        trimmed << target.trimmed();
    }
    all_linear_->setChecked(trimmed.contains(QStringLiteral("all-linear")));
    const int format =
        base_format_->findData(QString::fromStdString(config.text("model.base_dtype")));
    base_format_->setCurrentIndex(format >= 0 ? format : 0);
    for (QCheckBox *box : projections_) {
        box->setChecked(trimmed.contains(box->property("target").toString()));
    }
    loading_ = false;
    updateEnabled();
}

void LoraControls::apply(Config &config) const {
    config.set("lora.rank", enabled_->isChecked() ? std::to_string(rank_->value()) : "0");
    config.set("model.base_dtype", enabled_->isChecked()
                                       ? base_format_->currentData().toString().toStdString()
                                       : "fp32");
    const QString chosen = targets();
    if (!chosen.isEmpty()) {
        config.set("lora.targets", chosen.toStdString());
    }
}

bool LoraControls::isLoraOn() const {
    return enabled_->isChecked();
}

QString LoraControls::targets() const {
    if (all_linear_->isChecked()) {
        return QStringLiteral("all-linear");
    }
    QStringList names;
    for (const QCheckBox *box : projections_) {
        if (box->isChecked()) {
            names << box->property("target").toString();
        }
    }
    return names.join(QLatin1Char(','));
}

void LoraControls::updateEnabled() {
    const bool on = enabled_->isChecked();
    rank_label_->setEnabled(on);
    rank_->setEnabled(on);
    targets_label_->setEnabled(on);
    all_linear_->setEnabled(on);
    base_format_label_->setEnabled(on);
    base_format_->setEnabled(on);
    for (QCheckBox *box : projections_) {
        box->setEnabled(on && !all_linear_->isChecked());
    }
}

} // namespace headroom::ui
