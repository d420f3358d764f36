#pragma once

#include "WizardSettings.h"

#include <QWizardPage>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTimer;

namespace headroom::ui {

class BackgroundJob;
class BaseModelBox;
class ChatPreviewPanel;
class ObjectiveBox;
class RewardField;
class TokenPreviewPanel;

// Page (b): the recipe — first a pretrained model's folder, inspected in the background (a causal
// language model fine-tunes as causal_lm, a masked one as a SPLADE retrieval encoder), or a GPT
// from scratch, or a tabular model — the data file
// (typed, browsed or dropped) and, for gpt, the tokenizer or, for tabular, the target column. The
// file is read in the background; until it reads cleanly Next stays disabled and the reason is
// shown on the page. Conversation data shows the chat panel (template, what is learned, the
// conversations as rendered) in place of the token preview.
class DataPage : public QWizardPage {
    Q_OBJECT

public:
    DataPage(WizardSettings &settings, QWidget *parent = nullptr);

    // A folder is taken for a pretrained model's (setBaseFolder).
    void setDataPath(const QString &path);
    // Chooses "Start from a pretrained model" with this Hugging Face folder.
    void setBaseFolder(const QString &folder);
    // "pretrained" (the default), "gpt" (from scratch) or "tabular".
    void selectRecipe(const QString &recipe);
    bool isPretrained() const;
    // A pretrained masked language model (BERT, DistilBERT): recipe=splade, retrieval data.
    bool isRetrievalEncoder() const;
    // A language model (from scratch or pretrained causal), whose records may be packed.
    bool isLanguageModel() const;
    BaseModelBox *baseModelBox() const { return base_box_; }
    TokenPreviewPanel *tokenPreview() const { return tokens_; }
    ChatPreviewPanel *chatPreview() const { return chat_; }
    // The checked file holds conversations.
    bool isChatData() const { return chat_data_; }
    // The checked file holds preference pairs or KTO's labelled records: the page offers the
    // objective (DPO, ... or KTO).
    bool isPreferenceData() const { return preference_data_; }
    RewardField *rewardField() const { return reward_; }
    ObjectiveBox *objectiveBox() const { return objective_; }
    bool isTokenizing() const;
    // The problem with the data as shown on the page; empty when it reads cleanly.
    QString problem() const { return problem_; }
    bool isChecking() const;

    void initializePage() override;
    bool isComplete() const override;
    bool validatePage() override;

Q_SIGNALS:
    // A check of the data file finished (problem() tells how).
    void checked();
    // The token (or chat) preview shows tokens and statistics or why it cannot.
    void tokensShown();

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void chooseDataFile();
    void onRecipeChanged();
    void scheduleCheck();
    void startCheck();
    void startTokenPreview();
    void updatePreviewPanels();
    void showTokenMessage(const QString &text, bool problem);
    void showStatus(const QString &text);
    void showProblem(const QString &problem);
    void onBaseChecked();
    Config currentConfig() const;
    std::string recipeKey() const;
    void applyBaseSettings(Config &config);
    // Preference pairs on a pretrained causal model: the objective row is shown.
    bool offersObjective() const;
    void updateObjectiveRow();

    WizardSettings &settings_;
    QComboBox *recipe_ = nullptr;
    QLabel *base_label_ = nullptr;
    BaseModelBox *base_box_ = nullptr;
    QString configured_base_; // the base whose proposed settings are in the config
    QString checked_profile_; // the profile the base's verdict was made for
    QLabel *retrieval_format_ = nullptr;
    std::string checked_recipe_; // the recipe the data file was last checked for
    QLineEdit *data_path_ = nullptr;
    QLabel *tokenizer_label_ = nullptr;
    QComboBox *tokenizer_ = nullptr;
    QLabel *target_label_ = nullptr;
    QComboBox *target_ = nullptr;
    QCheckBox *packing_ = nullptr; // data.packing, language models only
    QLabel *objective_label_ = nullptr;
    ObjectiveBox *objective_ = nullptr; // train.objective, for preference data and prompts
    RewardField *reward_ = nullptr;     // grpo.reward, for prompts
    QLabel *summary_ = nullptr;
    QLabel *status_ = nullptr;
    QPlainTextEdit *preview_ = nullptr;
    QTimer *debounce_ = nullptr;
    BackgroundJob *job_ = nullptr;
    bool check_again_ = false; // the inputs changed while a check ran
    TokenPreviewPanel *tokens_ = nullptr;
    BackgroundJob *token_job_ = nullptr;
    bool tokenize_again_ = false;
    ChatPreviewPanel *chat_ = nullptr;
    bool chat_data_ = false;
    bool preference_data_ = false;
    bool checked_ok_ = false;
    QString problem_;
    QStringList columns_;
    std::vector<std::string> applied_defaults_; // keys the data's defaults set last time
};

} // namespace headroom::ui
