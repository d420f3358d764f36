// Hugging Face folders written by Headroom: weights split into shards as save_pretrained splits
// them (and read back by the import), the max shard size as transformers reads it, the import's
// reading thread, and a GPT trained from scratch exported as GPT2LMHeadModel: its logits by
// the independent Python reference (tests/interop/pretrained/reference_lm.py) and by Headroom
// importing the folder again equal the GPT's own, and its tokenizer.json gives the byte
// tokenizer's ids; a SentencePiece project's tokenizer.model gives the project's ids in
// python3-sentencepiece and in Headroom's import.
#include "cli_support.h"
#include "export/sharded_safetensors.h"
#include "hf/base_tokenizer.h"
#include "hf/hf_error.h"
#include "hf/model_folder.h"
#include "hf/pretrained_model.h"
#include "hf/safetensors_file.h"
#include "hf/scratch_gpt.h"
#include "hf/tensor_stream.h"
#include "python_reference.h"
#include "sample_files.h"
#include "tokenizers/tokenizer.h"
#include "workflow/run_model.h"

#include <headroom/config.h>
#include <headroom/project.h>
#include <headroom/tokenizer.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <numeric>

#if defined(__linux__)
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace {

using headroom::exporting::TensorView;

TensorView view(const std::string &name, const std::vector<std::uint8_t> &bytes) {
    TensorView result;
    result.name = name;
    result.dtype = "U8";
    result.shape = {static_cast<std::int64_t>(bytes.size())};
    result.data = bytes.data();
    result.bytes = bytes.size();
    return result;
}

QJsonObject readJson(const QString &path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(file.readAll()).object()
                                          : QJsonObject();
}

} // namespace

class TestHfExport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void maxShardSizeReadsAsTransformers_data();
    void maxShardSizeReadsAsTransformers();
    void shardsSplitAsSavePretrained();
    void weightsThatFitStayOneFile();
    void tensorStreamReadsInOrder();
    void tensorStreamNamesAShortFile();
    void tensorStreamReadsAColdFileDirectly();
    void byteTokenizerFilesGiveTheByteIds();
    void scratchGptExportsAsGpt2();
    void sentencePieceProjectExportsItsModel_data();
    void sentencePieceProjectExportsItsModel();

private:
    QString path(const QString &name) const { return dir_.filePath(name); }

    QTemporaryDir dir_;
    QString data_;
};

void TestHfExport::initTestCase() {
    QVERIFY(dir_.isValid());
    data_ = test_support::writeFile(QDir(dir_.path()), "story.txt", test_support::storyText(300));
}

void TestHfExport::maxShardSizeReadsAsTransformers_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<qulonglong>("bytes"); // 0: refused
    QTest::newRow("5GB decimal") << "5GB" << 5'000'000'000ULL;
    QTest::newRow("2GiB binary") << "2GiB" << 2ULL * 1024 * 1024 * 1024;
    QTest::newRow("500MB") << "500MB" << 500'000'000ULL;
    QTest::newRow("lower case") << "10kb" << 10'000ULL;
    QTest::newRow("bytes") << "123456" << 123456ULL;
    QTest::newRow("zero") << "0" << 0ULL;
    QTest::newRow("no number") << "GB" << 0ULL;
    QTest::newRow("unknown unit") << "5XB" << 0ULL;
    QTest::newRow("negative") << "-1GB" << 0ULL;
}

void TestHfExport::maxShardSizeReadsAsTransformers() {
    QFETCH(QString, text);
    QFETCH(qulonglong, bytes);
    if (bytes != 0) {
        QCOMPARE(headroom::exporting::parseMaxShardSize(text.toStdString()), bytes);
        return;
    }
    try {
        headroom::exporting::parseMaxShardSize(text.toStdString());
        QFAIL("accepted");
    } catch (const headroom::InputError &error) {
        const QString message = QString::fromUtf8(error.what());
        QVERIFY2(message.contains("'" + text + "'") && message.contains("GiB"), error.what());
    }
}

void TestHfExport::shardsSplitAsSavePretrained() {
    // huggingface_hub's rule: a tensor that would take the shard past the limit starts the
    // next one; a tensor above the limit gets a shard of its own.
    const std::vector<std::uint8_t> a(40, 1), b(40, 2), c(40, 3), big(100, 4), e(10, 5);
    const std::vector<TensorView> views = {view("a", a), view("b", b), view("c", c),
                                           view("big", big), view("e", e)};
    const QString folder = path("shards");
    QVERIFY(QDir().mkpath(folder));
    const auto written = headroom::exporting::writeModelWeights(folder.toStdString(), views,
                                                                {{"format", "pt"}}, 100);
    const std::vector<std::string> expected = {
        "model-00001-of-00004.safetensors", "model-00002-of-00004.safetensors",
        "model-00003-of-00004.safetensors", "model-00004-of-00004.safetensors"};
    QCOMPARE(written.files, expected);
    QCOMPARE(written.total_bytes, std::uint64_t{230});
    QVERIFY(!QFile::exists(folder + "/model.safetensors"));
    const QJsonObject index = readJson(folder + "/model.safetensors.index.json");
    QCOMPARE(index["metadata"].toObject()["total_size"].toInteger(), 230);
    const QJsonObject map = index["weight_map"].toObject();
    QCOMPARE(map.size(), 5);
    QCOMPARE(map["a"].toString(), QString("model-00001-of-00004.safetensors"));
    QCOMPARE(map["b"].toString(), QString("model-00001-of-00004.safetensors"));
    QCOMPARE(map["c"].toString(), QString("model-00002-of-00004.safetensors"));
    QCOMPARE(map["big"].toString(), QString("model-00003-of-00004.safetensors"));
    QCOMPARE(map["e"].toString(), QString("model-00004-of-00004.safetensors"));

    // The import's folder reader follows the index to every tensor's bytes.
    QFile::copy(QStringLiteral(HEADROOM_SOURCE_DIR "/resources/sample/sample-gpt.json"),
                folder + "/config.json");
    const headroom::hf::ModelFolder located = headroom::hf::locateModelFolder(folder.toStdString());
    QCOMPARE(located.weight_files.size(), std::size_t{4});
    for (const auto &[name, shard] : located.index_weight_map) {
        const auto file = headroom::hf::SafetensorsFile::open(shard);
        const headroom::hf::TensorRecord *record = file.find(name);
        QVERIFY2(record != nullptr, name.c_str());
        const std::uint8_t first = *file.data(*record);
        QCOMPARE(static_cast<int>(first), name == "a"     ? 1
                                          : name == "b"   ? 2
                                          : name == "c"   ? 3
                                          : name == "big" ? 4
                                                          : 5);
        QCOMPARE(file.metadata().at("format"), std::string("pt"));
    }

    // A name given twice is refused before anything is written.
    const QString twice = path("twice");
    QVERIFY(QDir().mkpath(twice));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             headroom::exporting::writeModelWeights(
                                 twice.toStdString(), {view("a", a), view("a", b)}, {}, 50));
    QVERIFY(QDir(twice).isEmpty());
}

void TestHfExport::weightsThatFitStayOneFile() {
    const std::vector<std::uint8_t> a(40, 1), b(60, 2);
    const QString folder = path("single");
    QVERIFY(QDir().mkpath(folder));
    const auto written = headroom::exporting::writeModelWeights(
        folder.toStdString(), {view("a", a), view("b", b)}, {}, 100);
    QCOMPARE(written.files, std::vector<std::string>{"model.safetensors"});
    QVERIFY(!written.sharded());
    QVERIFY(QFile::exists(folder + "/model.safetensors"));
    QVERIFY(!QFile::exists(folder + "/model.safetensors.index.json"));
}

void TestHfExport::tensorStreamReadsInOrder() {
    // Two files, ranges of every size around the read-ahead budget, one larger than it.
    std::vector<std::string> paths;
    std::vector<std::vector<std::uint8_t>> contents;
    for (int file = 0; file < 2; ++file) {
        std::vector<std::uint8_t> bytes(3000 + 1000 * file);
        std::iota(bytes.begin(), bytes.end(), static_cast<std::uint8_t>(file * 7));
        paths.push_back(path(QString("stream-%1.bin").arg(file)).toStdString());
        std::ofstream(paths.back(), std::ios::binary)
            .write(reinterpret_cast<const char *>(bytes.data()),
                   static_cast<std::streamsize>(bytes.size()));
        contents.push_back(bytes);
    }
    const std::vector<headroom::hf::TensorStream::Range> ranges = {
        {0, 0, 100}, {0, 100, 2000}, {0, 2100, 0}, {0, 2100, 900}, {1, 8, 64}, {1, 72, 3928}};
    headroom::hf::TensorStream stream(paths, ranges, 128);
    for (const auto &range : ranges) {
        const std::uint8_t *bytes = stream.next();
        QCOMPARE(reinterpret_cast<std::uintptr_t>(bytes) % 4096, range.offset % 4096);
        const auto &expected = contents[range.file];
        QVERIFY(std::equal(bytes, bytes + range.bytes, expected.begin() + range.offset));
    }
}

void TestHfExport::tensorStreamNamesAShortFile() {
    const std::string file = path("short.bin").toStdString();
    std::ofstream(file, std::ios::binary).write("0123456789", 10);
    headroom::hf::TensorStream stream({file}, {{0, 0, 4}, {0, 4, 20}});
    QVERIFY(stream.next() != nullptr);
    try {
        stream.next();
        QFAIL("a range beyond the end of the file was read");
    } catch (const headroom::hf::ModelFolderError &error) {
        QVERIFY2(QString(error.what()).contains("short.bin"), error.what());
    }
}

void TestHfExport::tensorStreamReadsAColdFileDirectly() {
#if defined(__linux__)
    // Ranges whose pages are not in the page cache are read with O_DIRECT (whole pages around
    // the range); the bytes handed out are the range's all the same.
    std::vector<std::uint8_t> bytes(3 * 4096 + 517);
    for (std::size_t index = 0; index < bytes.size(); ++index) {
        bytes[index] = static_cast<std::uint8_t>(index * 31 + 7);
    }
    const std::string file = path("cold.bin").toStdString();
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char *>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    const int fd = ::open(file.c_str(), O_RDONLY);
    QVERIFY(fd >= 0);
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    void *mapping = ::mmap(nullptr, bytes.size(), PROT_READ, MAP_SHARED, fd, 0);
    QVERIFY(mapping != MAP_FAILED);
    const auto *mapped = static_cast<const std::uint8_t *>(mapping);
    const std::vector<headroom::hf::TensorStream::Range> ranges = {
        {0, 8, 4000, mapped + 8}, {0, 4008, 8192, mapped + 4008}, {0, 12200, 605, mapped + 12200}};
    {
        headroom::hf::TensorStream stream({file}, ranges, 0);
        for (const auto &range : ranges) {
            const std::uint8_t *read = stream.next();
            QVERIFY(std::equal(read, read + range.bytes, bytes.begin() + range.offset));
        }
    }
    ::munmap(mapping, bytes.size());
    ::close(fd);
#else
    QSKIP("O_DIRECT reads are Linux only");
#endif
}

void TestHfExport::byteTokenizerFilesGiveTheByteIds() {
    const QString folder = path("byte-tokenizer");
    QVERIFY(QDir().mkpath(folder));
    for (const auto &[name, text] : headroom::hf::byteTokenizerFiles(64)) {
        std::ofstream(folder.toStdString() + "/" + name, std::ios::binary) << text;
    }
    const auto bytes = headroom::data::makeByteTokenizer();
    for (const std::string text :
         {"Once upon a time,  a fox\n\tjumped.", " leading space", "ünïcødé — 漢字 🦊",
          "a  b   c\r\n", "<|endoftext", "{\"json\": [1, 2]}"}) {
        const std::vector<std::int32_t> expected = bytes->encode(text);
        for (const char *file : {"tokenizer.json", ""}) {
            // tokenizer.json, and (folder without it) vocab.json + merges.txt.
            if (std::string(file).empty()) {
                QFile::rename(folder + "/tokenizer.json", folder + "/tokenizer.json.off");
            }
            const headroom::HfTokenizer tokenizer =
                headroom::HfTokenizer::load(folder.toStdString());
            QCOMPARE(tokenizer.encodeIds(text), expected);
            QCOMPARE(tokenizer.decode(expected), text);
            QCOMPARE(tokenizer.vocabSize(), std::int32_t{257});
            if (std::string(file).empty()) {
                QFile::rename(folder + "/tokenizer.json.off", folder + "/tokenizer.json");
            }
        }
    }
    // End-of-text is the special token 256, skipped when decoding as Headroom skips it.
    const headroom::HfTokenizer tokenizer = headroom::HfTokenizer::load(folder.toStdString());
    QCOMPARE(tokenizer.decode({72, 256, 105}, true), std::string("Hi"));
    const QJsonObject config = readJson(folder + "/tokenizer_config.json");
    QCOMPARE(config["eos_token"].toString(), QString("<|endoftext|>"));
    QCOMPARE(config["model_max_length"].toInt(), 64);
}

void TestHfExport::scratchGptExportsAsGpt2() {
    const QString problem = test_support::pythonReferenceProblem();
    // A tiny GPT from scratch with dropout (off in eval) and two training steps, so the
    // weights are no longer their initialization.
    const QString project = path("scratch.headroom");
    auto run = [](const QStringList &arguments) {
        const test_support::CliResult result = test_support::runCli(arguments);
        if (result.exit_code != 0) {
            qWarning("%s", qPrintable(result.err));
        }
        return result;
    };
    QCOMPARE(run({"new",      project,
                  "--recipe", "gpt",
                  "--data",   data_,
                  "--set",    "model.layers=2",
                  "--set",    "model.dim=32",
                  "--set",    "model.heads=4",
                  "--set",    "model.seq_len=24",
                  "--set",    "model.dropout=0.1",
                  "--set",    "train.micro_batch=4",
                  "--set",    "train.steps=2",
                  "--set",    "train.lr=0.01",
                  "--set",    "train.eval_every=0"})
                 .exit_code,
             0);
    QCOMPARE(run({"train", project}).exit_code, 0);
    // A shard limit below the model's size: the scratch export shards too.
    const QString folder = path("scratch-hf");
    const test_support::CliResult exported =
        run({"export", project, "--run", "1", "--hf", folder, "--max-shard-size", "40KB"});
    QCOMPARE(exported.exit_code, 0);
    QVERIFY2(exported.err.contains("shards"), qPrintable(exported.err));
    QVERIFY(QFile::exists(folder + "/model.safetensors.index.json"));
    const QJsonObject config = readJson(folder + "/config.json");
    QCOMPARE(config["model_type"].toString(), QString("gpt2"));
    QCOMPARE(config["activation_function"].toString(), QString("gelu"));
    QCOMPARE(config["n_positions"].toInt(), 24);
    QCOMPARE(config["vocab_size"].toInt(), 257);
    QCOMPARE(config["eos_token_id"].toInt(), 256);

    // Headroom's own logits for a batch of byte ids.
    torch::manual_seed(3);
    const torch::Tensor ids = torch::randint(0, 257, {2, 24}, torch::kLong);
    torch::Tensor expected;
    {
        headroom::Project opened = headroom::Project::openForReading(project.toStdString());
        headroom::workflow::RunModel model = headroom::workflow::loadRunModel(opened, 1);
        auto *gpt = dynamic_cast<headroom::models::GptImpl *>(model.recipe->module().get());
        QVERIFY(gpt != nullptr);
        gpt->eval();
        torch::NoGradGuard no_grad;
        expected = gpt->forward(ids);
    }

    // Headroom imports the folder again (sharded, exact GELU) and computes the same.
    {
        headroom::models::CausalLm reimported = headroom::hf::loadPretrainedModel(
            headroom::hf::locateModelFolder(folder.toStdString()));
        reimported->eval();
        torch::NoGradGuard no_grad;
        const torch::Tensor logits = reimported->forward(ids);
        const double difference = (logits - expected).abs().max().item<double>();
        QVERIFY2(difference <= 1e-4, qPrintable(QString("max |difference| %1").arg(difference)));
    }
    const test_support::CliResult based =
        run({"new", path("rebased.headroom"), "--base", folder, "--data", data_});
    QCOMPARE(based.exit_code, 0);
    QVERIFY2(based.out.contains("GPT2LMHeadModel") && based.out.contains("vocabulary 257"),
             based.out.constData());

    if (!problem.isEmpty()) {
        QSKIP(qPrintable("the Python reference cannot run: " + problem));
    }
    const QString ids_file = path("ids.safetensors");
    const QString logits_file = path("logits.safetensors");
    const torch::Tensor contiguous = ids.contiguous();
    headroom::exporting::TensorView ids_view;
    ids_view.name = "ids";
    ids_view.dtype = "I64";
    ids_view.shape = contiguous.sizes().vec();
    ids_view.data = contiguous.data_ptr();
    ids_view.bytes = static_cast<std::uint64_t>(contiguous.nbytes());
    headroom::exporting::writeSafetensors(ids_file.toStdString(), {ids_view}, {});
    QProcess python;
    python.start(test_support::kReferencePython,
                 {QStringLiteral(HEADROOM_SOURCE_DIR "/tests/interop/pretrained/folder_logits.py"),
                  folder, ids_file, logits_file});
    QVERIFY(python.waitForFinished(120000));
    QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
    const torch::Tensor reference = test_support::readReferenceTensors(logits_file).at("logits");
    QCOMPARE(reference.sizes(), expected.sizes());
    const double difference = (reference - expected).abs().max().item<double>();
    QVERIFY2(difference <= 1e-4, qPrintable(QString("max |difference| %1").arg(difference)));
}

void TestHfExport::sentencePieceProjectExportsItsModel_data() {
    QTest::addColumn<QString>("kind");
    QTest::newRow("bpe") << "bpe";
    QTest::newRow("unigram") << "unigram";
}

// A SentencePiece project exports its own model as tokenizer.model for LlamaTokenizer: the
// reference library, Headroom's import of the folder and the project give the same ids, and
// the imported model the same logits.
void TestHfExport::sentencePieceProjectExportsItsModel() {
    QFETCH(QString, kind);
    const QString project = path("spm-" + kind + ".headroom");
    const test_support::CliResult created =
        test_support::runCli({"new",      project,
                              "--recipe", "gpt",
                              "--data",   data_,
                              "--set",    "tokenizer=" + kind,
                              "--set",    "tokenizer.vocab_size=400",
                              "--set",    "model.layers=1",
                              "--set",    "model.dim=16",
                              "--set",    "model.heads=2",
                              "--set",    "model.seq_len=12",
                              "--set",    "train.micro_batch=2",
                              "--set",    "train.steps=2",
                              "--set",    "train.lr=0.01",
                              "--set",    "train.eval_every=0"});
    if (created.err.contains("use tokenizer=byte")) {
        QSKIP("this build cannot load the SentencePiece module (AddressSanitizer)");
    }
    QVERIFY2(created.exit_code == 0, qPrintable(created.err));
    QCOMPARE(test_support::runCli({"train", project}).exit_code, 0);
    const QString folder = path("spm-" + kind + "-hf");
    const test_support::CliResult exported =
        test_support::runCli({"export", project, "--run", "1", "--hf", folder});
    QVERIFY2(exported.exit_code == 0, qPrintable(exported.err));

    headroom::Project opened = headroom::Project::openForReading(project.toStdString());
    headroom::workflow::RunModel model = headroom::workflow::loadRunModel(opened, 1);
    const headroom::data::Tokenizer &own = *model.prepared.tokenizer;
    QFile stored_model(folder + "/tokenizer.model");
    QVERIFY(stored_model.open(QIODevice::ReadOnly));
    QVERIFY(stored_model.readAll().toStdString() == own.serialize());
    QVERIFY(!QFile::exists(folder + "/tokenizer.json")); // the slow class reads tokenizer.model
    const QJsonObject tokenizer_config = readJson(folder + "/tokenizer_config.json");
    QCOMPARE(tokenizer_config["tokenizer_class"].toString(), QString("LlamaTokenizer"));
    QCOMPARE(tokenizer_config["add_bos_token"].toBool(true), false); // Headroom adds no BOS
    QCOMPARE(tokenizer_config["add_eos_token"].toBool(true), false); // EOS only between docs
    QCOMPARE(tokenizer_config["legacy"].toBool(false), true);
    QCOMPARE(tokenizer_config["eos_token"].toString(), QString("</s>"));
    QVERIFY(tokenizer_config["pad_token"].isNull());
    QCOMPARE(tokenizer_config["model_max_length"].toInt(), 12);
    QCOMPARE(readJson(folder + "/special_tokens_map.json")["unk_token"].toString(),
             QString("<unk>"));
    const QJsonObject config = readJson(folder + "/config.json");
    QCOMPARE(config["vocab_size"].toInt(), own.vocabSize());
    QCOMPARE(config["eos_token_id"].toInt(), own.endOfTextId());

    // Spaces, byte fallback for characters the corpus never had, an empty text.
    const std::vector<std::string> texts = {"Once upon a time, a fox jumped.",
                                            "  two  leading spaces and a tab\tend",
                                            "ünïcødé — 漢字 🦊",
                                            "line one\nline two\r\n",
                                            "{\"json\": [1, 2]}",
                                            "",
                                            "story"};
    const auto imported =
        headroom::hf::loadBaseTokenizer(headroom::hf::locateModelFolder(folder.toStdString()));
    QCOMPARE(imported->endOfTextId(), own.endOfTextId());
    QCOMPARE(imported->vocabSize(), own.vocabSize());
    std::vector<std::vector<std::int32_t>> expected;
    for (const std::string &text : texts) {
        expected.push_back(own.encodeStart(text));
        // A document of the imported project starts as the project's did (no BOS).
        QCOMPARE(imported->encodeStart(text), expected.back());
        QCOMPARE(imported->decode(expected.back()), text);
    }

    // The imported model computes the GPT's logits on a batch of those ids.
    std::vector<std::int64_t> flat;
    for (const auto &ids : expected) {
        flat.insert(flat.end(), ids.begin(), ids.end());
        flat.push_back(own.endOfTextId());
    }
    flat.resize(24, own.endOfTextId());
    const torch::Tensor ids = torch::tensor(flat, torch::kLong).view({2, 12});
    auto *gpt = dynamic_cast<headroom::models::GptImpl *>(model.recipe->module().get());
    QVERIFY(gpt != nullptr);
    gpt->eval();
    headroom::models::CausalLm reimported =
        headroom::hf::loadPretrainedModel(headroom::hf::locateModelFolder(folder.toStdString()));
    reimported->eval();
    {
        torch::NoGradGuard no_grad;
        const double difference =
            (reimported->forward(ids) - gpt->forward(ids)).abs().max().item<double>();
        QVERIFY2(difference <= 1e-5, qPrintable(QString("max |difference| %1").arg(difference)));
    }
    const test_support::CliResult based = test_support::runCli(
        {"new", path("spm-" + kind + "-rebased.headroom"), "--base", folder, "--data", data_});
    QVERIFY2(based.exit_code == 0, qPrintable(based.err));
    QVERIFY2(based.out.contains(QString("vocabulary %1").arg(own.vocabSize()).toUtf8()),
             based.out.constData());

    // The reference library reads the same model and ids.
    QProcess probe;
    probe.start(test_support::kReferencePython, {"-c", "import sentencepiece"});
    if (!probe.waitForFinished(60000) || probe.exitCode() != 0) {
        QSKIP("python3-sentencepiece is not installed (apt install python3-sentencepiece)");
    }
    QJsonArray text_array;
    for (const std::string &text : texts) {
        text_array.append(QString::fromStdString(text));
    }
    const QString texts_file = path("spm-" + kind + "-texts.json");
    const QString ids_file = path("spm-" + kind + "-ids.json");
    QFile texts_out(texts_file);
    QVERIFY(texts_out.open(QIODevice::WriteOnly));
    texts_out.write(QJsonDocument(text_array).toJson());
    texts_out.close();
    QProcess python;
    python.start(
        test_support::kReferencePython,
        {QStringLiteral(HEADROOM_SOURCE_DIR "/tests/interop/pretrained/sentencepiece_ids.py"),
         folder, texts_file, ids_file});
    QVERIFY(python.waitForFinished(120000));
    QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
    const QJsonObject reference = readJson(ids_file);
    QCOMPARE(reference["vocab"].toInt(), own.vocabSize());
    const QJsonObject special = reference["special"].toObject();
    QCOMPARE(special["eos"].toArray().at(0).toInt(), own.endOfTextId());
    QCOMPARE(special["eos"].toArray().at(1).toString(), tokenizer_config["eos_token"].toString());
    QCOMPARE(special["bos"].toArray().at(1).toString(), tokenizer_config["bos_token"].toString());
    QCOMPARE(special["unk"].toArray().at(1).toString(), tokenizer_config["unk_token"].toString());
    QCOMPARE(special["pad"].toArray().at(0).toInt(), -1);
    const QJsonArray reference_ids = reference["ids"].toArray();
    QCOMPARE(reference_ids.size(), qsizetype(texts.size()));
    for (std::size_t i = 0; i < texts.size(); ++i) {
        std::vector<std::int32_t> ids_of_text;
        for (const QJsonValue &id : reference_ids.at(qsizetype(i)).toArray()) {
            ids_of_text.push_back(id.toInt());
        }
        QCOMPARE(ids_of_text, expected[i]);
    }

    // The base of a pretrained project (-1) does not exist here.
    const test_support::CliResult base =
        test_support::runCli({"export", project, "--run", "-1", "--hf", path("spm-base")});
    QCOMPARE(base.exit_code, 2);
    QVERIFY2(base.err.contains("from scratch"), qPrintable(base.err));
}

QTEST_GUILESS_MAIN(TestHfExport)
#include "test_hf_export.moc"
