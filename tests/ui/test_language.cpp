// The language choice: what is offered, what is stored, and that installing a language
// translates Headroom's strings and formats numbers and dates by its locale.
#include "look/Language.h"

#include <QCoreApplication>
#include <QDate>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

using namespace headroom::ui;

class TestLanguage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void offersSystemEnglishGermanAndChinese();
    void storesAndReadsTheChoice_data();
    void storesAndReadsTheChoice();
    void mapsChoicesToLocales_data();
    void mapsChoicesToLocales();
    void installingTranslatesAndFormats_data();
    void installingTranslatesAndFormats();
    void switchingBackToEnglishRemovesTheTranslator();
    void cleanup();

private:
    QTemporaryDir dir_;
};

void TestLanguage::cleanup() {
    installLanguage(*QCoreApplication::instance(), QLocale::c());
}

void TestLanguage::offersSystemEnglishGermanAndChinese() {
    const QList<LanguageOption> options = languageOptions();
    QStringList codes;
    QStringList names;
    for (const LanguageOption &option : options) {
        codes << option.code;
        names << option.name;
    }
    QCOMPARE(codes, (QStringList{QString(), "en", "de", "zh_CN"}));
    QVERIFY(names[0].startsWith(QStringLiteral("System default")));
    QCOMPARE(names.mid(1), (QStringList{"English", "Deutsch", QString::fromUtf8("简体中文")}));
}

void TestLanguage::storesAndReadsTheChoice_data() {
    QTest::addColumn<QVariant>("stored");
    QTest::addColumn<QString>("expected");
    QTest::newRow("nothing stored") << QVariant() << QString();
    QTest::newRow("German") << QVariant(QStringLiteral("de")) << QStringLiteral("de");
    QTest::newRow("Chinese") << QVariant(QStringLiteral("zh_CN")) << QStringLiteral("zh_CN");
    QTest::newRow("English") << QVariant(QStringLiteral("en")) << QStringLiteral("en");
    QTest::newRow("not shipped") << QVariant(QStringLiteral("fr")) << QString();
    QTest::newRow("garbage") << QVariant(42) << QString();
}

void TestLanguage::storesAndReadsTheChoice() {
    QFETCH(QVariant, stored);
    QFETCH(QString, expected);
    QSettings settings(dir_.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
    settings.clear();
    if (stored.isValid()) {
        settings.setValue(languageSettingsKey(), stored);
    }
    QCOMPARE(storedLanguage(settings), expected);

    storeLanguage(settings, QStringLiteral("de"));
    QCOMPARE(storedLanguage(settings), QStringLiteral("de"));
    storeLanguage(settings, QString());
    QVERIFY(!settings.contains(languageSettingsKey()));
    QCOMPARE(storedLanguage(settings), QString());
}

void TestLanguage::mapsChoicesToLocales_data() {
    QTest::addColumn<QString>("code");
    QTest::addColumn<QLocale::Language>("language");
    QTest::newRow("English") << QStringLiteral("en") << QLocale::English;
    QTest::newRow("German") << QStringLiteral("de") << QLocale::German;
    QTest::newRow("Chinese") << QStringLiteral("zh_CN") << QLocale::Chinese;
    QTest::newRow("system") << QString() << QLocale::system().language();
}

void TestLanguage::mapsChoicesToLocales() {
    QFETCH(QString, code);
    QFETCH(QLocale::Language, language);
    QCOMPARE(localeForLanguage(code).language(), language);
    if (code == QLatin1String("zh_CN")) {
        QCOMPARE(localeForLanguage(code).script(), QLocale::SimplifiedHanScript);
    }
}

void TestLanguage::installingTranslatesAndFormats_data() {
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("preferences");
    QTest::addColumn<QString>("number");
    QTest::newRow("German") << QStringLiteral("de") << QStringLiteral("Einstellungen")
                            << QStringLiteral("1.234,5");
    QTest::newRow("Chinese") << QStringLiteral("zh_CN") << QString::fromUtf8("首选项")
                             << QStringLiteral("1,234.5");
}

void TestLanguage::installingTranslatesAndFormats() {
    QFETCH(QString, code);
    QFETCH(QString, preferences);
    QFETCH(QString, number);
    QVERIFY(installLanguage(*QCoreApplication::instance(), localeForLanguage(code)));
    QCOMPARE(QCoreApplication::translate("headroom::ui::PreferencesDialog", "Preferences"),
             preferences);
    QCOMPARE(QLocale().toString(1234.5, 'f', 1), number);
    const QString date = QLocale().toString(QDate(2026, 11, 21), QLocale::ShortFormat);
    QCOMPARE(date, localeForLanguage(code).toString(QDate(2026, 11, 21), QLocale::ShortFormat));
}

void TestLanguage::switchingBackToEnglishRemovesTheTranslator() {
    QVERIFY(installLanguage(*QCoreApplication::instance(), localeForLanguage("de")));
    QVERIFY(!installLanguage(*QCoreApplication::instance(), localeForLanguage("en")));
    QCOMPARE(QCoreApplication::translate("headroom::ui::PreferencesDialog", "Preferences"),
             QStringLiteral("Preferences"));
    QCOMPARE(QLocale().toString(1234.5, 'f', 1), QStringLiteral("1,234.5"));
}

QTEST_GUILESS_MAIN(TestLanguage)
#include "test_language.moc"
