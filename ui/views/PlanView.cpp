#include "views/PlanView.h"

#include "look/ConfigKeyTexts.h"
#include "look/DisplayText.h"
#include "plots/PlotStyle.h"
#include "wizard/MemoryBarsWidget.h"
#include "wizard/PlanChoiceTable.h"

#include <headroom/plan.h>
#include <headroom/project.h>

#include <QComboBox>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace headroom::ui {

namespace {
enum Column { KeyColumn, ValueColumn, DescriptionColumn };

// Choice and boolean keys are edited with a combo box of the accepted values.
class ValueDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &option,
                          const QModelIndex &index) const override {
        const KeySpec *spec =
            findConfigKey(index.siblingAtColumn(KeyColumn).data().toString().toStdString());
        if (spec && (spec->type == KeyType::Choice || spec->type == KeyType::Boolean)) {
            auto *combo = new QComboBox(parent);
            if (spec->type == KeyType::Boolean) {
                combo->addItems({QStringLiteral("true"), QStringLiteral("false")});
            }
            for (const std::string &choice : spec->choices) {
                combo->addItem(QString::fromStdString(choice));
            }
            return combo;
        }
        return QStyledItemDelegate::createEditor(parent, option, index);
    }
    void setEditorData(QWidget *editor, const QModelIndex &index) const override {
        if (auto *combo = qobject_cast<QComboBox *>(editor)) {
            combo->setCurrentText(index.data().toString());
            return;
        }
        QStyledItemDelegate::setEditorData(editor, index);
    }
    void setModelData(QWidget *editor, QAbstractItemModel *model,
                      const QModelIndex &index) const override {
        if (auto *combo = qobject_cast<QComboBox *>(editor)) {
            model->setData(index, combo->currentText());
            return;
        }
        QStyledItemDelegate::setModelData(editor, model, index);
    }
};
} // namespace

PlanView::PlanView(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("planView"));
    auto *plan_box = new QGroupBox(tr("Memory plan"), this);
    bars_ = new MemoryBarsWidget(plan_box);
    verdict_ = new QLabel(plan_box);
    verdict_->setObjectName(QStringLiteral("planVerdict"));
    verdict_->setWordWrap(true);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    recommendation_ = new QLabel(plan_box);
    recommendation_->setObjectName(QStringLiteral("planRecommendation"));
    recommendation_->setWordWrap(true);
    recommendation_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *plan_layout = new QVBoxLayout(plan_box);
    plan_layout->addWidget(bars_);
    plan_layout->addWidget(verdict_);
    plan_layout->addWidget(recommendation_);

    message_ = new QLabel(this);
    message_->setObjectName(QStringLiteral("settingsMessage"));
    message_->setWordWrap(true);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    table_ = new QTableWidget(0, 3, this);
    table_->setObjectName(QStringLiteral("settingsTable"));
    table_->setHorizontalHeaderLabels({tr("Setting"), tr("Value"), tr("Meaning")});
    table_->verticalHeader()->setVisible(false);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    table_->setItemDelegateForColumn(ValueColumn, new ValueDelegate(table_));
    table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                            QAbstractItemView::AnyKeyPressed);
    table_->setAccessibleName(tr("Project settings"));
    table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);

    auto *settings_box = new QGroupBox(tr("Settings (double-click a value to change it)"), this);
    auto *settings_layout = new QVBoxLayout(settings_box);
    settings_layout->addWidget(message_);
    settings_layout->addWidget(table_);

    // The planner's whole table and the model changes it prices, beside the settings.
    choices_ = new PlanChoiceTable(PlanChoiceTable::Kind::Techniques, this);
    model_changes_ = new PlanChoiceTable(PlanChoiceTable::Kind::ModelChanges, this);
    tabs_ = new QTabWidget(this);
    tabs_->setObjectName(QStringLiteral("planViewTabs"));
    tabs_->addTab(settings_box, tr("Settings"));
    tabs_->addTab(choices_, tr("Compare plans"));
    tabs_->addTab(model_changes_, tr("Model changes"));

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(plan_box);
    layout->addWidget(tabs_, 1);
    connect(table_, &QTableWidget::itemChanged, this, &PlanView::onItemChanged);
    connect(choices_, &PlanChoiceTable::chosen, this, &PlanView::useAssignments);
    connect(model_changes_, &PlanChoiceTable::chosen, this, &PlanView::useAssignments);
}

QString PlanView::load(const QString &project_path) {
    try {
        const Project project = Project::openForReading(project_path.toStdString());
        config_ = Config::fromJson(project.configJson());
    } catch (const std::exception &error) {
        return QString::fromUtf8(error.what());
    }
    project_path_ = project_path;
    filling_ = true;
    table_->setRowCount(0);
    for (const KeySpec &spec : configKeys()) {
        const int row = table_->rowCount();
        table_->insertRow(row);
        auto *key = new QTableWidgetItem(QString::fromStdString(spec.name));
        key->setFlags(key->flags() & ~Qt::ItemIsEditable);
        auto *description = new QTableWidgetItem(translatedDescription(spec));
        description->setFlags(description->flags() & ~Qt::ItemIsEditable);
        description->setToolTip(translatedDescription(spec));
        table_->setItem(row, KeyColumn, key);
        table_->setItem(row, ValueColumn, new QTableWidgetItem);
        table_->setItem(row, DescriptionColumn, description);
        showValue(row);
    }
    table_->resizeColumnToContents(KeyColumn);
    table_->setColumnWidth(ValueColumn, 140);
    filling_ = false;
    showMessage({}, false);
    refreshPlan();
    return {};
}

void PlanView::showValue(int row) {
    const bool was_filling = filling_;
    filling_ = true;
    const std::string key = table_->item(row, KeyColumn)->text().toStdString();
    QTableWidgetItem *value = table_->item(row, ValueColumn);
    value->setText(QString::fromStdString(config_.text(key)));
    const KeySpec *spec = findConfigKey(key);
    QFont font = value->font();
    font.setBold(spec && config_.text(key) != spec->default_value);
    value->setFont(font);
    value->setToolTip(spec ? tr("Default: %1").arg(QString::fromStdString(spec->default_value))
                           : QString());
    Qt::ItemFlags flags = value->flags();
    value->setFlags(editable_ ? flags | Qt::ItemIsEditable : flags & ~Qt::ItemIsEditable);
    filling_ = was_filling;
}

QString PlanView::setValue(const QString &key, const QString &value) {
    return setValues({key + QLatin1Char('=') + value.trimmed()});
}

QString PlanView::setValues(const QStringList &assignments) {
    Config changed = config_;
    try {
        for (const QString &assignment : assignments) {
            changed.setAssignment(assignment.toStdString());
        }
        changed.validate();
        Project project = Project::open(project_path_.toStdString());
        project.setConfigJson(changed.toJson(2));
    } catch (const std::exception &error) {
        return QString::fromUtf8(error.what());
    }
    config_ = changed;
    refreshPlan();
    return {};
}

// The planner's numbers for the saved config: they read the project (its tokenizer or schema
// and memory history) in well under a millisecond, so this runs on the UI thread.
void PlanView::refreshPlan() {
    PlanRequest request;
    request.project_path = project_path_.toStdString();
    try {
        const MemoryEstimate estimate = estimateMemory(request);
        bars_->setEstimate(estimate);
        DisplayText::showVerdict(verdict_, estimate);
        plan_ = recommendPlan(request);
        recommendation_->setText(
            tr("Recommended for %1: %2")
                .arg(DisplayText::bytes(estimate.budget), DisplayText::planHtml(plan_)));
        recommendation_->setVisible(estimate.budget > 0);
    } catch (const std::exception &error) {
        bars_->clear();
        verdict_->setText(
            tr("No memory estimate: %1").arg(QString::fromUtf8(error.what()).toHtmlEscaped()));
        recommendation_->clear();
        plan_ = Plan();
    }
    choices_->setPlan(plan_, config_);
    model_changes_->setPlan(plan_, config_);
    tabs_->setTabVisible(tabs_->indexOf(model_changes_), !plan_.variants.empty());
}

void PlanView::useAssignments(const QStringList &assignments) {
    if (!editable_) {
        showMessage(tr("Settings are read-only while a run trains."), false);
        return;
    }
    const QString error = setValues(assignments);
    if (!error.isEmpty()) {
        showMessage(error, true);
        return;
    }
    for (int row = 0; row < table_->rowCount(); ++row) {
        showValue(row);
    }
    showMessage(tr("Saved %1. New runs use it.").arg(assignments.join(QStringLiteral(", "))),
                false);
    Q_EMIT configChanged();
}

void PlanView::onItemChanged(QTableWidgetItem *item) {
    if (filling_ || item->column() != ValueColumn) {
        return;
    }
    const QString key = table_->item(item->row(), KeyColumn)->text();
    if (item->text() == QString::fromStdString(config_.text(key.toStdString()))) {
        return;
    }
    const QString error = setValue(key, item->text());
    showValue(item->row());
    if (error.isEmpty()) {
        showMessage(tr("Saved %1 = %2. New runs use it.")
                        .arg(key, QString::fromStdString(config_.text(key.toStdString()))),
                    false);
        Q_EMIT configChanged();
    } else {
        showMessage(error, true);
    }
}

void PlanView::setEditable(bool editable) {
    editable_ = editable;
    for (int row = 0; row < table_->rowCount(); ++row) {
        showValue(row);
    }
    choices_->setEnabled(editable);
    model_changes_->setEnabled(editable);
    if (!editable) {
        showMessage(tr("Settings are read-only while a run trains."), false);
    } else if (messageText() == tr("Settings are read-only while a run trains.")) {
        showMessage({}, false);
    }
}

void PlanView::showMessage(const QString &text, bool error) {
    message_->setText(text);
    message_->setVisible(!text.isEmpty());
    QPalette palette = message_->palette();
    palette.setColor(QPalette::WindowText, error ? plots::plotColors(this->palette()).budget
                                                 : this->palette().color(QPalette::WindowText));
    message_->setPalette(palette);
}

QString PlanView::messageText() const {
    return message_->text();
}

} // namespace headroom::ui
