#include "ModelSizePage.h"

#include "BaseModelBox.h"
#include "WizardColors.h"
#include "WizardForms.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>

namespace headroom::ui {

namespace {
struct GptPreset {
    const char *id;
    int layers, heads, dim, context;
};
// Sizes a CPU trains in minutes (tiny) up to what needs a GPU (large).
constexpr GptPreset kGptPresets[] = {{"tiny", 2, 2, 64, 64},
                                     {"small", 4, 4, 128, 128},
                                     {"medium", 8, 8, 512, 256},
                                     {"large", 12, 12, 768, 512}};
struct TabularPreset {
    const char *id;
    const char *hidden;
};
constexpr TabularPreset kTabularPresets[] = {
    {"small", "64,32"}, {"medium", "128,64"}, {"large", "512,256"}, {"deep", "512,256,128,64"}};
} // namespace

ModelSizePage::ModelSizePage(WizardSettings &settings, QWidget *parent)
    : QWizardPage(parent), settings_(settings) {
    setObjectName(QStringLiteral("modelSizePage"));
    setTitle(tr("Model size"));
    setSubTitle(tr("Pick a preset or say how many parameters the model should have."));

    preset_ = new QComboBox(this);
    preset_->setObjectName(QStringLiteral("preset"));
    preset_->setAccessibleName(tr("Model size preset"));
    target_params_ = new QDoubleSpinBox(this);
    target_params_->setObjectName(QStringLiteral("targetParameters"));
    target_params_->setAccessibleName(tr("Target parameters in millions"));
    target_params_->setDecimals(2);
    target_params_->setRange(0.01, 100000);
    target_params_->setValue(1);
    target_params_->setSuffix(tr(" million"));
    context_ = new QSpinBox(this);
    context_->setObjectName(QStringLiteral("contextLength"));
    context_->setAccessibleName(tr("Context length in tokens"));
    context_->setRange(2, 65536);
    context_->setSuffix(tr(" tokens"));
    hidden_ = new QLineEdit(this);
    hidden_->setObjectName(QStringLiteral("hiddenWidths"));
    hidden_->setAccessibleName(tr("Hidden layer widths"));
    hidden_->setPlaceholderText(tr("e.g. 128,64"));
    result_ = new QLabel(this);
    result_->setObjectName(QStringLiteral("parameterCount"));
    result_->setWordWrap(true);
    result_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *form = new QFormLayout;
    size_label_ = addBuddyRow(form, tr("&Size:"), preset_, this);
    params_label_ = addBuddyRow(form, tr("&Target parameters:"), target_params_, this);
    context_label_ = addBuddyRow(form, tr("&Context length:"), context_, this);
    hidden_label_ = addBuddyRow(form, tr("&Hidden widths:"), hidden_, this);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(createMoeBox());
    layout->addSpacing(8);
    layout->addWidget(result_);
    layout->addStretch();

    connect(preset_, &QComboBox::currentIndexChanged, this, &ModelSizePage::onPresetChanged);
    connect(target_params_, &QDoubleSpinBox::valueChanged, this,
            &ModelSizePage::refreshParameterCount);
    connect(context_, &QSpinBox::valueChanged, this, &ModelSizePage::refreshParameterCount);
    connect(hidden_, &QLineEdit::textChanged, this, &ModelSizePage::refreshParameterCount);
}

// The GPT's MLPs as routed experts (moe.*): off is the dense model.
QGroupBox *ModelSizePage::createMoeBox() {
    moe_box_ = new QGroupBox(tr("&Mixture of Experts: routed expert MLPs"), this);
    moe_box_->setObjectName(QStringLiteral("moe"));
    moe_box_->setCheckable(true);
    moe_box_->setChecked(false);
    moe_box_->setToolTip(tr("Each MoE block replaces its MLP by several experts and a router that "
                            "sends each token to a few of them: more parameters for the same "
                            "work per token, and more memory."));
    experts_ = new QSpinBox(moe_box_);
    experts_->setObjectName(QStringLiteral("moeExperts"));
    experts_->setAccessibleName(tr("Experts per MoE block"));
    experts_->setRange(2, 256);
    experts_->setValue(4);
    top_k_ = new QSpinBox(moe_box_);
    top_k_->setObjectName(QStringLiteral("moeTopK"));
    top_k_->setAccessibleName(tr("Experts each token is routed to"));
    top_k_->setRange(1, 4);
    top_k_->setValue(2);
    capacity_ = new QDoubleSpinBox(moe_box_);
    capacity_->setObjectName(QStringLiteral("moeCapacity"));
    capacity_->setAccessibleName(tr("Capacity factor"));
    capacity_->setRange(0, 16);
    capacity_->setSingleStep(0.25);
    capacity_->setDecimals(2);
    capacity_->setValue(1.25);
    capacity_->setSpecialValueText(tr("no limit"));
    capacity_->setToolTip(tr("Tokens an expert takes per sequence, as a multiple of an even "
                             "share; tokens over it skip the experts (0: no limit)."));
    every_ = new QSpinBox(moe_box_);
    every_->setObjectName(QStringLiteral("moeEvery"));
    every_->setAccessibleName(tr("MoE in every k-th block"));
    every_->setRange(1, 128);
    every_->setValue(1);
    auto *form = new QFormLayout(moe_box_);
    addBuddyRow(form, tr("E&xperts:"), experts_, this);
    addBuddyRow(form, tr("Experts &per token (top-k):"), top_k_, this);
    addBuddyRow(form, tr("Capacit&y factor:"), capacity_, this);
    addBuddyRow(form, tr("MoE in e&very k-th block:"), every_, this);
    connect(moe_box_, &QGroupBox::toggled, this, &ModelSizePage::refreshParameterCount);
    connect(experts_, &QSpinBox::valueChanged, this, [this](int experts) {
        top_k_->setMaximum(experts);
        refreshParameterCount();
    });
    for (QSpinBox *spin : {top_k_, every_}) {
        connect(spin, &QSpinBox::valueChanged, this, &ModelSizePage::refreshParameterCount);
    }
    connect(capacity_, &QDoubleSpinBox::valueChanged, this, &ModelSizePage::refreshParameterCount);
    return moe_box_;
}

void ModelSizePage::loadMoe() {
    const Config &config = settings_.config;
    const QSignalBlocker box(moe_box_);
    const std::int64_t experts = config.integer("moe.experts");
    moe_box_->setChecked(experts > 0);
    if (experts > 0) {
        const QSignalBlocker blocker(experts_);
        experts_->setValue(int(experts));
        top_k_->setMaximum(int(experts));
    }
    const QSignalBlocker top_k(top_k_);
    top_k_->setValue(int(config.integer("moe.top_k")));
    const QSignalBlocker capacity(capacity_);
    capacity_->setValue(config.real("moe.capacity_factor"));
    const QSignalBlocker every(every_);
    every_->setValue(int(config.integer("moe.every")));
}

void ModelSizePage::fillPresets() {
    const QSignalBlocker blocker(preset_);
    preset_->clear();
    if (recipe_ == QLatin1String("pretrained")) {
        return; // the base's size
    }
    if (recipe_ == QLatin1String("gpt")) {
        const QString names[] = {tr("Tiny"), tr("Small"), tr("Medium"), tr("Large")};
        for (int i = 0; i < 4; ++i) {
            const GptPreset &preset = kGptPresets[i];
            preset_->addItem(tr("%1: %2 layers, %3 heads, width %4")
                                 .arg(names[i])
                                 .arg(preset.layers)
                                 .arg(preset.heads)
                                 .arg(preset.dim),
                             QString::fromLatin1(preset.id));
        }
        preset_->addItem(tr("Target parameter count"), QStringLiteral("custom"));
    } else {
        const QString names[] = {tr("Small"), tr("Medium"), tr("Large"), tr("Deep")};
        for (int i = 0; i < 4; ++i) {
            preset_->addItem(tr("%1: hidden widths %2")
                                 .arg(names[i], QString::fromLatin1(kTabularPresets[i].hidden)),
                             QString::fromLatin1(kTabularPresets[i].id));
        }
        preset_->addItem(tr("Custom hidden widths"), QStringLiteral("custom"));
    }
    preset_->setCurrentIndex(1);
}

void ModelSizePage::initializePage() {
    QString recipe = QString::fromStdString(settings_.config.text("recipe"));
    if (settings_.pretrained()) {
        recipe = QStringLiteral("pretrained");
    }
    if (recipe != recipe_) {
        recipe_ = recipe;
        fillPresets();
    }
    const bool pretrained = recipe_ == QLatin1String("pretrained");
    const bool gpt = recipe_ == QLatin1String("gpt");
    const bool retrieval = settings_.config.text("recipe") == "splade";
    setSubTitle(retrieval ? tr("The pretrained encoder's size is given; choose how many tokens a "
                               "query or a passage keeps (longer ones are cut).")
                : pretrained
                    ? tr("The pretrained model's size is given; choose how many tokens each "
                         "training example holds.")
                    : tr("Pick a preset or say how many parameters the model should have."));
    for (QWidget *widget :
         {static_cast<QWidget *>(params_label_), static_cast<QWidget *>(target_params_)}) {
        widget->setVisible(gpt);
    }
    moe_box_->setVisible(gpt);
    loadMoe();
    size_label_->setVisible(!pretrained);
    preset_->setVisible(!pretrained);
    context_label_->setVisible(gpt || pretrained);
    context_->setVisible(gpt || pretrained);
    hidden_label_->setVisible(!gpt && !pretrained);
    hidden_->setVisible(!gpt && !pretrained);
    if (pretrained) {
        // The base was trained for its context; longer examples have no positions.
        const QSignalBlocker blocker(context_);
        context_->setRange(2, int(std::min<std::int64_t>(65536, settings_.base->context)));
        context_->setValue(int(settings_.config.integer("model.seq_len")));
        refreshParameterCount();
        return;
    }
    context_->setRange(2, 65536);
    onPresetChanged();
}

bool ModelSizePage::selectPreset(const QString &id) {
    const int index = preset_->findData(id);
    if (index >= 0) {
        preset_->setCurrentIndex(index);
    }
    return index >= 0;
}

void ModelSizePage::onPresetChanged() {
    const QString id = preset_->currentData().toString();
    const bool custom = id == QLatin1String("custom");
    target_params_->setEnabled(custom);
    hidden_->setReadOnly(!custom);
    for (const GptPreset &preset : kGptPresets) {
        if (id == QLatin1String(preset.id) && recipe_ == QLatin1String("gpt")) {
            const QSignalBlocker blocker(context_);
            context_->setValue(preset.context);
        }
    }
    for (const TabularPreset &preset : kTabularPresets) {
        if (id == QLatin1String(preset.id) && recipe_ != QLatin1String("gpt")) {
            const QSignalBlocker blocker(hidden_);
            hidden_->setText(QString::fromLatin1(preset.hidden));
        }
    }
    refreshParameterCount();
}

Config ModelSizePage::configWithSize() const {
    Config config = settings_.config;
    const QString id = preset_->currentData().toString();
    if (recipe_ == QLatin1String("pretrained")) {
        config.set("model.seq_len", std::to_string(context_->value()));
    } else if (recipe_ == QLatin1String("gpt")) {
        config.set("model.seq_len", std::to_string(context_->value()));
        const bool moe = moe_box_->isChecked();
        config.set("moe.experts", moe ? std::to_string(experts_->value()) : "0");
        if (moe) {
            config.set("moe.top_k", std::to_string(top_k_->value()));
            config.set("moe.capacity_factor", QString::number(capacity_->value()).toStdString());
            config.set("moe.every", std::to_string(every_->value()));
        }
        if (id == QLatin1String("custom")) {
            config.set("model.params", std::to_string(std::llround(target_params_->value() * 1e6)));
        } else {
            config.set("model.params", "0");
            for (const GptPreset &preset : kGptPresets) {
                if (id == QLatin1String(preset.id)) {
                    config.set("model.layers", std::to_string(preset.layers));
                    config.set("model.heads", std::to_string(preset.heads));
                    config.set("model.dim", std::to_string(preset.dim));
                }
            }
        }
    } else {
        config.set("model.hidden", hidden_->text().trimmed().toStdString());
    }
    if (recipe_ != QLatin1String("gpt")) {
        // Left from a GPT chosen before: only a GPT has experts.
        for (const KeySpec &spec : configKeys()) {
            if (spec.name.rfind("moe.", 0) == 0) {
                config.set(spec.name, spec.default_value);
            }
        }
    }
    config.validate();
    return config;
}

void ModelSizePage::refreshParameterCount() {
    parameters_ = 0;
    if (!settings_.facts_known || recipe_.isEmpty()) {
        result_->setText(tr("Go back and choose a data file first."));
        Q_EMIT completeChanged();
        return;
    }
    TextTone tone = TextTone::Normal; // unless the size is refused
    if (recipe_ == QLatin1String("pretrained") && settings_.base) {
        parameters_ = settings_.base->parameters;
        result_->setText(BaseModelText::summaryHtml(*settings_.base));
        setTextTone(result_, tone);
        Q_EMIT completeChanged();
        return;
    }
    try {
        const MemoryEstimate estimate = estimateMemory(configWithSize(), settings_.facts);
        parameters_ = estimate.parameters;
        result_->setText(tr("<b>%1 parameters</b><br>%2")
                             .arg(QLocale().toString(qint64(estimate.parameters)),
                                  QString::fromStdString(estimate.model).toHtmlEscaped()));
    } catch (const std::exception &failure) {
        result_->setText(QString::fromUtf8(failure.what()).toHtmlEscaped());
        tone = TextTone::Problem;
    }
    setTextTone(result_, tone);
    Q_EMIT completeChanged();
}

bool ModelSizePage::isComplete() const {
    return parameters_ > 0;
}

bool ModelSizePage::validatePage() {
    try {
        settings_.config = configWithSize();
        return true;
    } catch (const std::exception &) {
        return false;
    }
}

} // namespace headroom::ui
