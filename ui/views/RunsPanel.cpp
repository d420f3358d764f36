#include "views/RunsPanel.h"

#include "look/DisplayText.h"

#include <headroom/config.h>
#include <headroom/workflow.h>

#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

namespace headroom::ui {

namespace {
constexpr int kRunIdRole = Qt::UserRole + 1;

QString lossText(const std::optional<double> &loss) {
    return loss ? QString::number(*loss, 'f', 4) : QStringLiteral("–");
}
} // namespace

QString validationFigures(const RunRecord &run) {
    const nlohmann::json summary = nlohmann::json::parse(run.summary_json, nullptr, false);
    if (!summary.is_object()) {
        return QStringLiteral("–");
    }
    QString text;
    // A preference objective's validation accuracy is the share of pairs its rewards rank right.
    const nlohmann::json config = nlohmann::json::parse(run.config_json, nullptr, false);
    const bool preference = config.is_object() && config.value("train.objective", "sft") != "sft";
    if (summary.contains("val_reward")) {
        text = RunsPanel::tr("mean reward %1").arg(summary.value("val_reward", 0.0), 0, 'g', 4);
    } else if (summary.contains("val_accuracy")) {
        text = (preference ? RunsPanel::tr("reward accuracy %1 %") : RunsPanel::tr("accuracy %1 %"))
                   .arg(100.0 * summary.value("val_accuracy", 0.0), 0, 'f', 1);
    } else if (summary.contains("val_rmse")) {
        text = RunsPanel::tr("RMSE %1").arg(summary.value("val_rmse", 0.0), 0, 'g', 4);
        if (summary.contains("val_r2")) {
            text += RunsPanel::tr(" · R² %1").arg(summary.value("val_r2", 0.0), 0, 'f', 3);
        }
    } else if (summary.contains("val_mrr_at_10")) {
        text = RunsPanel::tr("MRR@10 %1 · Recall@100 %2")
                   .arg(summary.value("val_mrr_at_10", 0.0), 0, 'f', 3)
                   .arg(summary.value("val_recall_at_100", 0.0), 0, 'f', 3);
    } else {
        return QStringLiteral("–");
    }
    if (summary.contains("best_step")) {
        text += RunsPanel::tr(" (best: step %1)").arg(summary.value("best_step", std::int64_t{0}));
    }
    return text;
}

QString runStatusText(RunStatus status) {
    switch (status) {
    case RunStatus::Running:
        return RunsPanel::tr("running");
    case RunStatus::Paused:
        return RunsPanel::tr("paused");
    case RunStatus::Finished:
        return RunsPanel::tr("finished");
    case RunStatus::Stopped:
        return RunsPanel::tr("stopped");
    case RunStatus::Failed:
        return RunsPanel::tr("failed");
    case RunStatus::Interrupted:
        return RunsPanel::tr("interrupted");
    }
    return {};
}

RunsPanel::RunsPanel(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("runsPanel"));
    title_ = new QLabel(this);
    QFont title_font = title_->font();
    title_font.setPointSizeF(title_font.pointSizeF() * 1.3);
    title_font.setBold(true);
    title_->setFont(title_font);
    subtitle_ = new QLabel(this);
    subtitle_->setForegroundRole(QPalette::PlaceholderText);
    subtitle_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    subtitle_->setWordWrap(true);

    table_ = new QTableWidget(0, 10, this);
    table_->setObjectName(QStringLiteral("runsTable"));
    table_->setHorizontalHeaderLabels({tr("Run"), tr("Status"), tr("Steps"), tr("Loss"),
                                       tr("Val. loss"), tr("Validation"), tr("Peak memory"),
                                       tr("OOM recoveries"), tr("Device"), tr("Techniques")});
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->setVisible(false);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    table_->setAccessibleName(tr("Runs"));
    table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);

    no_runs_hint_ = new QLabel(this);
    no_runs_hint_->setObjectName(QStringLiteral("noRunsHint"));
    no_runs_hint_->setWordWrap(true);
    no_runs_hint_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addWidget(subtitle_);
    layout->addWidget(table_, 1);
    layout->addWidget(no_runs_hint_);

    connect(table_, &QTableWidget::itemSelectionChanged, this, [this] {
        if (const std::int64_t id = selectedRunId(); id != 0) {
            Q_EMIT runSelected(id);
        }
    });
}

QString RunsPanel::load(const QString &project_path) {
    std::vector<RunRecord> runs;
    Config config;
    try {
        const Project project = Project::openForReading(project_path.toStdString());
        config = Config::fromJson(project.configJson());
        runs = project.runs();
    } catch (const std::exception &error) {
        return QString::fromUtf8(error.what());
    }
    const std::int64_t selected = project_path == project_path_ ? selectedRunId() : 0;
    project_path_ = project_path;
    runs_ = runs;
    const QFileInfo info(project_path);
    title_->setText(info.completeBaseName());
    const QString data = QFileInfo(QString::fromStdString(config.text("data.path"))).fileName();
    const QString base = QString::fromStdString(config.text("model.base"));
    const std::string &objective = config.text("train.objective");
    subtitle_->setText(
        base.isEmpty()
            ? tr("recipe %1 · data %2").arg(QString::fromStdString(config.text("recipe")), data)
        : objective == "grpo" ? tr("pretrained %1 · GRPO on sampled completions · data %2")
                                    .arg(QFileInfo(base).fileName(), data)
        : objective != "sft" ? tr("pretrained %1 · %2 on preference pairs · data %3")
                                   .arg(QFileInfo(base).fileName(),
                                        QString::fromStdString(objective).toUpper(), data)
                             : tr("pretrained %1 · data %2").arg(QFileInfo(base).fileName(), data));
    subtitle_->setToolTip(QDir::toNativeSeparators(info.absoluteFilePath()) + QLatin1Char('\n') +
                          QString::fromStdString(config.text("data.path")) +
                          (base.isEmpty() ? QString() : QLatin1Char('\n') + base));

    const QSignalBlocker blocker(table_);
    table_->setRowCount(0);
    for (auto run = runs.rbegin(); run != runs.rend(); ++run) {
        const int row = table_->rowCount();
        table_->insertRow(row);
        const QStringList cells = {
            QString::number(run->id),
            runStatusText(run->status),
            QStringLiteral("%1 / %2").arg(run->last_step).arg(run->target_steps),
            lossText(run->final_loss),
            lossText(run->final_val_loss),
            validationFigures(*run),
            DisplayText::bytes(run->peak_bytes),
            QString::number(run->oom_recoveries),
            QString::fromStdString(run->device),
            QString::fromStdString(describeTechniques(*run))};
        const QString tooltip =
            tr("Started %1").arg(QString::fromStdString(run->started_at)) +
            (run->message.empty() ? QString()
                                  : QStringLiteral("\n") + QString::fromStdString(run->message));
        for (int column = 0; column < cells.size(); ++column) {
            auto *item = new QTableWidgetItem(cells.at(column));
            item->setToolTip(tooltip);
            item->setData(kRunIdRole, qint64(run->id));
            table_->setItem(row, column, item);
        }
    }
    table_->resizeColumnsToContents();
    if (selected != 0) {
        selectRun(selected);
    }
    no_runs_hint_->setVisible(runs.empty());
    no_runs_hint_->setText(tr("No runs yet. Press Start (F5), or train from a terminal with\n"
                              "headroom-cli train \"%1\"")
                               .arg(QDir::toNativeSeparators(info.absoluteFilePath())));
    return {};
}

QString RunsPanel::reload() {
    return project_path_.isEmpty() ? QString() : load(project_path_);
}

std::int64_t RunsPanel::selectedRunId() const {
    const QList<QTableWidgetItem *> items = table_->selectedItems();
    return items.isEmpty() ? 0 : items.first()->data(kRunIdRole).toLongLong();
}

void RunsPanel::showLiveProgress(std::int64_t run_id, std::int64_t step, std::int64_t target_steps,
                                 double loss, std::uint64_t peak_bytes, std::int64_t recoveries) {
    for (int row = 0; row < table_->rowCount(); ++row) {
        if (table_->item(row, 0)->data(kRunIdRole).toLongLong() != run_id) {
            continue;
        }
        table_->item(row, 2)->setText(QStringLiteral("%1 / %2").arg(step).arg(target_steps));
        table_->item(row, 3)->setText(QString::number(loss, 'f', 4));
        table_->item(row, 5)->setText(DisplayText::bytes(peak_bytes));
        table_->item(row, 6)->setText(QString::number(recoveries));
        for (int column : {2, 3, 5}) {
            table_->resizeColumnToContents(column);
        }
        return;
    }
}

void RunsPanel::selectRun(std::int64_t run_id) {
    for (int row = 0; row < table_->rowCount(); ++row) {
        if (table_->item(row, 0)->data(kRunIdRole).toLongLong() == run_id) {
            table_->selectRow(row);
            return;
        }
    }
}

} // namespace headroom::ui
