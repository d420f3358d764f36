// The Preferences dialog: shows the stored language, says that a change applies after a
// restart, stores the choice on OK and leaves it alone on Cancel.
#include "look/Language.h"
#include "look/PreferencesDialog.h"
#include "look/Theme.h"
#include "plots/PlotStyle.h"

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QSettings>
#include <QStyle>
#include <QTemporaryDir>
#include <QtTest>

using headroom::ui::PreferencesDialog;

class TestPreferencesDialog : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void offersTheLanguages();
    void preselectsTheStoredLanguage_data();
    void preselectsTheStoredLanguage();
    void okStoresTheChoice_data();
    void okStoresTheChoice();
    void cancelKeepsTheStoredChoice();
    void saysTheLanguageAppliesAfterRestart();
    void themeAppliesAtOnceAndIsStored();

private:
    QComboBox *combo(PreferencesDialog &dialog) {
        return dialog.findChild<QComboBox *>(QStringLiteral("languageCombo"));
    }

    QTemporaryDir dir_;
    std::unique_ptr<QSettings> settings_;
};

void TestPreferencesDialog::init() {
    settings_ = std::make_unique<QSettings>(dir_.filePath(QStringLiteral("settings.ini")),
                                            QSettings::IniFormat);
    settings_->clear();
}

void TestPreferencesDialog::offersTheLanguages() {
    PreferencesDialog dialog(*settings_);
    QComboBox *languages = combo(dialog);
    QVERIFY(languages);
    QCOMPARE(languages->count(), 4);
    QCOMPARE(languages->itemText(2), QStringLiteral("Deutsch"));
    QCOMPARE(languages->itemText(3), QString::fromUtf8("简体中文"));
    QCOMPARE(languages->itemData(3).toString(), QStringLiteral("zh_CN"));
}

void TestPreferencesDialog::preselectsTheStoredLanguage_data() {
    QTest::addColumn<QString>("stored");
    QTest::addColumn<int>("index");
    QTest::newRow("nothing: system") << QString() << 0;
    QTest::newRow("English") << QStringLiteral("en") << 1;
    QTest::newRow("German") << QStringLiteral("de") << 2;
    QTest::newRow("Chinese") << QStringLiteral("zh_CN") << 3;
    QTest::newRow("unknown: system") << QStringLiteral("tlh") << 0;
}

void TestPreferencesDialog::preselectsTheStoredLanguage() {
    QFETCH(QString, stored);
    QFETCH(int, index);
    if (!stored.isEmpty()) {
        settings_->setValue(headroom::ui::languageSettingsKey(), stored);
    }
    PreferencesDialog dialog(*settings_);
    QCOMPARE(combo(dialog)->currentIndex(), index);
}

void TestPreferencesDialog::okStoresTheChoice_data() {
    QTest::addColumn<int>("index");
    QTest::addColumn<QString>("stored");
    QTest::newRow("German") << 2 << QStringLiteral("de");
    QTest::newRow("Chinese") << 3 << QStringLiteral("zh_CN");
    QTest::newRow("back to system") << 0 << QString();
}

void TestPreferencesDialog::okStoresTheChoice() {
    QFETCH(int, index);
    QFETCH(QString, stored);
    settings_->setValue(headroom::ui::languageSettingsKey(), QStringLiteral("en"));
    PreferencesDialog dialog(*settings_);
    combo(dialog)->setCurrentIndex(index);
    QCOMPARE(dialog.selectedLanguage(), stored);
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QSettings reread(settings_->fileName(), QSettings::IniFormat);
    QCOMPARE(headroom::ui::storedLanguage(reread), stored);
}

void TestPreferencesDialog::cancelKeepsTheStoredChoice() {
    settings_->setValue(headroom::ui::languageSettingsKey(), QStringLiteral("de"));
    PreferencesDialog dialog(*settings_);
    combo(dialog)->setCurrentIndex(3);
    dialog.reject();
    QCOMPARE(headroom::ui::storedLanguage(*settings_), QStringLiteral("de"));
}

void TestPreferencesDialog::saysTheLanguageAppliesAfterRestart() {
    PreferencesDialog dialog(*settings_);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    auto *note = dialog.findChild<QLabel *>(QStringLiteral("restartNote"));
    QVERIFY(note);
    QVERIFY(note->isVisible());
    QVERIFY(note->text().contains(QStringLiteral("restart")));
    QVERIFY(!note->font().bold());
    combo(dialog)->setCurrentIndex(2);
    QVERIFY(note->font().bold()); // a pending change is stressed
    combo(dialog)->setCurrentIndex(0);
    QVERIFY(!note->font().bold());
}

void TestPreferencesDialog::themeAppliesAtOnceAndIsStored() {
    const QColor system_window = QApplication::palette().color(QPalette::Window);
    const auto theme = [](PreferencesDialog &dialog) {
        return dialog.findChild<QComboBox *>(QStringLiteral("themeCombo"));
    };
    {
        PreferencesDialog dialog(*settings_);
        QCOMPARE(dialog.selectedTheme(), QStringLiteral("system"));
        theme(dialog)->setCurrentIndex(theme(dialog)->findData(QStringLiteral("dark")));
        dialog.accept();
    }
    QCOMPARE(headroom::ui::storedTheme(*settings_), QStringLiteral("dark"));
    QVERIFY(headroom::ui::plots::isDarkPalette(QApplication::palette()));
    QCOMPARE(QApplication::style()->name().toLower(), QStringLiteral("fusion"));
    {
        PreferencesDialog dialog(*settings_);
        QCOMPARE(dialog.selectedTheme(), QStringLiteral("dark")); // preselected
        theme(dialog)->setCurrentIndex(theme(dialog)->findData(QStringLiteral("light")));
        dialog.accept();
    }
    QVERIFY(!headroom::ui::plots::isDarkPalette(QApplication::palette()));
    {
        PreferencesDialog dialog(*settings_);
        theme(dialog)->setCurrentIndex(theme(dialog)->findData(QStringLiteral("system")));
        dialog.accept();
    }
    QVERIFY(!settings_->contains(headroom::ui::themeSettingsKey()));
    QCOMPARE(QApplication::palette().color(QPalette::Window), system_window);
}

QTEST_MAIN(TestPreferencesDialog)
#include "test_preferencesdialog.moc"
