#include "look/PreferencesDialog.h"

#include "look/Language.h"
#include "look/Theme.h"

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QSettings>
#include <QVBoxLayout>

#include <algorithm>

namespace headroom::ui {

PreferencesDialog::PreferencesDialog(QWidget *parent)
    : QDialog(parent), owned_settings_(std::make_unique<QSettings>()),
      settings_(owned_settings_.get()) {
    build();
}

PreferencesDialog::PreferencesDialog(QSettings &settings, QWidget *parent)
    : QDialog(parent), settings_(&settings) {
    build();
}

PreferencesDialog::~PreferencesDialog() = default;

void PreferencesDialog::build() {
    setObjectName(QStringLiteral("preferencesDialog"));
    setWindowTitle(tr("Preferences"));

    language_ = new QComboBox(this);
    language_->setObjectName(QStringLiteral("languageCombo"));
    for (const LanguageOption &option : languageOptions()) {
        language_->addItem(option.name, option.code);
    }
    language_at_open_ = storedLanguage(*settings_);
    language_->setCurrentIndex(std::max(0, language_->findData(language_at_open_)));

    restart_note_ = new QLabel(this);
    restart_note_->setObjectName(QStringLiteral("restartNote"));
    restart_note_->setWordWrap(true);
    restart_note_->setText(tr("A new language applies after Headroom restarts."));

    theme_ = new QComboBox(this);
    theme_->setObjectName(QStringLiteral("themeCombo"));
    theme_->setAccessibleName(tr("Colour theme"));
    theme_->addItem(tr("Follow the system"), QStringLiteral("system"));
    theme_->addItem(tr("Light"), QStringLiteral("light"));
    theme_->addItem(tr("Dark"), QStringLiteral("dark"));
    theme_->setCurrentIndex(std::max(0, theme_->findData(storedTheme(*settings_))));

    auto *form = new QFormLayout;
    form->addRow(tr("&Language:"), language_);
    form->addRow(QString(), restart_note_);
    form->addRow(tr("&Theme:"), theme_);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &PreferencesDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &PreferencesDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addStretch();
    layout->addWidget(buttons);
    // Wide enough that the note wraps into at most two lines in every language.
    setMinimumWidth(fontMetrics().averageCharWidth() * 60);

    connect(language_, &QComboBox::currentIndexChanged, this,
            &PreferencesDialog::updateRestartNote);
    updateRestartNote();
}

QString PreferencesDialog::selectedLanguage() const {
    return language_->currentData().toString();
}

void PreferencesDialog::updateRestartNote() {
    // Said up front, and stressed once the choice differs from the running language.
    QFont font = restart_note_->font();
    font.setBold(selectedLanguage() != language_at_open_);
    restart_note_->setFont(font);
}

QString PreferencesDialog::selectedTheme() const {
    return theme_->currentData().toString();
}

void PreferencesDialog::accept() {
    storeLanguage(*settings_, selectedLanguage());
    storeTheme(*settings_, selectedTheme());
    if (auto *app = qobject_cast<QApplication *>(QCoreApplication::instance())) {
        applyTheme(*app, selectedTheme()); // at once, unlike the language
    }
    settings_->sync();
    QDialog::accept();
}

} // namespace headroom::ui
