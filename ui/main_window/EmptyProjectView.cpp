#include "main_window/EmptyProjectView.h"

#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace headroom::ui {

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

    auto *hint = new QLabel(tr("Create a project from your own text or CSV data, or open an "
                               "existing Headroom project (.headroom)."),
                            this);
    hint->setWordWrap(true);
    hint->setAlignment(Qt::AlignCenter);

    auto *new_button = new QPushButton(tr("New Project…"), this);
    new_button->setObjectName(QStringLiteral("newProjectButton"));
    auto *open_button = new QPushButton(tr("Open Project…"), this);
    open_button->setObjectName(QStringLiteral("openProjectButton"));
    connect(new_button, &QPushButton::clicked, this, &EmptyProjectView::newProjectRequested);
    connect(open_button, &QPushButton::clicked, this, &EmptyProjectView::openProjectRequested);

    auto *buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(new_button);
    buttons->addWidget(open_button);
    buttons->addStretch();

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

} // namespace headroom::ui
