#include "main_window/EmptyProjectView.h"

#include <QDir>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace headroom::ui {

namespace {
constexpr int kRecentFolderWidthPx = 520;
}

EmptyProjectView::EmptyProjectView(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("emptyProjectView"));

    auto *logo = new QLabel(this);
    logo->setPixmap(QIcon(QStringLiteral(":/icons/headroom.svg")).pixmap(96, 96));

    auto *title = new QLabel(tr("No project open"), this);
    QFont title_font = title->font();
    title_font.setPointSizeF(title_font.pointSizeF() * 1.6);
    title_font.setBold(true);
    title->setFont(title_font);
    title->setAlignment(Qt::AlignCenter);

    auto *hint = new QLabel(tr("Start from a pretrained model — a Hugging Face folder such as "
                               "Llama, Qwen or GPT-2 — and fine-tune it on your own text. Or "
                               "train a small model from scratch on text or CSV data, or open "
                               "an existing Headroom project (.headroom)."),
                            this);
    hint->setObjectName(QStringLiteral("emptyProjectHint"));
    hint->setWordWrap(true);
    hint->setAlignment(Qt::AlignCenter);

    auto *pretrained_button = new QPushButton(tr("Start from a &Pretrained Model…"), this);
    pretrained_button->setObjectName(QStringLiteral("pretrainedProjectButton"));
    pretrained_button->setDefault(true);
    auto *new_button = new QPushButton(tr("New Model from &Scratch…"), this);
    new_button->setObjectName(QStringLiteral("newProjectButton"));
    auto *open_button = new QPushButton(tr("&Open Project…"), this);
    open_button->setObjectName(QStringLiteral("openProjectButton"));
    connect(pretrained_button, &QPushButton::clicked, this,
            [this] { Q_EMIT pretrainedProjectRequested(QString()); });
    connect(new_button, &QPushButton::clicked, this, &EmptyProjectView::newProjectRequested);
    connect(open_button, &QPushButton::clicked, this, &EmptyProjectView::openProjectRequested);

    auto *buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(pretrained_button);
    buttons->addWidget(new_button);
    buttons->addWidget(open_button);
    buttons->addStretch();

    recent_box_ = new QWidget(this);
    recent_box_->setObjectName(QStringLiteral("recentBaseFolders"));
    auto *recent_layout = new QVBoxLayout(recent_box_);
    recent_layout->setContentsMargins(0, 0, 0, 0);
    auto *recent_title = new QLabel(tr("Recent models:"), recent_box_);
    recent_title->setAlignment(Qt::AlignCenter);
    recent_layout->addWidget(recent_title);
    recent_list_ = new QVBoxLayout;
    recent_layout->addLayout(recent_list_);
    recent_box_->hide();

    machine_summary_ = new QLabel(this);
    machine_summary_->setObjectName(QStringLiteral("machineSummary"));
    machine_summary_->setAlignment(Qt::AlignCenter);
    machine_summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    machine_summary_->setForegroundRole(QPalette::PlaceholderText);

    auto *column = new QVBoxLayout;
    column->addStretch(2);
    column->addWidget(logo, 0, Qt::AlignHCenter);
    column->addSpacing(12);
    column->addWidget(title);
    column->addWidget(hint);
    column->addSpacing(12);
    column->addLayout(buttons);
    column->addSpacing(12);
    column->addWidget(recent_box_);
    column->addStretch(1);
    column->addWidget(machine_summary_);
    column->addStretch(1);

    auto *outer = new QHBoxLayout(this);
    outer->addStretch();
    outer->addLayout(column, 4);
    outer->addStretch();
}

void EmptyProjectView::setMachineSummary(const QStringList &lines) {
    machine_summary_->setText(tr("This machine") + QStringLiteral("\n") +
                              lines.join(QLatin1Char('\n')));
}

void EmptyProjectView::setRecentBaseFolders(const QStringList &folders) {
    while (QLayoutItem *item = recent_list_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    for (const QString &folder : folders.mid(0, kRecentFoldersShown)) {
        // A Hugging Face cache's folder is named by a hash: the path above it names the model.
        QString shown = QDir::toNativeSeparators(folder);
        const QString home = QDir::toNativeSeparators(QDir::homePath());
        if (shown.startsWith(home + QDir::separator())) {
            shown = QLatin1Char('~') + shown.mid(home.size());
        }
        auto *button = new QPushButton(
            fontMetrics().elidedText(shown, Qt::ElideMiddle, kRecentFolderWidthPx), recent_box_);
        button->setObjectName(QStringLiteral("recentBaseFolder"));
        button->setFlat(true);
        button->setCursor(Qt::PointingHandCursor);
        button->setToolTip(QDir::toNativeSeparators(folder));
        button->setAccessibleName(tr("Start from %1").arg(QDir::toNativeSeparators(folder)));
        connect(button, &QPushButton::clicked, this,
                [this, folder] { Q_EMIT pretrainedProjectRequested(folder); });
        recent_list_->addWidget(button, 0, Qt::AlignHCenter);
    }
    recent_box_->setVisible(!folders.isEmpty());
}

} // namespace headroom::ui
