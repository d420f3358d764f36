#include "RewardField.h"

#include "WizardColors.h"
#include "WizardForms.h"

#include <headroom/config.h>

#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

namespace headroom::ui {

RewardField::RewardField(QWidget *parent) : QWidget(parent) {
    edit_ = new QLineEdit(this);
    edit_->setObjectName(QStringLiteral("reward"));
    edit_->setAccessibleName(tr("Reward"));
    edit_->setPlaceholderText(tr("e.g. exact:answer,regex:</think>*0.2"));
    edit_->setToolTip(
        tr("grpo.reward: what a sampled completion earns, terms separated by commas, each "
           "KIND:ARGUMENT*WEIGHT. regex:PATTERN 1 when found; format:PATTERN 1 when the whole "
           "completion matches; exact:FIELD 1 when its final number equals the record's FIELD; "
           "length:N 1 at N tokens; command:CMD a program reading JSON lines, printing one "
           "reward per line."));
    label_ = buddyLabel(tr("&Reward:"), edit_, parent);
    verdict_ = new QLabel(this);
    verdict_->setObjectName(QStringLiteral("rewardVerdict"));
    verdict_->setWordWrap(true);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit_);
    layout->addWidget(verdict_);
    connect(edit_, &QLineEdit::textChanged, this, [this] {
        check();
        Q_EMIT changed();
    });
    check();
}

void RewardField::setRowVisible(bool visible) {
    label_->setVisible(visible);
    setVisible(visible);
}

QString RewardField::text() const {
    return edit_->text().trimmed();
}

void RewardField::setText(const QString &text) {
    edit_->setText(text);
}

QString RewardField::problem() const {
    return problem_;
}

void RewardField::check() {
    const std::string answer_pattern = findConfigKey("grpo.answer_pattern")->default_value;
    problem_ = QString::fromStdString(rewardSpecProblem(text().toStdString(), answer_pattern));
    verdict_->setText(problem_.isEmpty() ? tr("Each prompt gets a group of sampled completions; "
                                              "the better-rewarded ones in its group are "
                                              "reinforced.")
                                         : problem_);
    setTextTone(verdict_, problem_.isEmpty() ? TextTone::Normal : TextTone::Problem);
}

} // namespace headroom::ui
