#include "look/Language.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QSettings>
#include <QTranslator>

namespace headroom::ui {

namespace {

// Marks the translators installLanguage owns, so a second call replaces them.
const char *const kTranslatorName = "headroomLanguageTranslator";

QStringList shippedCodes() {
    return {QStringLiteral("en"), QStringLiteral("de"), QStringLiteral("zh_CN")};
}

void removeInstalledTranslators(QCoreApplication &app) {
    const QList<QTranslator *> translators =
        app.findChildren<QTranslator *>(QLatin1String(kTranslatorName), Qt::FindDirectChildrenOnly);
    for (QTranslator *translator : translators) {
        QCoreApplication::removeTranslator(translator);
        delete translator;
    }
}

bool installTranslator(QCoreApplication &app, const QLocale &locale, const QString &name,
                       const QString &directory) {
    auto *translator = new QTranslator(&app);
    translator->setObjectName(QLatin1String(kTranslatorName));
    if (!translator->load(locale, name, QStringLiteral("_"), directory) ||
        !QCoreApplication::installTranslator(translator)) {
        delete translator;
        return false;
    }
    return true;
}

} // namespace

QString languageSettingsKey() {
    return QStringLiteral("ui/language");
}

QList<LanguageOption> languageOptions() {
    const QString system_name = QLocale::system().nativeLanguageName();
    QString system_entry = QCoreApplication::translate("headroom::ui::Language", "System default");
    if (!system_name.isEmpty()) {
        system_entry = QCoreApplication::translate("headroom::ui::Language", "System default (%1)")
                           .arg(system_name);
    }
    // Every language is named in its own language so people find theirs in any UI language.
    return {
        {QString(), system_entry},
        {QStringLiteral("en"), QStringLiteral("English")},
        {QStringLiteral("de"), QStringLiteral("Deutsch")},
        {QStringLiteral("zh_CN"), QString::fromUtf8("简体中文")},
    };
}

QString storedLanguage(const QSettings &settings) {
    const QString code = settings.value(languageSettingsKey()).toString();
    return shippedCodes().contains(code) ? code : QString();
}

void storeLanguage(QSettings &settings, const QString &code) {
    if (code.isEmpty()) {
        settings.remove(languageSettingsKey());
    } else {
        settings.setValue(languageSettingsKey(), code);
    }
}

QLocale localeForLanguage(const QString &code) {
    if (code.isEmpty()) {
        return QLocale::system();
    }
    if (code == QLatin1String("en")) {
        return QLocale(QLocale::English, QLocale::UnitedStates);
    }
    return QLocale(code);
}

bool installLanguage(QCoreApplication &app, const QLocale &locale) {
    removeInstalledTranslators(app);
    QLocale::setDefault(locale);
    // Qt's own strings (standard buttons, file dialogs) come from the Qt translations, when
    // the system has them (Debian: qt6-translations-l10n).
    installTranslator(app, locale, QStringLiteral("qtbase"),
                      QLibraryInfo::path(QLibraryInfo::TranslationsPath));
    if (locale.language() == QLocale::English || locale.language() == QLocale::C) {
        return false; // the source language needs no translator
    }
    return installTranslator(app, locale, QStringLiteral("headroom"), QStringLiteral(":/i18n"));
}

} // namespace headroom::ui
