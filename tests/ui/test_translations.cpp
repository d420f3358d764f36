// The German and Chinese translations are complete and current: no unfinished or vanished
// entries, and every translatable string in the code (as lupdate sees it now) is in each
// .ts file with a translation that keeps its placeholders and keyboard accelerator.
#include "look/ConfigKeyTexts.h"

#include <headroom/config.h>

#include <QDir>
#include <QFile>
#include <QLibraryInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTranslator>
#include <QXmlStreamReader>
#include <QtTest>

namespace {

struct TsMessage {
    QString context;
    QString source;
    QStringList translations; // one per numerus form, or the single translation
    QString type;             // "", "unfinished", "vanished" or "obsolete"

    QString where() const { return context + QStringLiteral(": \"") + source + QLatin1Char('"'); }
};

struct TsFile {
    QString language;
    QList<TsMessage> messages;
    QString error;
};

TsFile parseTs(const QString &path) {
    TsFile ts;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        ts.error = path + QStringLiteral(": ") + file.errorString();
        return ts;
    }
    QXmlStreamReader xml(&file);
    QString context;
    TsMessage message;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            const auto name = xml.name();
            if (name == QLatin1String("TS")) {
                ts.language = xml.attributes().value(QLatin1String("language")).toString();
            } else if (name == QLatin1String("name")) {
                context = xml.readElementText();
            } else if (name == QLatin1String("message")) {
                message = TsMessage{context, {}, {}, {}};
            } else if (name == QLatin1String("source")) {
                message.source = xml.readElementText();
            } else if (name == QLatin1String("translation")) {
                message.type = xml.attributes().value(QLatin1String("type")).toString();
                // Numerus messages hold <numerusform> children; plain ones hold text.
                QString text;
                while (!(xml.isEndElement() && xml.name() == QLatin1String("translation")) &&
                       !xml.atEnd()) {
                    xml.readNext();
                    if (xml.isStartElement() && xml.name() == QLatin1String("numerusform")) {
                        message.translations << xml.readElementText();
                    } else if (xml.isCharacters()) {
                        text += xml.text();
                    }
                }
                if (message.translations.isEmpty()) {
                    message.translations << text;
                }
            }
        } else if (xml.isEndElement() && xml.name() == QLatin1String("message")) {
            ts.messages << message;
        }
    }
    if (xml.hasError()) {
        ts.error =
            QStringLiteral("%1:%2: %3").arg(path).arg(xml.lineNumber()).arg(xml.errorString());
    }
    return ts;
}

QString lupdatePath() {
    for (const auto location : {QLibraryInfo::BinariesPath, QLibraryInfo::LibraryExecutablesPath}) {
        const QString candidate = QLibraryInfo::path(location) + QStringLiteral("/lupdate");
        if (QFileInfo(candidate).isExecutable()) {
            return candidate;
        }
    }
    return QStandardPaths::findExecutable(QStringLiteral("lupdate6"));
}

QString sourceDir() {
    return QStringLiteral(HEADROOM_SOURCE_DIR);
}

QString tsPath(const QString &language) {
    return sourceDir() + QStringLiteral("/translations/headroom_%1.ts").arg(language);
}

// %1..%99 and %n, as a sorted list so repeated markers count.
QStringList placeholders(const QString &text) {
    static const QRegularExpression marker(QStringLiteral("%(\\d{1,2}|n)"));
    QStringList found;
    for (auto it = marker.globalMatch(text); it.hasNext();) {
        found << it.next().captured(0);
    }
    found.sort();
    return found;
}

// A single '&' before a character marks a keyboard accelerator; "&&" is a literal ampersand.
bool hasAccelerator(const QString &text) {
    static const QRegularExpression accelerator(QStringLiteral("(^|[^&])&[^&\\s]"));
    return accelerator.match(text).hasMatch();
}

} // namespace

class TestTranslations : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void committedFileIsFinished_data();
    void committedFileIsFinished();
    void coversEveryStringInTheCode_data();
    void coversEveryStringInTheCode();
    void translationsKeepPlaceholdersAndAccelerators_data();
    void translationsKeepPlaceholdersAndAccelerators();
    void compiledTranslationsAreInTheResources_data();
    void compiledTranslationsAreInTheResources();
    void detectsAnUnfinishedEntry();
    void everySettingDescriptionIsTranslatable();
    void settingDescriptionsAreTranslated();
};

static void addLanguageRows() {
    QTest::addColumn<QString>("language");
    QTest::newRow("German") << QStringLiteral("de");
    QTest::newRow("Simplified Chinese") << QStringLiteral("zh_CN");
}

void TestTranslations::committedFileIsFinished_data() {
    addLanguageRows();
}

void TestTranslations::committedFileIsFinished() {
    QFETCH(QString, language);
    const TsFile ts = parseTs(tsPath(language));
    QVERIFY2(ts.error.isEmpty(), qPrintable(ts.error));
    QCOMPARE(ts.language.left(2), language.left(2));
    QVERIFY2(ts.messages.size() > 10, "suspiciously few messages");
    QStringList problems;
    for (const TsMessage &message : ts.messages) {
        if (!message.type.isEmpty()) {
            problems << message.type + QStringLiteral(": ") + message.where();
        } else if (message.translations.join(QString()).trimmed().isEmpty()) {
            problems << QStringLiteral("empty: ") + message.where();
        }
    }
    QVERIFY2(problems.isEmpty(), qPrintable(tsPath(language) + QStringLiteral(":\n  ") +
                                            problems.join(QStringLiteral("\n  "))));
}

void TestTranslations::coversEveryStringInTheCode_data() {
    addLanguageRows();
}

void TestTranslations::coversEveryStringInTheCode() {
    // lupdate merges the strings it finds in the code into a copy of the .ts file: a string
    // the file lacks comes back "unfinished", one the code no longer has comes back "vanished".
    QFETCH(QString, language);
    const QString lupdate = lupdatePath();
    QVERIFY2(!lupdate.isEmpty(), "lupdate not found (Debian: qt6-l10n-tools)");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString copy = dir.filePath(QStringLiteral("headroom_%1.ts").arg(language));
    QVERIFY(QFile::copy(tsPath(language), copy));
    QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);

    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(lupdate,
                  {QStringLiteral("-locations"), QStringLiteral("none"),
                   QStringLiteral("-no-ui-lines"), sourceDir() + QStringLiteral("/ui"),
                   sourceDir() + QStringLiteral("/app/desktop"), QStringLiteral("-ts"), copy});
    QVERIFY2(process.waitForFinished(120000), "lupdate did not finish");
    const QString output = QString::fromLocal8Bit(process.readAll());
    QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0,
             qPrintable(output));

    const TsFile merged = parseTs(copy);
    QVERIFY2(merged.error.isEmpty(), qPrintable(merged.error));
    QStringList problems;
    for (const TsMessage &message : merged.messages) {
        if (message.type == QLatin1String("unfinished")) {
            problems << QStringLiteral("missing or unfinished: ") + message.where();
        } else if (!message.type.isEmpty()) {
            problems << QStringLiteral("no longer in the code: ") + message.where();
        }
    }
    QVERIFY2(problems.isEmpty(), qPrintable(tsPath(language) +
                                            QStringLiteral(" is out of date (run `cmake --build "
                                                           "build --target update_translations` "
                                                           "and translate):\n  ") +
                                            problems.join(QStringLiteral("\n  "))));
}

void TestTranslations::translationsKeepPlaceholdersAndAccelerators_data() {
    addLanguageRows();
}

void TestTranslations::translationsKeepPlaceholdersAndAccelerators() {
    QFETCH(QString, language);
    const TsFile ts = parseTs(tsPath(language));
    QVERIFY2(ts.error.isEmpty(), qPrintable(ts.error));
    QStringList problems;
    for (const TsMessage &message : ts.messages) {
        for (const QString &translation : message.translations) {
            if (placeholders(translation) != placeholders(message.source)) {
                problems << QStringLiteral("placeholders differ: ") + message.where();
            }
            if (hasAccelerator(translation) != hasAccelerator(message.source)) {
                problems << QStringLiteral("accelerator differs: ") + message.where();
            }
        }
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QStringLiteral("\n  "))));
}

void TestTranslations::compiledTranslationsAreInTheResources_data() {
    addLanguageRows();
}

void TestTranslations::compiledTranslationsAreInTheResources() {
    QFETCH(QString, language);
    QTranslator translator;
    QVERIFY2(translator.load(QStringLiteral(":/i18n/headroom_%1.qm").arg(language)),
             "the .qm file is not compiled into headroom_ui's resources");
    QVERIFY(!translator.isEmpty());
    QVERIFY(translator.language().startsWith(language.left(2)));
}

void TestTranslations::detectsAnUnfinishedEntry() {
    // The parser behind the checks above must see what lupdate writes for a new string.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("probe.ts"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE TS>\n"
               "<TS version=\"2.1\" language=\"de_DE\"><context><name>Ctx</name>\n"
               "<message><source>&amp;Open %1</source>"
               "<translation type=\"unfinished\"></translation></message>\n"
               "<message numerus=\"yes\"><source>%n runs</source><translation>"
               "<numerusform>%n Lauf</numerusform><numerusform>%n Läufe</numerusform>"
               "</translation></message>\n"
               "</context></TS>\n");
    file.close();
    const TsFile ts = parseTs(path);
    QVERIFY2(ts.error.isEmpty(), qPrintable(ts.error));
    QCOMPARE(ts.messages.size(), 2);
    QCOMPARE(ts.messages[0].context, QStringLiteral("Ctx"));
    QCOMPARE(ts.messages[0].type, QStringLiteral("unfinished"));
    QVERIFY(hasAccelerator(ts.messages[0].source));
    QCOMPARE(placeholders(ts.messages[0].source), QStringList{QStringLiteral("%1")});
    QCOMPARE(ts.messages[1].translations.size(), 2);
    QCOMPARE(ts.messages[1].translations[1], QString::fromUtf8("%n Läufe"));
    QVERIFY(!hasAccelerator(QStringLiteral("Save && quit")));
}

QTEST_GUILESS_MAIN(TestTranslations)
void TestTranslations::everySettingDescriptionIsTranslatable() {
    // The engine's key registry is Qt-free; ui/ConfigKeyTexts.cpp repeats its descriptions for
    // lupdate. A changed or new description must be copied there too.
    for (const headroom::KeySpec &spec : headroom::configKeys()) {
        QVERIFY2(headroom::ui::hasTranslatableDescription(spec.description),
                 qPrintable(QString::fromStdString(spec.name + ": \"" + spec.description +
                                                   "\" is missing from ui/ConfigKeyTexts.cpp")));
    }
}

void TestTranslations::settingDescriptionsAreTranslated() {
    QTranslator translator;
    QVERIFY(translator.load(QStringLiteral(":/i18n/headroom_de.qm")));
    QCoreApplication::installTranslator(&translator);
    const headroom::KeySpec *precision = headroom::findConfigKey("precision");
    QVERIFY(precision != nullptr);
    const QString text = headroom::ui::translatedDescription(*precision);
    QCoreApplication::removeTranslator(&translator);
    QVERIFY2(text.startsWith(QStringLiteral("Gemischte Genauigkeit")), qPrintable(text));
}

#include "test_translations.moc"
