// File > Export > Export for llama.cpp / Ollama (GGUF)…: the dialog shows each quantization with
// the size its file will have, the export writes a GGUF file (and an Ollama Modelfile) in the
// background and reports in the status bar, and a project that is not a language model says why
// the entry is unavailable.
#include "main_window/GgufExportDialog.h"
#include "main_window/MainWindow.h"
#include "sample_files.h"
#include "training_support.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace test_support;
using headroom::ui::GgufExportDialog;
using headroom::ui::MainWindow;

class TestGgufExportWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void theDialogShowsEachQuantsSize();
    void theWindowWritesAGgufFileAndAModelfile();
    void onlyLanguageModelsExport();

private:
    QString settingsPath() const { return dir_.filePath("settings.ini"); }

    QTemporaryDir dir_;
    QString project_;
    std::int64_t run_id_ = 0;
};

namespace {
constexpr int kTimeout = 120000;

QAction *ggufAction(const MainWindow &window) {
    return window.findChild<QAction *>(QStringLiteral("exportGgufAction"));
}
} // namespace

void TestGgufExportWindow::initTestCase() {
    QVERIFY(dir_.isValid());
    const QString corpus = writeFile(QDir(dir_.path()), "corpus.txt", storyText(200));
    project_ = createTestProject(dir_.filePath("story.headroom"), corpus, "gpt", kTinyGpt);
    Recorder recorder;
    const headroom::RunResult run = runSession(project_, recorder, {}, 4);
    QCOMPARE(name(run.state), name(headroom::SessionState::Stopped));
    run_id_ = run.run_id;
}

void TestGgufExportWindow::theDialogShowsEachQuantsSize() {
    GgufExportDialog dialog(project_, run_id_);
    QCOMPARE(dialog.quant(), QString("q8_0")); // proposed
    auto *quant = dialog.findChild<QComboBox *>(QStringLiteral("ggufQuant"));
    QVERIFY(quant);
    QCOMPARE(quant->count(), 8);
    QSignalSpy measured(&dialog, &GgufExportDialog::sizesMeasured);
    QVERIFY(dialog.sizesKnown() || measured.wait(kTimeout));
    for (int i = 0; i < quant->count(); ++i) {
        const QString text = quant->itemText(i);
        QVERIFY2(text.endsWith("KiB") || text.endsWith("MiB"), qPrintable(text));
    }
    QVERIFY2(dialog.choiceText("f32").startsWith("f32 — full precision"),
             qPrintable(dialog.choiceText("f32")));
    dialog.setQuant(QStringLiteral("q4_k_m"));
    QCOMPARE(dialog.quant(), QString("q4_k_m"));
}

void TestGgufExportWindow::theWindowWritesAGgufFileAndAModelfile() {
    MainWindow window(nullptr, settingsPath());
    QCOMPARE(window.openProject(project_), QString());
    QAction *action = ggufAction(window);
    QVERIFY(action);
    QVERIFY(action->isEnabled());
    QVERIFY2(action->toolTip().contains(QString("run %1").arg(run_id_)),
             qPrintable(action->toolTip()));

    const QString file = dir_.filePath("story.gguf");
    QSignalSpy finished(&window, &MainWindow::exportFinished);
    QCOMPARE(window.exportGguf(file, QStringLiteral("q8_0"), true), QString());
    QVERIFY(!action->isEnabled()); // one export at a time
    QVERIFY(finished.wait(kTimeout));
    const QString error = finished.front().at(1).toString();
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QString summary = finished.front().at(0).toString();
    QVERIFY2(summary.contains("GGUF, gpt2, q8_0"), qPrintable(summary));
    QVERIFY2(summary.contains("ollama create"), qPrintable(summary));
    QVERIFY(window.runStateText().contains("story.gguf"));
    QFile written(file);
    QVERIFY(written.open(QIODevice::ReadOnly));
    QCOMPARE(written.read(4), QByteArray("GGUF"));
    QVERIFY(QFile::exists(dir_.filePath("Modelfile")));
    QVERIFY(action->isEnabled());

    // A quantization the engine does not know is refused with its name.
    QVERIFY(window.exportGguf(dir_.filePath("bad.gguf"), QStringLiteral("q3_x")).isEmpty());
    QVERIFY(finished.wait(kTimeout));
    QVERIFY2(finished.back().at(1).toString().contains("q3_x"),
             qPrintable(finished.back().at(1).toString()));
    QVERIFY(!QFile::exists(dir_.filePath("bad.gguf")));
}

void TestGgufExportWindow::onlyLanguageModelsExport() {
    const QString table = writeFile(QDir(dir_.path()), "table.csv", tabularCsv(60));
    const QString project =
        createTestProject(dir_.filePath("table.headroom"), table, "tabular", {});
    MainWindow window(nullptr, settingsPath());
    QCOMPARE(window.openProject(project), QString());
    QAction *action = ggufAction(window);
    QVERIFY(!action->isEnabled());
    QVERIFY2(action->toolTip().contains("Only language models"), qPrintable(action->toolTip()));
}

QTEST_MAIN(TestGgufExportWindow)
#include "test_gguf_export_window.moc"
