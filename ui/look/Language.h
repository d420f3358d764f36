#pragma once

#include <QList>
#include <QLocale>
#include <QString>

class QCoreApplication;
class QSettings;

namespace headroom::ui {

// The interface language: chosen in Preferences, stored in QSettings, applied at the next
// start (translators are installed before the first window exists, so nothing needs
// retranslating at run time).

// A language the user can pick. `code` is what is stored ("" follows the system).
struct LanguageOption {
    QString code;
    QString name; // in its own language ("Deutsch", "简体中文"), except the system entry
};

// The settings key holding the language code.
QString languageSettingsKey();

// System first, then English (the source language) and every shipped translation.
QList<LanguageOption> languageOptions();

// The stored choice; "" (follow the system) when nothing or an unknown code is stored.
QString storedLanguage(const QSettings &settings);
void storeLanguage(QSettings &settings, const QString &code);

// The locale a choice stands for: the system locale for "", else the language's own.
QLocale localeForLanguage(const QString &code);

// Makes `locale` the default for number and date formatting (QLocale()) and installs the
// Headroom and Qt translators for it, owned by `app`. Returns whether a Headroom
// translation was installed (false for English and for languages Headroom does not ship).
bool installLanguage(QCoreApplication &app, const QLocale &locale);

} // namespace headroom::ui
