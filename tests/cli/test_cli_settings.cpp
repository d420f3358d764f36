// headroom-cli settings: the key registry as text and as Markdown, and docs/SETTINGS.md equal
// to what the binary prints now (a stale file fails with the command that regenerates it).
#include "cli_support.h"

#include <headroom/config.h>

#include <QFile>
#include <QRegularExpression>
#include <QtTest>

#include <algorithm>

using test_support::runCli;

namespace {

const QString kSettingsFile = QStringLiteral(HEADROOM_SOURCE_DIR "/docs/SETTINGS.md");

// The first line where the printed and the committed text differ, for a message a person can
// act on.
QString firstDifference(const QByteArray &printed, const QByteArray &committed) {
    const QList<QByteArray> output = printed.split('\n');
    const QList<QByteArray> file = committed.split('\n');
    for (qsizetype line = 0; line < std::max(output.size(), file.size()); ++line) {
        const QByteArray in_output =
            line < output.size() ? output[line] : QByteArray("(end of output)");
        const QByteArray in_file = line < file.size() ? file[line] : QByteArray("(end of file)");
        if (in_output != in_file) {
            return QStringLiteral("line %1:\n  docs/SETTINGS.md: %2\n  headroom-cli:      %3")
                .arg(line + 1)
                .arg(QString::fromUtf8(in_file), QString::fromUtf8(in_output));
        }
    }
    return QStringLiteral("(no line differs)");
}

// Table cells split at the pipes that are not escaped.
int unescapedPipes(const QString &line) {
    int count = 0;
    for (qsizetype i = 0; i < line.size(); ++i) {
        if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) {
            ++count;
        }
    }
    return count;
}

} // namespace

class TestCliSettings : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void plainTextListsKeysWithDefaults();
    void markdownHasEveryRegistryKey();
    void markdownTablesHaveFiveColumns();
    void markdownGroupsByPrefix();
    void settingsFileIsUpToDate();

private:
    QByteArray markdown_;
};

void TestCliSettings::initTestCase() {
    const auto result = runCli({"settings", "--markdown"});
    QVERIFY2(result.exit_code == 0, qPrintable(result.err));
    QVERIFY(result.err.isEmpty());
    markdown_ = result.out;
    QVERIFY(markdown_.startsWith("# Settings\n"));
    const auto again = runCli({"settings", "--markdown"});
    QCOMPARE(again.out, markdown_);
}

void TestCliSettings::plainTextListsKeysWithDefaults() {
    const auto result = runCli({"settings"});
    QVERIFY2(result.exit_code == 0, qPrintable(result.err));
    const QString text = QString::fromUtf8(result.out);
    QVERIFY(text.startsWith("key "));
    QVERIFY(!text.contains("| "));
    const QRegularExpression lr(QStringLiteral("^train\\.lr +0\\.0003 +Peak learning rate"),
                                QRegularExpression::MultilineOption);
    QVERIFY2(lr.match(text).hasMatch(), qPrintable(text));
    for (const headroom::KeySpec &spec : headroom::configKeys()) {
        const QRegularExpression row(
            "^" + QRegularExpression::escape(QString::fromStdString(spec.name)) + " ",
            QRegularExpression::MultilineOption);
        QVERIFY2(row.match(text).hasMatch(), spec.name.c_str());
    }
}

void TestCliSettings::markdownHasEveryRegistryKey() {
    const QString text = QString::fromUtf8(markdown_);
    for (const headroom::KeySpec &spec : headroom::configKeys()) {
        const QString row = "\n| `" + QString::fromStdString(spec.name) + "` | ";
        QVERIFY2(text.count(row) == 1, spec.name.c_str());
    }
}

void TestCliSettings::markdownTablesHaveFiveColumns() {
    int rows = 0;
    for (const QString &line : QString::fromUtf8(markdown_).split('\n')) {
        if (!line.startsWith('|')) {
            continue;
        }
        QVERIFY2(unescapedPipes(line) == 6, qPrintable(line));
        ++rows;
    }
    QVERIFY(rows > static_cast<int>(headroom::configKeys().size()));
}

void TestCliSettings::markdownGroupsByPrefix() {
    const QString text = QString::fromUtf8(markdown_);
    QVERIFY(text.contains("`headroom-cli settings --markdown > docs/SETTINGS.md`"));
    const qsizetype general = text.indexOf("\n## General\n");
    const qsizetype train = text.indexOf("\n## `train.*`\n");
    const qsizetype lora = text.indexOf("\n## `lora.*`\n");
    QVERIFY(general > 0);
    QVERIFY(train > general);
    QVERIFY(lora > train);
    QCOMPARE(text.count("\n## `train.*`\n"), 1);
    const qsizetype recipe = text.indexOf("| `recipe` | choice | `gpt` | `gpt`, `tabular`");
    QVERIFY(recipe > general && recipe < train);
    const qsizetype lr = text.indexOf("| `train.lr` | real | `0.0003` | 1e-9–10 |");
    QVERIFY(lr > train && lr < lora);
    QVERIFY(text.indexOf("| `train.sample_tokens` |") < lora);
    QVERIFY(text.contains("| `checkpointing` | integer, on/off | `0` | 0–1024; `true`/`on`/`yes` "
                          "= 1, `false`/`off`/`no` = 0 |"));
    QVERIFY(text.contains("| `offload.optimizer` | on/off | `off` |"));
}

void TestCliSettings::settingsFileIsUpToDate() {
    QFile file(kSettingsFile);
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(kSettingsFile + " is missing"));
    const QByteArray committed = file.readAll();
    if (committed != markdown_) {
        QFAIL(qPrintable(
            QStringLiteral("docs/SETTINGS.md does not match the key registry; regenerate it:\n"
                           "  %1 settings --markdown > %2\nFirst difference at %3")
                .arg(QStringLiteral(HEADROOM_CLI_PATH), kSettingsFile,
                     firstDifference(markdown_, committed))));
    }
}

QTEST_GUILESS_MAIN(TestCliSettings)
#include "test_cli_settings.moc"
