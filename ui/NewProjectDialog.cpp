#include "NewProjectDialog.h"

#include <headroom/workflow.h>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QThread>
#include <QVBoxLayout>

namespace headroom::ui {

namespace {
QWidget *withBrowseButton(QLineEdit *edit, QPushButton *button, QWidget *parent) {
    auto *row = new QWidget(parent);
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    layout->addWidget(button);
    return row;
}
} // namespace

NewProjectDialog::NewProjectDialog(QWidget *parent) : QDialog(parent) {
    setObjectName(QStringLiteral("newProjectDialog"));
    setWindowTitle(tr("New Project"));
    data_path_ = new QLineEdit(this);
    data_path_->setObjectName(QStringLiteral("dataPath"));
    data_path_->setPlaceholderText(tr("A text, JSONL or CSV file"));
    project_path_ = new QLineEdit(this);
    project_path_->setObjectName(QStringLiteral("projectPath"));
    project_path_->setPlaceholderText(tr("Where to save the project (.headroom)"));
    recipe_ = new QComboBox(this);
    recipe_->setObjectName(QStringLiteral("recipe"));
    recipe_->addItem(tr("GPT language model (text)"), QStringLiteral("gpt"));
    recipe_->addItem(tr("Tabular model (CSV)"), QStringLiteral("tabular"));

    auto *browse_data = new QPushButton(tr("&Browse…"), this);
    auto *browse_project = new QPushButton(tr("B&rowse…"), this);
    browse_data->setAccessibleName(tr("Choose the data file"));
    browse_project->setAccessibleName(tr("Choose where to save the project"));
    connect(browse_data, &QPushButton::clicked, this, &NewProjectDialog::chooseDataFile);
    connect(browse_project, &QPushButton::clicked, this, &NewProjectDialog::chooseProjectFile);

    auto *form = new QFormLayout;
    form->addRow(tr("&Data file:"), withBrowseButton(data_path_, browse_data, this));
    form->addRow(tr("&Recipe:"), recipe_);
    form->addRow(tr("&Project file:"), withBrowseButton(project_path_, browse_project, this));
    for (QWidget *field : {static_cast<QWidget *>(data_path_), static_cast<QWidget *>(recipe_),
                           static_cast<QWidget *>(project_path_)}) {
        if (auto *label = qobject_cast<QLabel *>(form->labelForField(field))) {
            label->setBuddy(field);
        }
    }

    auto *note = new QLabel(tr("The project starts with the recipe's default settings; change "
                               "them on the Plan tab."),
                            this);
    note->setWordWrap(true);
    note->setForegroundRole(QPalette::PlaceholderText);
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("newProjectStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons_->button(QDialogButtonBox::Ok)->setText(tr("&Create"));
    connect(buttons_, &QDialogButtonBox::accepted, this, &NewProjectDialog::create);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(note);
    layout->addWidget(status_);
    layout->addStretch();
    layout->addWidget(buttons_);
    resize(560, sizeHint().height());

    connect(data_path_, &QLineEdit::textChanged, this, &NewProjectDialog::updateCreateButton);
    connect(project_path_, &QLineEdit::textChanged, this, &NewProjectDialog::updateCreateButton);
    updateCreateButton();
}

NewProjectDialog::~NewProjectDialog() {
    if (worker_) {
        worker_->wait(); // createProject cannot be interrupted; it checks a file and returns
        delete worker_;
    }
}

void NewProjectDialog::setDataPath(const QString &path) {
    data_path_->setText(path);
    const QFileInfo info(path);
    if (info.suffix().compare(QLatin1String("csv"), Qt::CaseInsensitive) == 0) {
        setRecipe(QStringLiteral("tabular"));
    }
    if (project_path_->text().isEmpty() && !path.isEmpty()) {
        project_path_->setText(info.dir().filePath(info.completeBaseName() + ".headroom"));
    }
}

void NewProjectDialog::setProjectPath(const QString &path) {
    project_path_->setText(path);
}

void NewProjectDialog::setRecipe(const QString &recipe) {
    recipe_->setCurrentIndex(std::max(0, recipe_->findData(recipe)));
}

QString NewProjectDialog::projectPath() const {
    QString path = project_path_->text().trimmed();
    if (!path.isEmpty() && QFileInfo(path).suffix().isEmpty()) {
        path += QStringLiteral(".headroom");
    }
    return path;
}

QString NewProjectDialog::errorText() const {
    return status_->property("error").toBool() ? status_->text() : QString();
}

void NewProjectDialog::chooseDataFile() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Choose Data"), data_path_->text(),
                                     tr("Data files (*.txt *.jsonl *.csv);;All files (*)"));
    if (!path.isEmpty()) {
        setDataPath(path);
    }
}

void NewProjectDialog::chooseProjectFile() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Project As"), projectPath(),
                                                      tr("Headroom projects (*.headroom)"));
    if (!path.isEmpty()) {
        project_path_->setText(path);
    }
}

void NewProjectDialog::updateCreateButton() {
    buttons_->button(QDialogButtonBox::Ok)
        ->setEnabled(!worker_ && !data_path_->text().trimmed().isEmpty() &&
                     !project_path_->text().trimmed().isEmpty());
}

void NewProjectDialog::create() {
    if (worker_) {
        return;
    }
    NewProjectRequest request;
    request.project_path = projectPath().toStdString();
    request.data_path = data_path_->text().trimmed().toStdString();
    request.recipe = recipe_->currentData().toString().toStdString();
    status_->setProperty("error", false);
    status_->setText(tr("Checking the data file…"));
    auto error = std::make_shared<QString>();
    worker_ = QThread::create([request, error] {
        try {
            createProject(request, [](const std::string &) {});
        } catch (const std::exception &failure) {
            *error = QString::fromUtf8(failure.what());
        }
    });
    connect(worker_, &QThread::finished, this, [this, error] {
        worker_->deleteLater();
        worker_ = nullptr;
        onCreated(*error);
    });
    updateCreateButton();
    worker_->start();
}

void NewProjectDialog::onCreated(const QString &error) {
    updateCreateButton();
    if (error.isEmpty()) {
        status_->clear();
        accept();
        return;
    }
    status_->setProperty("error", true);
    status_->setText(error);
    QPalette palette = status_->palette();
    palette.setColor(QPalette::WindowText, QColor(0xc0, 0x1c, 0x28));
    status_->setPalette(palette);
}

} // namespace headroom::ui
