#include "views/LogView.h"

#include "plots/PlotStyle.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableWidget>
#include <QVBoxLayout>

namespace headroom::ui {

namespace {
enum Column { TimeColumn, RunColumn, StepColumn, KindColumn, MessageColumn, ColumnCount };
constexpr int kCategoryRole = Qt::UserRole + 1;

LogView::Category categoryOf(const std::string &kind) {
    if (isMemoryEventKind(kind)) {
        return LogView::Category::Memory;
    }
    if (kind == "checkpoint" || kind == "resumed") {
        return LogView::Category::Checkpoints;
    }
    if (kind == "nan_loss" || kind == "eval_skipped" || kind == "error") {
        return LogView::Category::Problems;
    }
    return LogView::Category::All;
}
} // namespace

LogView::LogView(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("logView"));
    diagnosis_ = new QLabel(this);
    diagnosis_->setObjectName(QStringLiteral("diagnosisBanner"));
    diagnosis_->setWordWrap(true);
    diagnosis_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    diagnosis_->setFrameShape(QFrame::StyledPanel);
    diagnosis_->setMargin(8);
    diagnosis_->setVisible(false);

    category_ = new QComboBox(this);
    category_->setObjectName(QStringLiteral("logCategory"));
    category_->addItem(tr("All entries"), int(Category::All));
    category_->addItem(tr("Memory events"), int(Category::Memory));
    category_->addItem(tr("Checkpoints"), int(Category::Checkpoints));
    category_->addItem(tr("Problems"), int(Category::Problems));
    category_->addItem(tr("State changes"), int(Category::States));
    category_->setAccessibleName(tr("Show"));
    filter_ = new QLineEdit(this);
    filter_->setObjectName(QStringLiteral("logFilter"));
    filter_->setPlaceholderText(tr("Filter messages"));
    filter_->setClearButtonEnabled(true);
    filter_->setAccessibleName(tr("Filter messages"));
    auto *show_label = new QLabel(tr("&Show:"), this);
    show_label->setBuddy(category_);

    table_ = new QTableWidget(0, ColumnCount, this);
    table_->setObjectName(QStringLiteral("logTable"));
    table_->setHorizontalHeaderLabels(
        {tr("Time"), tr("Run"), tr("Step"), tr("Kind"), tr("Message")});
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->verticalHeader()->setVisible(false);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setWordWrap(false);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);

    auto *filters = new QHBoxLayout;
    filters->addWidget(show_label);
    filters->addWidget(category_);
    filters->addWidget(filter_, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(diagnosis_);
    layout->addLayout(filters);
    layout->addWidget(table_, 1);

    connect(category_, &QComboBox::currentIndexChanged, this, &LogView::applyFilter);
    connect(filter_, &QLineEdit::textChanged, this, &LogView::applyFilter);
}

void LogView::clear() {
    table_->setRowCount(0);
    setDiagnosis({});
}

void LogView::addEvent(const RunEvent &event) {
    addRow(event.received, event.run_id, event.event.step, QString::fromStdString(event.event.kind),
           QString::fromStdString(event.event.message), categoryOf(event.event.kind));
}

void LogView::addState(std::int64_t run_id, std::int64_t step, const QString &state,
                       const QString &message) {
    addRow(QDateTime::currentDateTime(), run_id, step, state, message, Category::States);
}

void LogView::addRow(const QDateTime &time, std::int64_t run_id, std::int64_t step,
                     const QString &kind, const QString &message, Category category) {
    const int row = table_->rowCount();
    table_->insertRow(row);
    const QStringList cells = {time.isValid() ? time.toString(QStringLiteral("HH:mm:ss"))
                                              : QStringLiteral("–"),
                               run_id > 0 ? QString::number(run_id) : QStringLiteral("–"),
                               QString::number(step), kind, message};
    for (int column = 0; column < ColumnCount; ++column) {
        auto *item = new QTableWidgetItem(cells.at(column));
        item->setData(kCategoryRole, int(category));
        if (column == MessageColumn) {
            item->setToolTip(message);
        }
        if (category == Category::Memory || category == Category::Problems) {
            item->setForeground(category == Category::Memory
                                    ? plots::plotColors(palette()).oom
                                    : plots::plotColors(palette()).warning);
        }
        table_->setItem(row, column, item);
    }
    if (row < 200) { // later rows are rarely wider; resizing walks every row
        for (int column : {TimeColumn, RunColumn, StepColumn, KindColumn}) {
            table_->resizeColumnToContents(column);
        }
    }
    applyFilter();
    table_->scrollToBottom();
}

void LogView::setDiagnosis(const QString &text) {
    diagnosis_->setText(
        text.isEmpty() ? QString()
                       : tr("<b>The run could not continue.</b> %1").arg(text.toHtmlEscaped()));
    diagnosis_->setVisible(!text.isEmpty());
    QPalette palette = diagnosis_->palette();
    palette.setColor(QPalette::WindowText, plots::plotColors(this->palette()).budget);
    diagnosis_->setPalette(palette);
}

QString LogView::diagnosis() const {
    return diagnosis_->isVisibleTo(this) ? diagnosis_->text() : QString();
}

void LogView::setCategory(Category category) {
    category_->setCurrentIndex(category_->findData(int(category)));
}

void LogView::setFilterText(const QString &text) {
    filter_->setText(text);
}

void LogView::applyFilter() {
    const int wanted = category_->currentData().toInt();
    const QString text = filter_->text();
    for (int row = 0; row < table_->rowCount(); ++row) {
        const int category = table_->item(row, 0)->data(kCategoryRole).toInt();
        const bool category_ok = wanted == int(Category::All) || wanted == category;
        const bool text_ok =
            text.isEmpty() ||
            table_->item(row, MessageColumn)->text().contains(text, Qt::CaseInsensitive) ||
            table_->item(row, KindColumn)->text().contains(text, Qt::CaseInsensitive);
        table_->setRowHidden(row, !(category_ok && text_ok));
    }
}

int LogView::entryCount() const {
    return table_->rowCount();
}

int LogView::visibleEntryCount() const {
    int count = 0;
    for (int row = 0; row < table_->rowCount(); ++row) {
        count += table_->isRowHidden(row) ? 0 : 1;
    }
    return count;
}

QString LogView::kindAt(int row) const {
    return table_->item(row, KindColumn)->text();
}

} // namespace headroom::ui
