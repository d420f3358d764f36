#include "main_window/ShardSizeDialog.h"

#include "look/AppSettings.h"
#include "wizard/WizardColors.h"

#include <headroom/config.h>
#include <headroom/workflow.h>

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace headroom::ui {

ShardSizeDialog::ShardSizeDialog(AppSettings &settings, QWidget *parent)
    : QDialog(parent), settings_(settings), bytes_(kDefaultMaxShardBytes) {
    setObjectName(QStringLiteral("shardSizeDialog"));
    setWindowTitle(tr("Export as Hugging Face Folder"));

    size_ = new QLineEdit(settings_.get(settings::kHfMaxShardSize), this);
    size_->setObjectName(QStringLiteral("maxShardSize"));
    size_->setToolTip(tr("Weights larger than this are split into several files with an index, "
                         "as save_pretrained splits them"));
    auto *hint = new QLabel(
        tr("Bytes or a number with a unit: 500MB, 5GB, 2GiB (GB = 10⁹ bytes, GiB = 2³⁰ bytes). "
           "5GB is what Transformers uses."),
        this);
    hint->setWordWrap(true);
    error_ = new QLabel(this);
    error_->setObjectName(QStringLiteral("shardSizeError"));
    error_->setWordWrap(true);
    error_->setProperty("error", true);
    setTextTone(error_, TextTone::Problem);
    error_->hide();

    auto *form = new QFormLayout;
    form->addRow(tr("&Largest weight file:"), size_);
    form->addRow(QString(), hint);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("&Export"));
    connect(buttons, &QDialogButtonBox::accepted, this, &ShardSizeDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &ShardSizeDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(error_);
    layout->addWidget(buttons);
    size_->selectAll();
    setMinimumWidth(440);
}

QString ShardSizeDialog::text() const {
    return size_->text().trimmed();
}

std::optional<std::uint64_t> ShardSizeDialog::parse(const QString &text, QString *error) {
    try {
        return headroom::parseMaxShardSize(text.trimmed().toStdString());
    } catch (const InputError &) {
        if (error != nullptr) {
            *error = tr("“%1” is not a size above zero: give bytes or a number with a unit "
                        "(500MB, 5GB, 2GiB).")
                         .arg(text.trimmed());
        }
        return std::nullopt;
    }
}

void ShardSizeDialog::accept() {
    QString error;
    const std::optional<std::uint64_t> bytes = parse(text(), &error);
    if (!bytes) {
        error_->setText(error);
        error_->show();
        adjustSize(); // room for the message without squeezing the wrapped hint
        size_->setFocus();
        size_->selectAll();
        return;
    }
    bytes_ = *bytes;
    settings_.set(settings::kHfMaxShardSize, text());
    QDialog::accept();
}

} // namespace headroom::ui
