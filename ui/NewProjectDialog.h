#pragma once

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QThread;

namespace headroom::ui {

// Creates a project from a data file and a recipe (workflow.h createProject). The data file is
// checked in the background; problems are shown in the dialog, which stays open. The full
// configuration wizard replaces this once the memory planner exists.
class NewProjectDialog : public QDialog {
    Q_OBJECT

public:
    explicit NewProjectDialog(QWidget *parent = nullptr);
    ~NewProjectDialog() override;

    void setDataPath(const QString &path);
    void setProjectPath(const QString &path);
    void setRecipe(const QString &recipe);
    QString projectPath() const;
    QString errorText() const;

    // Starts creating the project; accepted() follows on success, the error shows otherwise.
    void create();

private:
    void chooseDataFile();
    void chooseProjectFile();
    void updateCreateButton();
    void onCreated(const QString &error);

    QLineEdit *data_path_ = nullptr;
    QLineEdit *project_path_ = nullptr;
    QComboBox *recipe_ = nullptr;
    QLabel *status_ = nullptr;
    QDialogButtonBox *buttons_ = nullptr;
    QThread *worker_ = nullptr;
};

} // namespace headroom::ui
