#include <headroom/config.h>
#include <headroom/gguf_export.h>
#include <headroom/workflow.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

#ifndef HEADROOM_GGUF_REFERENCE_DIR
#define HEADROOM_GGUF_REFERENCE_DIR ""
#endif

// exportGguf and estimateGgufSizes through the engine's public API: the size shown before
// writing is the size written, for every quant; a chat template travels into the file and its
// end of turn into the Ollama Modelfile. The tiny model folders come from the CTest fixture
// gguf_reference (tests/interop/gguf/setup.sh).
class TestGgufExport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void estimatesAreTheWrittenSizes();
    void chatTemplateAndModelfile();

private:
    std::string newProject(const QString &name, const QString &model,
                           const std::vector<std::string> &overrides = {});

    QTemporaryDir dir_;
    QString reference_, data_;
};

void TestGgufExport::initTestCase() {
    QVERIFY(dir_.isValid());
    reference_ = QStringLiteral(HEADROOM_GGUF_REFERENCE_DIR);
    QFile status(reference_ + "/status.txt");
    if (!status.open(QIODevice::ReadOnly) || !status.readAll().startsWith("ok")) {
        QSKIP("no GGUF interop reference: run tests/interop/gguf/setup.sh");
    }
    data_ = dir_.filePath("story.txt");
    QFile data(data_);
    QVERIFY(data.open(QIODevice::WriteOnly));
    for (int i = 0; i < 200; ++i) {
        data.write("The quick brown fox jumps over the lazy dog, and they ran together.\n");
    }
}

std::string TestGgufExport::newProject(const QString &name, const QString &model,
                                       const std::vector<std::string> &overrides) {
    headroom::NewProjectRequest request;
    request.project_path = dir_.filePath(name).toStdString();
    request.recipe = "gpt";
    request.data_path = data_.toStdString();
    request.base_path = (reference_ + "/models/" + model).toStdString();
    request.overrides = overrides;
    request.overrides.push_back("model.seq_len=32");
    headroom::createProject(request, [](const std::string &) {});
    return request.project_path;
}

void TestGgufExport::estimatesAreTheWrittenSizes() {
    const std::string project = newProject("wide.headroom", "llama-wide");
    const std::vector<std::string> names = headroom::ggufQuantNames();
    QCOMPARE(names.size(), std::size_t(8));
    QVERIFY(std::find(names.begin(), names.end(), "q8_0") != names.end());
    const std::vector<headroom::GgufSizeEstimate> sizes = headroom::estimateGgufSizes(project, -1);
    QCOMPARE(sizes.size(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        QCOMPARE(sizes[i].quant, names[i]);
        headroom::GgufExportRequest request;
        request.project_path = project;
        request.run_id = -1;
        request.quant = names[i];
        request.gguf_path = dir_.filePath(QString::fromStdString(names[i]) + ".gguf").toStdString();
        const headroom::GgufExport written = headroom::exportGguf(request);
        QCOMPARE(written.quant, names[i]);
        QCOMPARE(written.architecture, std::string("llama"));
        QCOMPARE(written.tensors, std::int64_t(21)); // 2 layers of 9, embedding, norm, output
        QCOMPARE(written.file_bytes, sizes[i].file_bytes);
        QCOMPARE(
            static_cast<std::uint64_t>(QFileInfo(QString::fromStdString(request.gguf_path)).size()),
            sizes[i].file_bytes);
    }
    QVERIFY(sizes[0].file_bytes > sizes[1].file_bytes); // f32 > f16
    QVERIFY(sizes[1].file_bytes > sizes[3].file_bytes); // f16 > q8_0
    QVERIFY(sizes[3].file_bytes > sizes[5].file_bytes); // q8_0 > q4_k_m
}

void TestGgufExport::chatTemplateAndModelfile() {
    const std::string project = newProject("chat.headroom", "gpt2", {"data.chat_template=chatml"});
    headroom::GgufExportRequest request;
    request.project_path = project;
    request.run_id = -1;
    request.quant = "q8_0";
    request.ollama_modelfile = true;
    request.gguf_path = dir_.filePath("out/chat.gguf").toStdString();
    QVERIFY_THROWS_EXCEPTION(headroom::InputError, headroom::exportGguf(request)); // no out/
    QVERIFY(QDir(dir_.path()).mkdir("out"));
    const headroom::GgufExport written = headroom::exportGguf(request);
    QCOMPARE(written.modelfile_path, dir_.filePath("out/Modelfile").toStdString());
    QFile gguf(QString::fromStdString(request.gguf_path));
    QVERIFY(gguf.open(QIODevice::ReadOnly));
    const QByteArray bytes = gguf.read(1 << 20);
    QVERIFY(bytes.contains("tokenizer.chat_template"));
    QVERIFY(bytes.contains("<|im_start|>"));
    QFile modelfile(QString::fromStdString(written.modelfile_path));
    QVERIFY(modelfile.open(QIODevice::ReadOnly));
    const QByteArray text = modelfile.readAll();
    QVERIFY2(text.startsWith("FROM ./chat.gguf\n"), text.constData());
    QVERIFY2(text.contains("PARAMETER stop \"<|im_end|>\"\n"), text.constData());
    QVERIFY2(text.contains("PARAMETER stop \"<|endoftext|>\"\n"), text.constData());
    request.quant = "q2_k";
    QVERIFY_THROWS_EXCEPTION(headroom::InputError, headroom::exportGguf(request));
}

QTEST_GUILESS_MAIN(TestGgufExport)
#include "test_gguf_export.moc"
