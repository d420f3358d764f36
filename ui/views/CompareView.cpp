#include "views/CompareView.h"

#include "look/DisplayText.h"
#include "plots/PlotStyle.h"
#include "plots/PlotWidget.h"
#include "views/RunsPanel.h"

#include <headroom/config.h>

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

namespace headroom::ui {

namespace {
constexpr int kRunIdRole = Qt::UserRole + 1;
constexpr int kDiffersRole = Qt::UserRole + 2;
constexpr double kMiB = 1024.0 * 1024.0;

QString optionalLoss(const std::optional<double> &loss) {
    return loss ? QString::number(*loss, 'f', 4) : QStringLiteral("–");
}

double mean(const QVector<double> &values) {
    double sum = 0;
    for (const double value : values) {
        sum += value;
    }
    return values.isEmpty() ? 0 : sum / double(values.size());
}
} // namespace

CompareView::CompareView(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("compareView"));
    run_list_ = new QListWidget(this);
    run_list_->setObjectName(QStringLiteral("compareRuns"));
    run_list_->setAccessibleName(tr("Runs to compare"));
    auto *list_label = new QLabel(tr("R&uns to compare:"), this);
    list_label->setBuddy(run_list_);
    only_differences_ = new QCheckBox(tr("Only &differences"), this);
    only_differences_->setObjectName(QStringLiteral("onlyDifferences"));

    loss_ = new plots::PlotWidget(tr("Loss"), this);
    loss_->xAxis->setLabel(tr("step"));
    loss_->yAxis->setLabel(tr("loss"));
    memory_ = new plots::PlotWidget(tr("Peak memory"), this);
    memory_->xAxis->setLabel(tr("step"));
    memory_->yAxis->setLabel(tr("MiB"));

    table_ = new QTableWidget(this);
    table_->setObjectName(QStringLiteral("compareTable"));
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->setVisible(false);
    table_->setWordWrap(false);

    auto *left = new QWidget(this);
    auto *left_layout = new QVBoxLayout(left);
    left_layout->setContentsMargins(0, 0, 0, 0);
    left_layout->addWidget(list_label);
    left_layout->addWidget(run_list_, 1);
    left_layout->addWidget(only_differences_);

    auto *plots_row = new QSplitter(Qt::Horizontal, this);
    plots_row->addWidget(loss_);
    plots_row->addWidget(memory_);
    auto *right = new QSplitter(Qt::Vertical, this);
    right->addWidget(plots_row);
    right->addWidget(table_);
    right->setStretchFactor(0, 1);
    right->setStretchFactor(1, 1);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(left);
    splitter->addWidget(right);
    splitter->setStretchFactor(1, 4);
    splitter->setSizes({200, 800});
    auto *layout = new QHBoxLayout(this);
    layout->addWidget(splitter);

    connect(run_list_, &QListWidget::itemChanged, this, &CompareView::refresh);
    connect(only_differences_, &QCheckBox::toggled, this, &CompareView::refresh);
}

void CompareView::setRuns(const QString &project_path, const std::vector<RunRecord> &runs) {
    QList<std::int64_t> selected =
        project_path == project_path_ ? selectedRuns() : QList<std::int64_t>{};
    if (project_path != project_path_) {
        // A project opens with its two newest runs compared.
        for (auto run = runs.rbegin(); run != runs.rend() && selected.size() < 2; ++run) {
            selected << run->id;
        }
    }
    project_path_ = project_path;
    runs_ = runs;
    cache_.clear();
    const QSignalBlocker blocker(run_list_);
    run_list_->clear();
    for (const RunRecord &run : runs_) {
        auto *item = new QListWidgetItem(tr("Run %1 · %2 steps · %3")
                                             .arg(run.id)
                                             .arg(run.last_step)
                                             .arg(QString::fromStdString(toString(run.status))),
                                         run_list_);
        item->setData(kRunIdRole, qint64(run.id));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(selected.contains(run.id) ? Qt::Checked : Qt::Unchecked);
    }
    refresh();
}

void CompareView::setSelectedRuns(const QList<std::int64_t> &run_ids) {
    {
        const QSignalBlocker blocker(run_list_);
        for (int row = 0; row < run_list_->count(); ++row) {
            QListWidgetItem *item = run_list_->item(row);
            item->setCheckState(run_ids.contains(item->data(kRunIdRole).toLongLong())
                                    ? Qt::Checked
                                    : Qt::Unchecked);
        }
    }
    refresh();
}

QList<std::int64_t> CompareView::selectedRuns() const {
    QList<std::int64_t> ids;
    for (int row = 0; row < run_list_->count(); ++row) {
        if (run_list_->item(row)->checkState() == Qt::Checked) {
            ids << run_list_->item(row)->data(kRunIdRole).toLongLong();
        }
    }
    return ids;
}

const RunSeries *CompareView::series(std::int64_t run_id) {
    auto found = cache_.find(run_id);
    if (found == cache_.end()) {
        try {
            const Project project = Project::openForReading(project_path_.toStdString());
            found = cache_.insert(run_id, loadRunSeries(project, run_id));
        } catch (const std::exception &) {
            return nullptr; // the table still shows the run record
        }
    }
    return &found.value();
}

void CompareView::refresh() {
    const QList<std::int64_t> ids = selectedRuns();
    loss_->clearGraphs();
    memory_->clearGraphs();
    std::vector<const RunRecord *> chosen;
    int index = 0;
    for (const RunRecord &run : runs_) {
        if (!ids.contains(run.id)) {
            continue;
        }
        chosen.push_back(&run);
        const QColor color = plots::seriesColor(index++, palette());
        const RunSeries *data = series(run.id);
        if (data == nullptr) {
            continue;
        }
        QCPGraph *loss = loss_->addGraph();
        loss->setName(tr("run %1").arg(run.id));
        loss->setPen(QPen(color, 1));
        loss->setAdaptiveSampling(true);
        loss->setData(data->steps, data->loss, true);
        QVector<double> mib;
        mib.reserve(data->mem_peak.size());
        for (double bytes : data->mem_peak) {
            mib.push_back(bytes / kMiB);
        }
        QCPGraph *memory = memory_->addGraph();
        memory->setName(tr("run %1").arg(run.id));
        memory->setPen(QPen(color, 1));
        memory->setAdaptiveSampling(true);
        memory->setData(data->steps, mib, true);
    }
    loss_->legend->setVisible(loss_->graphCount() > 0);
    memory_->legend->setVisible(memory_->graphCount() > 0);
    loss_->scheduleReplot();
    memory_->scheduleReplot();
    fillTable(chosen);
}

void CompareView::fillTable(const std::vector<const RunRecord *> &runs) {
    struct Row {
        QString key;
        QStringList values;
    };
    std::vector<Row> rows = {{tr("status"), {}},          {tr("steps"), {}},
                             {tr("final loss"), {}},      {tr("final validation loss"), {}},
                             {tr("validation"), {}},      {tr("peak memory"), {}},
                             {tr("mean throughput"), {}}, {tr("OOM back-offs"), {}},
                             {tr("ran on"), {}}};
    std::vector<Config> configs;
    for (const RunRecord *run : runs) {
        const RunSeries *data = series(run->id);
        rows[0].values << QString::fromStdString(toString(run->status));
        rows[1].values << QStringLiteral("%1 / %2").arg(run->last_step).arg(run->target_steps);
        rows[2].values << optionalLoss(run->final_loss);
        rows[3].values << optionalLoss(run->final_val_loss);
        rows[4].values << validationFigures(*run);
        rows[5].values << DisplayText::bytes(run->peak_bytes);
        rows[6].values << (data && !data->throughput.isEmpty()
                               ? (data->throughput_in_tokens ? tr("%1 tokens/s")
                                                             : tr("%1 samples/s"))
                                     .arg(data->meanThroughput(), 0, 'f', 0)
                               : QStringLiteral("–"));
        rows[7].values << QString::number(run->oom_recoveries);
        rows[8].values << QString::fromStdString(run->device);
        try {
            configs.push_back(Config::fromJson(run->config_json));
        } catch (const std::exception &) {
            configs.emplace_back(); // an unreadable snapshot compares as defaults
        }
    }
    // Routing figures, when a run has MoE blocks: means over its steps.
    const bool any_moe = std::any_of(runs.begin(), runs.end(), [this](const RunRecord *run) {
        const RunSeries *data = series(run->id);
        return data != nullptr && data->hasMoe();
    });
    if (any_moe) {
        Row balancing{tr("mean balancing loss"), {}};
        Row z_loss{tr("mean router z-loss"), {}};
        Row dropped{tr("mean dropped tokens"), {}};
        for (const RunRecord *run : runs) {
            const RunSeries *data = series(run->id);
            const bool has = data != nullptr && data->hasMoe();
            balancing.values << (has ? QString::number(mean(data->moe_aux_loss), 'f', 4)
                                     : QStringLiteral("–"));
            z_loss.values << (has ? QString::number(mean(data->moe_z_loss), 'f', 4)
                                  : QStringLiteral("–"));
            dropped.values << (has ? QStringLiteral("%1 %").arg(100 * mean(data->moe_dropped), 0,
                                                                'f', 1)
                                   : QStringLiteral("–"));
        }
        rows.push_back(balancing);
        rows.push_back(z_loss);
        rows.push_back(dropped);
    }
    // Preference objectives: where the rewards ended (the last step's figures).
    const bool any_preference = std::any_of(runs.begin(), runs.end(), [this](const RunRecord *run) {
        const RunSeries *data = series(run->id);
        return data != nullptr && data->hasPreference();
    });
    if (any_preference) {
        Row margin{tr("final reward margin"), {}};
        Row accuracy{tr("final reward accuracy"), {}};
        for (const RunRecord *run : runs) {
            const RunSeries *data = series(run->id);
            const bool has = data != nullptr && data->hasPreference();
            margin.values << (has ? QString::number(data->reward_margin.last(), 'f', 4)
                                  : QStringLiteral("–"));
            accuracy.values << (has ? QStringLiteral("%1 %").arg(100 * data->reward_accuracy.last(),
                                                                 0, 'f', 1)
                                    : QStringLiteral("–"));
        }
        rows.push_back(margin);
        rows.push_back(accuracy);
    }
    for (const KeySpec &spec : configKeys()) {
        Row row{QString::fromStdString(spec.name), {}};
        for (const Config &config : configs) {
            row.values << QString::fromStdString(config.text(spec.name));
        }
        rows.push_back(row);
    }

    table_->clear();
    table_->setColumnCount(int(runs.size()) + 1);
    QStringList headers{tr("Setting")};
    for (const RunRecord *run : runs) {
        headers << tr("Run %1").arg(run->id);
    }
    table_->setHorizontalHeaderLabels(headers);
    table_->setRowCount(int(rows.size()));
    const QColor highlight =
        plots::seriesColor(1, palette()).lighter(plots::isDarkPalette(palette()) ? 60 : 180);
    int visible_row = 0;
    for (const Row &row : rows) {
        const std::set<QString> distinct(row.values.begin(), row.values.end());
        const bool differs = distinct.size() > 1;
        if (only_differences_->isChecked() && !differs) {
            continue;
        }
        QStringList cells = QStringList{row.key} + row.values;
        for (int column = 0; column < cells.size(); ++column) {
            auto *item = new QTableWidgetItem(cells.at(column));
            item->setData(kDiffersRole, differs);
            item->setToolTip(cells.at(column));
            if (differs) {
                item->setBackground(highlight);
                item->setForeground(plots::isDarkPalette(palette()) ? Qt::white : Qt::black);
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
            }
            table_->setItem(visible_row, column, item);
        }
        ++visible_row;
    }
    table_->setRowCount(visible_row);
    table_->resizeColumnsToContents();
    constexpr int kMaxValueWidth = 200; // long paths are elided; the tooltip has them
    for (int column = 1; column < table_->columnCount(); ++column) {
        table_->setColumnWidth(column, std::min(table_->columnWidth(column), kMaxValueWidth));
    }
}

QStringList CompareView::tableKeys() const {
    QStringList keys;
    for (int row = 0; row < table_->rowCount(); ++row) {
        keys << table_->item(row, 0)->text();
    }
    return keys;
}

QStringList CompareView::rowValues(const QString &key) const {
    for (int row = 0; row < table_->rowCount(); ++row) {
        if (table_->item(row, 0)->text() == key) {
            QStringList values;
            for (int column = 1; column < table_->columnCount(); ++column) {
                values << table_->item(row, column)->text();
            }
            return values;
        }
    }
    return {};
}

bool CompareView::isHighlighted(const QString &key) const {
    for (int row = 0; row < table_->rowCount(); ++row) {
        if (table_->item(row, 0)->text() == key) {
            return table_->item(row, 0)->data(kDiffersRole).toBool();
        }
    }
    return false;
}

int CompareView::overlaidCurveCount() const {
    return loss_->graphCount() + memory_->graphCount();
}

} // namespace headroom::ui
