#pragma once

#include "WizardSettings.h"

#include <QWizardPage>

class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace headroom::ui {

class BackgroundJob;

// Page (e): the settings as key = value and where to save the project. Finish creates the
// project in the background (workflow.h createProject); a failure is shown on the page and
// the wizard stays open.
class ReviewPage : public QWizardPage {
    Q_OBJECT

public:
    ReviewPage(WizardSettings &settings, QWidget *parent = nullptr);

    void setProjectPath(const QString &path);
    // With the .headroom suffix added when it has none.
    QString projectPath() const;
    QString errorText() const;
    bool isCreating() const;

    void initializePage() override;
    bool isComplete() const override;
    bool validatePage() override;

Q_SIGNALS:
    // createProject ended; errorText() is empty on success.
    void creationEnded();

private:
    // In words: a pretrained causal language model and its architecture, a GPT from scratch...
    QString projectKind() const;
    void chooseProjectFile();
    void startCreating();
    void showStatus(const QString &text, bool error);
    void setNavigationEnabled(bool enabled);

    WizardSettings &settings_;
    QPlainTextEdit *settings_text_ = nullptr;
    QLineEdit *project_path_ = nullptr;
    QLabel *status_ = nullptr;
    BackgroundJob *job_ = nullptr;
    bool created_ = false;
};

} // namespace headroom::ui
