#pragma once

#include "WizardSettings.h"

#include <QCoreApplication>
#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QTimer;

namespace headroom::ui {

class BackgroundJob;

// The context the wizard proposes for a base: a retrieval text is a query or a passage (128
// tokens), a language model's example a stretch of a document (256); at most the base's.
std::int64_t proposedContext(const PretrainedInfo &info);

// How the desktop describes a pretrained model folder (inspectPretrained's facts), translated.
class BaseModelText {
    Q_DECLARE_TR_FUNCTIONS(BaseModelText)

public:
    // "124.4 million parameters", "7.2 billion parameters", "86,016 parameters".
    static QString parameters(std::int64_t count);
    // Architecture, size, context, stored dtype, tokenizer and the weights' memory in fp32 and
    // bf16, as rich text lines.
    static QString summaryHtml(const PretrainedInfo &info);
    // Whether the planner's estimate describes this base (its parameter count, LoRA adapters
    // aside): a planner without pretrained support estimates a GPT from model.layers instead.
    static bool plannerCovers(const MemoryEstimate &estimate, const PretrainedInfo &info);
};

// The data page's base model field: a Hugging Face folder, typed, browsed or picked from the
// recently used ones, inspected in the background (inspectPretrained: config, weight headers,
// tokenizer). Below it the model's facts and what the planner says about it on the chosen hardware
// profile, or the problem with the folder in the problem colour.
class BaseModelBox : public QWidget {
    Q_OBJECT

public:
    BaseModelBox(WizardSettings &settings, QWidget *parent = nullptr);
    ~BaseModelBox() override;

    QLineEdit *folderEdit() const;
    void setFolder(const QString &folder);
    // Offered in the folder field's list, the latest first; the field stays as it is.
    void setRecentFolders(const QStringList &folders);
    QStringList recentFolders() const;
    QString folder() const;
    // Inspects the folder again (the hardware profile may have changed).
    void recheck();

    bool isChecking() const;
    // The folder was inspected without a problem.
    bool isReady() const { return info_.has_value() && !isChecking(); }
    const std::optional<PretrainedInfo> &info() const { return info_; }
    // Why the folder cannot be used, as shown; empty when it can (or nothing is chosen).
    QString problem() const { return problem_; }

Q_SIGNALS:
    // A check finished (info() or problem() tell how), or the folder was cleared.
    void checked();
    // The folder was edited: not ready until the next check.
    void edited();

private:
    void chooseFolder();
    void scheduleCheck();
    void startCheck();

    WizardSettings &settings_;
    QComboBox *folder_ = nullptr; // editable: typed or picked from the recent folders
    QLabel *details_ = nullptr;
    QTimer *debounce_ = nullptr;
    BackgroundJob *job_ = nullptr;
    bool check_again_ = false;
    std::optional<PretrainedInfo> info_;
    QString problem_;
};

} // namespace headroom::ui
