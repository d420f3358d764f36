#pragma once

#include <headroom/config.h>
#include <headroom/pretrained.h>

#include <QStringList>
#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QGridLayout;
class QLabel;
class QSpinBox;

namespace headroom::ui {

// The projections of a pretrained model that can carry LoRA adapters, by the names its
// checkpoint uses (GPT-2: c_attn, c_proj, c_fc; Llama, Qwen2, Mistral: q_proj ... down_proj;
// Mixtral: q_proj ... o_proj and the experts' w1, w2, w3).
QStringList loraProjectionNames(const PretrainedInfo &info);
// What the wizard proposes: the attention's query and value projections (PEFT's default).
QString defaultLoraTargets(const PretrainedInfo &info);
// The learning rate a pretrained project starts with: 2e-4 for LoRA, 2e-5 for every weight
// (what createProject picks when the key is not given).
std::string pretrainedLearningRate(bool lora);

// LoRA for a pretrained project: on or off (off trains every weight), the rank, and the
// projections that get adapters (the folder's names, or all-linear). Reads and writes the
// lora.rank and lora.targets keys; changed() follows every edit.
class LoraControls : public QWidget {
    Q_OBJECT

public:
    explicit LoraControls(QWidget *parent = nullptr);

    // Offers this model's projection names.
    void setModel(const PretrainedInfo &info);
    void load(const Config &config);
    // Sets lora.rank (0 when off), lora.targets and model.base_dtype (fp32 when LoRA is off:
    // weights that train stay in full precision).
    void apply(Config &config) const;
    bool isLoraOn() const;
    // "q_proj,v_proj" or "all-linear"; empty when no projection is ticked.
    QString targets() const;

Q_SIGNALS:
    void changed();

private:
    void updateEnabled();

    QCheckBox *enabled_ = nullptr;
    QLabel *rank_label_ = nullptr;
    QSpinBox *rank_ = nullptr;
    QLabel *targets_label_ = nullptr;
    QCheckBox *all_linear_ = nullptr;
    QLabel *base_format_label_ = nullptr;
    QComboBox *base_format_ = nullptr;
    QGridLayout *grid_ = nullptr;
    std::vector<QCheckBox *> projections_;
    bool loading_ = false;
};

} // namespace headroom::ui
