#include "PlanChoiceTable.h"

#include "look/DisplayText.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace headroom::ui {

namespace {

QStringList toStringList(const std::vector<std::string> &items) {
    QStringList list;
    for (const std::string &item : items) {
        list << QString::fromStdString(item);
    }
    return list;
}

// Whether every assignment already holds in `config` (values compared as the config
// normalises them, so "1" and "1.0" agree).
bool holds(const Config &config, const QStringList &assignments) {
    for (const QString &assignment : assignments) {
        const std::string text = assignment.toStdString();
        const std::string key = text.substr(0, text.find('='));
        try {
            Config probe = config;
            probe.setAssignment(text);
            if (probe.text(key) != config.text(key)) {
                return false;
            }
        } catch (const std::exception &) {
            return false;
        }
    }
    return true;
}

QString speedText(double speed) {
    return speed > 0 ? QStringLiteral("%1×").arg(speed, 0, 'f', 2) : QStringLiteral("–");
}

QString stepText(double seconds) {
    if (seconds <= 0) {
        return QStringLiteral("–");
    }
    return seconds < 1 ? PlanChoiceTable::tr("%1 ms").arg(qRound(seconds * 1000))
                       : PlanChoiceTable::tr("%1 s").arg(seconds, 0, 'f', 2);
}

// The change in the user's language (the engine's text is the command line's English).
QString changeText(const PlanVariant &variant, const Config &current) {
    const std::string assignment = variant.overrides.empty() ? "" : variant.overrides.front();
    const std::string key = assignment.substr(0, assignment.find('='));
    const QString value = QString::fromStdString(assignment.substr(assignment.find('=') + 1));
    const QString now = QString::fromStdString(current.text(key));
    if (key == "moe.experts") {
        return PlanChoiceTable::tr("%1 experts instead of %2").arg(value, now);
    }
    if (key == "moe.top_k") {
        return PlanChoiceTable::tr("Top-%1 routing instead of top-%2").arg(value, now);
    }
    if (key == "moe.capacity_factor") {
        return current.real(key) == 0
                   ? PlanChoiceTable::tr("Capacity factor %1 instead of none").arg(value)
                   : PlanChoiceTable::tr("Capacity factor %1 instead of %2").arg(value, now);
    }
    if (key == "moe.every") {
        return PlanChoiceTable::tr("Experts in every %1 blocks instead of every %2")
            .arg(value, now);
    }
    return QString::fromStdString(variant.change);
}

QTableWidgetItem *cell(const QString &text, Qt::Alignment alignment = Qt::AlignLeft) {
    auto *item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    item->setTextAlignment(alignment | Qt::AlignVCenter);
    return item;
}

} // namespace

PlanChoiceTable::PlanChoiceTable(Kind kind, QWidget *parent) : QWidget(parent), kind_(kind) {
    const bool techniques = kind == Kind::Techniques;
    setObjectName(techniques ? QStringLiteral("planChoices") : QStringLiteral("modelChanges"));
    table_ = new QTableWidget(0, techniques ? 6 : 5, this);
    table_->setObjectName(QStringLiteral("choiceTable"));
    table_->setHorizontalHeaderLabels(
        techniques
            ? QStringList{tr("Techniques"), tr("Batch"), tr("Peak"), tr("Speed"), tr("Step"),
                          tr("Fits")}
            : QStringList{tr("Change"), tr("Parameters"), tr("Peak"), tr("Speed"), tr("Fits")});
    table_->setAccessibleName(techniques ? tr("Plans the planner compared")
                                         : tr("Changes to the model and their effect"));
    table_->verticalHeader()->setVisible(false);
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);

    note_ = new QLabel(this);
    note_->setWordWrap(true);
    note_->setText(techniques ? tr("Speed is relative to fp32 without techniques at the same "
                                   "micro-batch; batch is micro-batch × accumulation. Marked "
                                   "rows: nothing else is both faster and smaller.")
                              : tr("Each change alone, with the plan's techniques and "
                                   "micro-batch. The planner never changes the model itself."));
    use_ = new QPushButton(techniques ? tr("Use this pla&n") : tr("Appl&y this change"), this);
    use_->setObjectName(QStringLiteral("useChoice"));
    auto *bottom = new QHBoxLayout;
    if (techniques) {
        show_all_ = new QCheckBox(tr("Show &every combination"), this);
        show_all_->setObjectName(QStringLiteral("showAllChoices"));
        bottom->addWidget(show_all_);
        connect(show_all_, &QCheckBox::toggled, this, &PlanChoiceTable::refill);
    }
    bottom->addStretch();
    bottom->addWidget(use_);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(table_, 1);
    layout->addWidget(note_);
    layout->addLayout(bottom);

    connect(table_, &QTableWidget::itemSelectionChanged, this, &PlanChoiceTable::updateButton);
    connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row) { use(row); });
    connect(use_, &QPushButton::clicked, this, [this] { use(table_->currentRow()); });
    updateButton();
}

void PlanChoiceTable::setPlan(const Plan &plan, const Config &current) {
    plan_ = plan;
    current_ = current;
    refill();
}

int PlanChoiceTable::rowCount() const {
    return table_->rowCount();
}

QStringList PlanChoiceTable::assignmentsOf(int row) const {
    return row >= 0 && row < row_assignments_.size() ? row_assignments_[row] : QStringList();
}

void PlanChoiceTable::use(int row) {
    if (row < 0 || row >= row_assignments_.size()) {
        return;
    }
    table_->selectRow(row);
    Q_EMIT chosen(row_assignments_[row]);
}

void PlanChoiceTable::refill() {
    table_->setRowCount(0);
    row_assignments_.clear();
    const auto addRow = [this](const QStringList &texts, const QStringList &assignments, bool fits,
                               bool marked) {
        const int row = table_->rowCount();
        table_->insertRow(row);
        const bool current = holds(current_, assignments);
        for (int column = 0; column < texts.size(); ++column) {
            QTableWidgetItem *item =
                cell(texts[column], column == 0 ? Qt::AlignLeft : Qt::AlignRight);
            QFont font = item->font();
            font.setBold(current);
            item->setFont(font);
            if (!fits) {
                item->setForeground(palette().brush(QPalette::Disabled, QPalette::Text));
            }
            table_->setItem(row, column, item);
        }
        if (current) {
            table_->item(row, 0)->setToolTip(tr("The settings as they are now"));
        }
        if (marked) {
            table_->item(row, 0)->setText(QStringLiteral("★ ") + texts[0]);
        }
        row_assignments_ << assignments;
    };
    if (kind_ == Kind::Techniques) {
        for (const PlanAlternative &alternative : plan_.alternatives) {
            const QStringList assignments = toStringList(alternative.overrides);
            if (!show_all_->isChecked() && !alternative.pareto && !holds(current_, assignments)) {
                continue;
            }
            addRow({QString::fromStdString(alternative.techniques),
                    QStringLiteral("%1 × %2")
                        .arg(alternative.micro_batch)
                        .arg(alternative.accumulation),
                    DisplayText::bytes(alternative.peak), speedText(alternative.relative_speed),
                    stepText(alternative.step_seconds), alternative.fits ? tr("yes") : tr("no")},
                   assignments, alternative.fits, alternative.pareto);
        }
        show_all_->setText(
            tr("Show &every combination (%1)").arg(qsizetype(plan_.alternatives.size())));
    } else {
        for (const PlanVariant &variant : plan_.variants) {
            addRow({changeText(variant, current_),
                    tr("%1 M").arg(double(variant.parameters) / 1e6, 0, 'f', 2),
                    DisplayText::bytes(variant.peak), speedText(variant.relative_speed),
                    variant.fits ? tr("yes") : tr("no")},
                   toStringList(variant.overrides), variant.fits, false);
        }
    }
    for (int column = 1; column < table_->columnCount(); ++column) {
        table_->resizeColumnToContents(column);
    }
    updateButton();
}

void PlanChoiceTable::updateButton() {
    const int row = table_->currentRow();
    use_->setEnabled(row >= 0 && row < row_assignments_.size() &&
                     !holds(current_, row_assignments_[row]));
}

} // namespace headroom::ui
