#include "ProjectView.h"

#include <headroom/config.h>
#include <headroom/project.h>
#include <headroom/units.h>

#include <QDir>
#include <QFileInfo>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace headroom::ui {

namespace {

QTableWidget *makeTable(const QStringList &headers, QWidget *parent) {
    auto *table = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    table->setHorizontalHeaderLabels(headers);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->verticalHeader()->setVisible(false);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    return table;
}

QString lossText(const std::optional<double> &loss) {
    return loss ? QString::number(*loss, 'f', 4) : QStringLiteral("–");
}

QString statusText(RunStatus status) {
    switch (status) {
    case RunStatus::Running:
        return ProjectView::tr("running");
    case RunStatus::Paused:
        return ProjectView::tr("paused");
    case RunStatus::Finished:
        return ProjectView::tr("finished");
    case RunStatus::Stopped:
        return ProjectView::tr("stopped");
    case RunStatus::Failed:
        return ProjectView::tr("failed");
    case RunStatus::Interrupted:
        return ProjectView::tr("interrupted");
    }
    return {};
}

} // namespace

ProjectView::ProjectView(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("projectView"));
    title_ = new QLabel(this);
    QFont title_font = title_->font();
    title_font.setPointSizeF(title_font.pointSizeF() * 1.4);
    title_font.setBold(true);
    title_->setFont(title_font);
    subtitle_ = new QLabel(this);
    subtitle_->setForegroundRole(QPalette::PlaceholderText);
    subtitle_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    settings_ = makeTable({tr("Setting"), tr("Value")}, this);
    settings_->setObjectName(QStringLiteral("settingsTable"));
    runs_ = makeTable({tr("Run"), tr("Status"), tr("Steps"), tr("Loss"), tr("Val. loss"),
                       tr("Peak memory"), tr("OOM recoveries"), tr("Device"), tr("Started")},
                      this);
    runs_->setObjectName(QStringLiteral("runsTable"));

    auto *settings_box = new QGroupBox(tr("Settings"), this);
    auto *settings_layout = new QVBoxLayout(settings_box);
    settings_layout->addWidget(settings_);
    auto *runs_box = new QGroupBox(tr("Runs"), this);
    auto *runs_layout = new QVBoxLayout(runs_box);
    runs_layout->addWidget(runs_);
    no_runs_hint_ = new QLabel(runs_box);
    no_runs_hint_->setObjectName(QStringLiteral("noRunsHint"));
    no_runs_hint_->setWordWrap(true);
    no_runs_hint_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    runs_layout->addWidget(no_runs_hint_);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(settings_box);
    splitter->addWidget(runs_box);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addWidget(subtitle_);
    layout->addWidget(splitter, 1);
}

QString ProjectView::load(const QString &project_path) {
    std::vector<RunRecord> runs;
    Config config;
    try {
        const Project project = Project::open(project_path.toStdString());
        config = Config::fromJson(project.configJson());
        runs = project.runs();
    } catch (const std::exception &error) {
        return QString::fromUtf8(error.what());
    }
    project_path_ = project_path;
    const QFileInfo info(project_path);
    title_->setText(info.completeBaseName());
    subtitle_->setText(tr("%1 · recipe %2 · data %3")
                           .arg(QDir::toNativeSeparators(info.absoluteFilePath()),
                                QString::fromStdString(config.text("recipe")),
                                QString::fromStdString(config.text("data.path"))));

    settings_->setRowCount(0);
    for (const KeySpec &spec : configKeys()) {
        const int row = settings_->rowCount();
        settings_->insertRow(row);
        auto *key = new QTableWidgetItem(QString::fromStdString(spec.name));
        key->setToolTip(QString::fromStdString(spec.description));
        auto *value = new QTableWidgetItem(QString::fromStdString(config.text(spec.name)));
        if (config.text(spec.name) != spec.default_value) {
            QFont bold = value->font();
            bold.setBold(true);
            value->setFont(bold);
        }
        settings_->setItem(row, 0, key);
        settings_->setItem(row, 1, value);
    }
    settings_->resizeColumnToContents(0);

    runs_->setRowCount(0);
    for (auto run = runs.rbegin(); run != runs.rend(); ++run) {
        const int row = runs_->rowCount();
        runs_->insertRow(row);
        const QStringList cells = {
            QString::number(run->id),
            statusText(run->status),
            QStringLiteral("%1 / %2").arg(run->last_step).arg(run->target_steps),
            lossText(run->final_loss),
            lossText(run->final_val_loss),
            QString::fromStdString(formatBytes(run->peak_bytes)),
            QString::number(run->oom_recoveries),
            QString::fromStdString(run->device),
            QString::fromStdString(run->started_at)};
        for (int column = 0; column < cells.size(); ++column) {
            auto *item = new QTableWidgetItem(cells.at(column));
            item->setToolTip(QString::fromStdString(run->message));
            runs_->setItem(row, column, item);
        }
    }
    runs_->resizeColumnsToContents();
    no_runs_hint_->setVisible(runs.empty());
    no_runs_hint_->setText(tr("No runs yet. Train this project from a terminal with\n"
                              "headroom-cli train \"%1\"")
                               .arg(QDir::toNativeSeparators(info.absoluteFilePath())));
    return {};
}

void ProjectView::reload() {
    if (!project_path_.isEmpty()) {
        load(project_path_);
    }
}

int ProjectView::runCount() const {
    return runs_->rowCount();
}

} // namespace headroom::ui
