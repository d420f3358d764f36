#include "views/ProfileView.h"

#include "look/DisplayText.h"
#include "plots/PlotStyle.h"
#include "runs/SessionController.h"
#include "views/ProfileTableModel.h"

#include <headroom/config.h>

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMap>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace headroom::ui {

namespace {

enum ModuleColumn { ModuleNameColumn, HeldColumn, ShareColumn, TimeColumn, CallsColumn };

// A module item's numbers sort as numbers (UserRole), not as their text.
class ModuleItem : public QTreeWidgetItem {
public:
    using QTreeWidgetItem::QTreeWidgetItem;
    bool operator<(const QTreeWidgetItem &other) const override {
        const int column = treeWidget() != nullptr ? treeWidget()->sortColumn() : 0;
        const QVariant mine = data(column, Qt::UserRole);
        const QVariant theirs = other.data(column, Qt::UserRole);
        if (mine.isValid() && theirs.isValid()) {
            return mine.toDouble() < theirs.toDouble();
        }
        return QTreeWidgetItem::operator<(other);
    }
};

QString percentText(double part, double whole) {
    return ProfileView::tr("%1 %").arg(
        QLocale().toString(whole > 0 ? 100.0 * part / whole : 0.0, 'f', 1));
}

} // namespace

ProfileView::ProfileView(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("profileView"));
    controller_ = new SessionController(this);

    steps_ = new QSpinBox(this);
    steps_->setObjectName(QStringLiteral("profileSteps"));
    steps_->setRange(1, 1000);
    steps_->setValue(5);
    steps_->setToolTip(
        tr("Optimizer steps to record; one warm-up step before them is not recorded"));
    profile_button_ = new QPushButton(tr("&Profile"), this);
    profile_button_->setObjectName(QStringLiteral("profileButton"));
    profile_button_->setToolTip(
        tr("Trains a few steps of the project's settings and measures every operator; no run "
           "is recorded"));
    stop_button_ = new QPushButton(tr("Stop"), this);
    stop_button_->setObjectName(QStringLiteral("profileStopButton"));
    save_trace_button_ = new QPushButton(tr("Save &Trace…"), this);
    save_trace_button_->setObjectName(QStringLiteral("saveTraceButton"));
    save_trace_button_->setToolTip(
        tr("A Chrome trace of the profiled steps, for chrome://tracing or ui.perfetto.dev"));
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("profileStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Steps:"), this));
    controls->addWidget(steps_);
    controls->addWidget(profile_button_);
    controls->addWidget(stop_button_);
    controls->addWidget(save_trace_button_);
    controls->addWidget(status_, 1);

    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("profileSummary"));
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    operator_model_ = new ProfileTableModel(this);
    operator_proxy_ = new QSortFilterProxyModel(this);
    operator_proxy_->setSourceModel(operator_model_);
    operator_proxy_->setSortRole(ProfileTableModel::kSortRole);
    operator_table_ = new QTableView(this);
    operator_table_->setObjectName(QStringLiteral("operatorTable"));
    operator_table_->setModel(operator_proxy_);
    operator_table_->setSortingEnabled(true);
    operator_table_->sortByColumn(ProfileTableModel::TotalColumn, Qt::DescendingOrder);
    operator_table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    operator_table_->setAlternatingRowColors(true);
    operator_table_->verticalHeader()->hide();
    operator_table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    operator_table_->setWordWrap(false);
    operator_table_->setTextElideMode(Qt::ElideMiddle);
    operator_table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    operator_table_->horizontalHeader()->setSectionResizeMode(ProfileTableModel::NameColumn,
                                                              QHeaderView::Stretch);

    module_tree_ = new QTreeWidget(this);
    module_tree_->setObjectName(QStringLiteral("moduleTree"));
    module_tree_->setHeaderLabels(
        {tr("Module"), tr("Held for backward"), tr("Share"), tr("Time (ms)"), tr("Calls")});
    module_tree_->headerItem()->setToolTip(
        HeldColumn, tr("Bytes allocated inside the module during the largest forward pass and "
                       "still alive when it ended"));
    module_tree_->setSortingEnabled(false); // model order; parents before children
    module_tree_->header()->setStretchLastSection(false);
    module_tree_->setAlternatingRowColors(true);
    fitModuleColumns();

    // Operator names are long ("autograd::engine::evaluate_function: AddmmBackward0"): the
    // table gets the whole width, the module tree sits below it.
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(operator_table_);
    splitter->addWidget(module_tree_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(summary_);
    layout->addWidget(splitter, 1);

    connect(profile_button_, &QPushButton::clicked, this, [this] {
        const QString error = startProfile(steps_->value());
        if (!error.isEmpty()) {
            showStatus(error, true);
        }
    });
    connect(stop_button_, &QPushButton::clicked, this, &ProfileView::stopProfile);
    connect(save_trace_button_, &QPushButton::clicked, this, &ProfileView::chooseTracePath);
    connect(controller_, &SessionController::stateChanged, this,
            [this](SessionState, const QString &message) {
                if (!message.isEmpty()) {
                    showStatus(message);
                }
            });
    connect(controller_, &SessionController::finished, this, &ProfileView::onFinished);
    setReport(nullptr);
}

ProfileView::~ProfileView() = default;

void ProfileView::setProjectPath(const QString &path) {
    project_path_ = path;
    setReport(nullptr);
    showStatus(path.isEmpty() ? QString()
                              : tr("Profile a few training steps of this project's settings."));
}

void ProfileView::setBlocked(bool blocked) {
    blocked_ = blocked;
    updateControls();
}

bool ProfileView::isProfiling() const {
    return controller_->isActive();
}

QString ProfileView::startProfile(int steps) {
    if (project_path_.isEmpty()) {
        return tr("Open or create a project first.");
    }
    if (blocked_) {
        return tr("A run is training this project: profile it when the run has ended.");
    }
    if (controller_->isActive()) {
        return tr("A profile is already running.");
    }
    steps_->setValue(steps);
    SessionRequest request;
    request.project_path = project_path_.toStdString();
    request.profile = ProfileOptions();
    request.profile->steps = steps;
    controller_->start(request);
    updateControls();
    Q_EMIT profilingChanged(true);
    return {};
}

void ProfileView::stopProfile() {
    controller_->stop();
    updateControls();
}

void ProfileView::onFinished(const RunResult &result) {
    QString error;
    if (result.profile) {
        setReport(result.profile);
        showStatus(QString::fromStdString(result.message));
    } else {
        error = QString::fromStdString(result.message);
        showStatus(error, true);
    }
    updateControls();
    Q_EMIT profilingChanged(false);
    Q_EMIT profileFinished(error);
}

void ProfileView::setReport(std::shared_ptr<const ProfileReport> report) {
    report_ = std::move(report);
    operator_model_->setOperators(report_ ? report_->operators : std::vector<OperatorProfile>());
    const bool on_device = report_ && report_->device.rfind("cpu", 0) != 0;
    operator_table_->setColumnHidden(ProfileTableModel::DeviceMemoryColumn, !on_device);
    fillModules();
    summary_->setText(summaryText());
    updateControls();
}

QString ProfileView::summaryText() const {
    if (!report_) {
        return tr("No profile yet. A profile trains the project's settings for a few steps "
                  "(nothing is recorded as a run) and shows where the time and the memory go.");
    }
    const ProfileReport &report = *report_;
    const double step_ms = report.steps > 0 ? report.wall_us / 1000.0 / report.steps : 0.0;
    QString text = tr("Profiled steps: %1 (after %2 of warm-up) on %3 · %4 ms per step · "
                      "micro-batch %5 × %6")
                       .arg(report.steps)
                       .arg(report.warmup_steps)
                       .arg(QString::fromStdString(report.device))
                       .arg(QLocale().toString(step_ms, 'f', 1))
                       .arg(report.micro_batch)
                       .arg(report.accumulation);
    text += QLatin1Char('\n') +
            tr("Held for backward: %1 at the end of the largest forward pass (of %2)")
                .arg(DisplayText::bytes(report.activation_bytes))
                .arg(report.forward_passes);
    if (report.measured_activation_bytes > 0) {
        text += tr(" (the trainer measured %1 of activations in its first step)")
                    .arg(DisplayText::bytes(report.measured_activation_bytes));
    }
    return text;
}

QString ProfileView::statusText() const {
    return status_->text();
}

void ProfileView::fillModules() {
    module_tree_->clear();
    if (!report_) {
        return;
    }
    QMap<QString, QTreeWidgetItem *> items;
    const double total = static_cast<double>(report_->activation_bytes);
    for (const ModuleProfile &module : report_->modules) {
        const QString name = QString::fromStdString(module.name);
        const QString parent_name = QString::fromStdString(module.parent);
        QTreeWidgetItem *parent = items.value(parent_name, nullptr);
        auto *item = parent != nullptr ? new ModuleItem(parent) : new ModuleItem(module_tree_);
        const QString label = parent != nullptr ? name.mid(parent_name.size() + 1) : name;
        item->setText(ModuleNameColumn, label);
        item->setToolTip(ModuleNameColumn, name);
        item->setText(HeldColumn, DisplayText::bytes(module.activation_bytes));
        item->setData(HeldColumn, Qt::UserRole, static_cast<double>(module.activation_bytes));
        item->setText(ShareColumn,
                      percentText(static_cast<double>(module.activation_bytes), total));
        item->setData(ShareColumn, Qt::UserRole, static_cast<double>(module.activation_bytes));
        if (module.calls > 0) {
            item->setText(TimeColumn, QLocale().toString(module.time_us / 1000.0, 'f', 2));
            item->setData(TimeColumn, Qt::UserRole, module.time_us);
            item->setText(CallsColumn, QLocale().toString(static_cast<qlonglong>(module.calls)));
            item->setData(CallsColumn, Qt::UserRole, static_cast<double>(module.calls));
        }
        for (int column = HeldColumn; column <= CallsColumn; ++column) {
            item->setTextAlignment(column, Qt::AlignRight | Qt::AlignVCenter);
        }
        items.insert(name, item);
    }
    module_tree_->expandAll();
    fitModuleColumns();
}

// Wide enough for the values and for the headers ("Held for backward") before any profile.
void ProfileView::fitModuleColumns() {
    for (int column = 0; column <= CallsColumn; ++column) {
        module_tree_->resizeColumnToContents(column);
    }
}

QString ProfileView::saveTrace(const QString &path) {
    if (!report_) {
        return tr("Profile first: there is no trace yet.");
    }
    try {
        writeChromeTrace(*report_, path.toStdString());
    } catch (const std::exception &error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

void ProfileView::chooseTracePath() {
    const QString suggested = project_path_.isEmpty()
                                  ? QStringLiteral("trace.json")
                                  : QFileInfo(project_path_).absolutePath() + QLatin1Char('/') +
                                        QFileInfo(project_path_).completeBaseName() +
                                        QStringLiteral("-trace.json");
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Trace"), suggested,
                                                      tr("Chrome trace (*.json)"));
    if (path.isEmpty()) {
        return;
    }
    const QString error = saveTrace(path);
    if (!error.isEmpty()) {
        QMessageBox::warning(this, tr("Save Trace"), error);
        return;
    }
    showStatus(tr("Trace saved to %1: open it in chrome://tracing or ui.perfetto.dev.")
                   .arg(DisplayText::breakablePaths(path)));
}

void ProfileView::updateControls() {
    const bool profiling = controller_->isActive();
    profile_button_->setEnabled(!project_path_.isEmpty() && !blocked_ && !profiling);
    steps_->setEnabled(!profiling);
    stop_button_->setEnabled(profiling && !controller_->isStopRequested());
    save_trace_button_->setEnabled(report_ != nullptr && !profiling);
}

void ProfileView::showStatus(const QString &text, bool error) {
    status_->setText(text);
    QPalette palette = status_->palette();
    palette.setColor(QPalette::WindowText, error ? plots::plotColors(this->palette()).budget
                                                 : this->palette().color(QPalette::WindowText));
    status_->setPalette(palette);
}

} // namespace headroom::ui
