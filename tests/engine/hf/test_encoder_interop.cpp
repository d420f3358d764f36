// Imported BERT-family masked-LM encoders against an independent Python reference (Debian's
// python3-torch, tests/interop/encoder/reference_encoder.py): tiny random BERT (F32 with a
// pooler and next-sentence head to ignore; BF16 without the "bert." prefix, gelu_new, a padded
// vocabulary; F16 in two shards with an untied decoder and relu) and DistilBERT. Hidden states
// and MLM logits must match to 1e-5 in fp32 on padded batches; padding must not reach the real
// positions; an export must re-import to identical logits and load in the reference too;
// dropout must repeat under the same ScopedDropoutKey; bf16 must not turn padding into NaN. The
// folders are written by tests/interop/encoder/setup.sh (CTest fixture encoder_reference); without
// python3-torch this test skips and says why.
#include "compat/autocast.h"
#include "export/safetensors.h"
#include "hf/encoder_config.h"
#include "hf/encoder_layout.h"
#include "hf/pretrained_encoder.h"
#include "hf/safetensors_file.h"
#include "models/bert_encoder.h"
#include "models/keyed_dropout.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>
#include <string>

#ifndef HEADROOM_ENCODER_REFERENCE_DIR
#define HEADROOM_ENCODER_REFERENCE_DIR ""
#endif

namespace {

const char *const kPython = "/usr/bin/python3";
constexpr double kTolerance = 1e-5;

QString referenceRoot() {
    const QByteArray override = qgetenv("HEADROOM_ENCODER_REFERENCE_DIR");
    return override.isEmpty() ? QStringLiteral(HEADROOM_ENCODER_REFERENCE_DIR)
                              : QString::fromLocal8Bit(override);
}

std::string folderOf(const QString &name) {
    return (referenceRoot() + "/reference/" + name).toStdString();
}

std::map<std::string, torch::Tensor> readTensors(const std::string &path) {
    const headroom::hf::SafetensorsFile file = headroom::hf::SafetensorsFile::open(path);
    std::map<std::string, torch::Tensor> tensors;
    for (const headroom::hf::TensorRecord &record : file.tensors()) {
        const auto type = record.dtype == "I64" ? torch::kLong : torch::kFloat;
        tensors[record.name] = torch::from_blob(const_cast<std::uint8_t *>(file.data(record)),
                                                record.shape, torch::TensorOptions().dtype(type))
                                   .clone();
    }
    return tensors;
}

double maxDifference(const torch::Tensor &a, const torch::Tensor &b) {
    return (a - b).abs().max().item<double>();
}

} // namespace

class TestEncoderInterop : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void matchesReference_data();
    void matchesReference();
    void paddingStaysOut_data();
    void paddingStaysOut();
    void exportRoundTrips_data();
    void exportRoundTrips();
    void dropoutRepeatsUnderOneKey();
    void narrowDtypesStayFinite();

private:
    void addFolders();
};

void TestEncoderInterop::initTestCase() {
    QFile status(referenceRoot() + "/status.txt");
    if (!status.open(QIODevice::ReadOnly)) {
        QSKIP("no reference: run tests/interop/encoder/setup.sh (the CTest fixture)");
    }
    const QString text = QString::fromUtf8(status.readAll()).trimmed();
    if (!text.startsWith("ok")) {
        QSKIP(qPrintable("encoder reference not available: " + text));
    }
    torch::manual_seed(0);
}

void TestEncoderInterop::addFolders() {
    QTest::addColumn<QString>("name");
    for (const char *name : {"bert", "bert-unprefixed", "bert-sharded", "distilbert"}) {
        QTest::newRow(name) << name;
    }
}

void TestEncoderInterop::matchesReference_data() {
    addFolders();
}

void TestEncoderInterop::matchesReference() {
    QFETCH(QString, name);
    const std::string folder = folderOf(name);
    headroom::models::BertEncoder encoder =
        headroom::hf::loadPretrainedEncoder(headroom::hf::locateModelFolder(folder));
    encoder->eval();
    torch::NoGradGuard no_grad;
    const auto reference = readTensors(folder + "/reference.safetensors");
    const torch::Tensor &inputs = reference.at("inputs");
    const torch::Tensor &mask = reference.at("attention_mask");
    const double hidden = maxDifference(encoder->hidden(inputs, mask), reference.at("hidden"));
    const double logits = maxDifference(encoder->mlmLogits(inputs, mask), reference.at("logits"));
    qInfo("%s: max |difference| hidden %.3g, logits %.3g", qPrintable(name), hidden, logits);
    QVERIFY2(hidden <= kTolerance, qPrintable(QString("max |hidden difference| %1").arg(hidden)));
    QVERIFY2(logits <= kTolerance, qPrintable(QString("max |logit difference| %1").arg(logits)));
}

void TestEncoderInterop::paddingStaysOut_data() {
    addFolders();
}

void TestEncoderInterop::paddingStaysOut() {
    QFETCH(QString, name);
    const std::string folder = folderOf(name);
    headroom::models::BertEncoder encoder =
        headroom::hf::loadPretrainedEncoder(headroom::hf::locateModelFolder(folder));
    encoder->eval();
    torch::NoGradGuard no_grad;
    const auto reference = readTensors(folder + "/reference.safetensors");
    const torch::Tensor &inputs = reference.at("inputs");
    const torch::Tensor &mask = reference.at("attention_mask");
    const torch::Tensor batched = encoder->mlmLogits(inputs, mask);
    // Other ids at the padded positions change nothing at the real ones.
    const torch::Tensor scrambled =
        torch::where(mask.to(torch::kBool), inputs, torch::randint(0, 280, inputs.sizes()));
    const torch::Tensor rescored = encoder->mlmLogits(scrambled, mask);
    for (std::int64_t row = 0; row < inputs.size(0); ++row) {
        const std::int64_t length = mask[row].sum().item<std::int64_t>();
        const torch::Tensor alone = encoder->mlmLogits(
            inputs.narrow(0, row, 1).narrow(1, 0, length), torch::ones({1, length}, torch::kLong));
        const double difference = maxDifference(alone[0], batched[row].narrow(0, 0, length));
        QVERIFY2(difference <= kTolerance,
                 qPrintable(QString("row %1: padded vs alone %2").arg(row).arg(difference)));
        QVERIFY(
            torch::equal(rescored[row].narrow(0, 0, length), batched[row].narrow(0, 0, length)));
    }
}

void TestEncoderInterop::exportRoundTrips_data() {
    addFolders();
}

void TestEncoderInterop::exportRoundTrips() {
    QFETCH(QString, name);
    const std::string source = folderOf(name);
    const headroom::hf::EncoderConfig config =
        headroom::hf::readEncoderConfig(source + "/config.json");
    const headroom::hf::ModelFolder located = headroom::hf::locateModelFolder(source);
    headroom::models::BertEncoder encoder = headroom::hf::loadPretrainedEncoder(located);
    encoder->eval();
    QTemporaryDir temporary;
    QVERIFY(temporary.isValid());
    const std::string exported = (temporary.path() + "/exported").toStdString();
    headroom::hf::exportEncoder(encoder, config, located, exported, 5000000000ULL);

    for (const char *file : {"config.json", "model.safetensors", "tokenizer.json", "vocab.txt",
                             "tokenizer_config.json", "special_tokens_map.json"}) {
        QVERIFY2(QFile::exists(QString::fromStdString(exported + "/" + file)), file);
    }
    // The names and shapes save_pretrained writes: exactly the expected tensors, all F32.
    std::set<std::string> expected_names;
    for (const auto &tensor : headroom::hf::expectedEncoderTensors(config)) {
        expected_names.insert(tensor.name);
    }
    std::set<std::string> written;
    for (const auto &[tensor, entry] :
         headroom::exporting::readSafetensorsHeader(exported + "/model.safetensors")) {
        written.insert(tensor);
        QCOMPARE(entry.dtype, std::string("F32"));
    }
    QVERIFY(written == expected_names);
    const headroom::hf::EncoderConfig reread =
        headroom::hf::readEncoderConfig(exported + "/config.json");
    QCOMPARE(reread.architecture, config.architecture);
    QCOMPARE(reread.activation, config.activation);
    QCOMPARE(parameterCount(reread), parameterCount(config));
    QCOMPARE(reread.torch_dtype, std::string("float32"));

    torch::NoGradGuard no_grad;
    const auto reference = readTensors(source + "/reference.safetensors");
    const torch::Tensor &inputs = reference.at("inputs");
    const torch::Tensor &mask = reference.at("attention_mask");
    headroom::models::BertEncoder reimported =
        headroom::hf::loadPretrainedEncoder(headroom::hf::locateModelFolder(exported));
    reimported->eval();
    QVERIFY(torch::equal(reimported->mlmLogits(inputs, mask), encoder->mlmLogits(inputs, mask)));

    // The reference reads the exported folder as transformers would and gives the same logits.
    const QString out = temporary.path() + "/python.safetensors";
    QProcess python;
    python.start(kPython,
                 {QStringLiteral(HEADROOM_SOURCE_DIR "/tests/interop/encoder/reference_encoder.py"),
                  QString::fromStdString(exported),
                  QString::fromStdString(source + "/reference.safetensors"), out});
    QVERIFY2(python.waitForFinished(120000), "the reference did not finish");
    QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
    const double difference =
        maxDifference(readTensors(out.toStdString()).at("logits"), reference.at("logits"));
    QVERIFY2(difference <= kTolerance,
             qPrintable(QString("reference on the export: %1").arg(difference)));
}

void TestEncoderInterop::dropoutRepeatsUnderOneKey() {
    headroom::models::BertEncoder encoder =
        headroom::hf::loadPretrainedEncoder(headroom::hf::locateModelFolder(folderOf("bert")));
    encoder->train();
    const auto reference = readTensors(folderOf("bert") + "/reference.safetensors");
    const torch::Tensor &inputs = reference.at("inputs");
    const torch::Tensor &mask = reference.at("attention_mask");
    const std::int64_t rows = inputs.size(0);
    const auto gradients = [&](std::uint64_t seed, std::int64_t checkpoint_every) {
        encoder->setCheckpointEvery(checkpoint_every);
        encoder->zero_grad();
        const headroom::models::ScopedDropoutKey key(seed, 0, rows);
        const torch::Tensor logits = encoder->mlmLogits(inputs, mask);
        logits.pow(2).mean().backward();
        std::vector<torch::Tensor> grads = {logits.detach()};
        for (const auto &parameter : encoder->parameters()) {
            grads.push_back(parameter.grad().clone());
        }
        return grads;
    };
    const auto first = gradients(7, 0);
    const auto again = gradients(7, 0);
    const auto checkpointed = gradients(7, 1);
    const auto other = gradients(8, 0);
    for (std::size_t i = 0; i < first.size(); ++i) {
        QVERIFY(torch::equal(first[i], again[i]));
        QVERIFY2(torch::allclose(first[i], checkpointed[i], 1e-5, 1e-6),
                 qPrintable(QString("checkpointed gradient %1 differs").arg(i)));
    }
    QVERIFY(!torch::equal(first[0], other[0])); // another key, other masks
    encoder->eval();
    torch::NoGradGuard no_grad;
    QVERIFY(maxDifference(encoder->mlmLogits(inputs, mask), reference.at("logits")) <= kTolerance);
    QVERIFY(!torch::allclose(first[0], reference.at("logits"))); // dropout was on in training
}

void TestEncoderInterop::narrowDtypesStayFinite() {
    // A row that is all padding, in an encoder converted to bf16 and under bf16 autocast: the
    // masked scores must not become -inf (NaN after the softmax). CPU LayerNorm has no fp16
    // kernel in LibTorch 1.13, so fp16 is not tried here.
    const std::string folder = folderOf("distilbert");
    const auto reference = readTensors(folder + "/reference.safetensors");
    torch::Tensor mask = reference.at("attention_mask").clone();
    mask[2].zero_();
    const torch::Tensor &inputs = reference.at("inputs");
    torch::NoGradGuard no_grad;
    headroom::models::BertEncoder encoder =
        headroom::hf::loadPretrainedEncoder(headroom::hf::locateModelFolder(folder));
    encoder->eval();
    const auto check = [&](const torch::Tensor &logits, const char *what) {
        QVERIFY2(torch::isfinite(logits).all().item<bool>(), what);
        const double difference = maxDifference(logits.narrow(0, 0, 2).to(torch::kFloat),
                                                reference.at("logits").narrow(0, 0, 2));
        QVERIFY2(difference < 0.5, qPrintable(QString("%1 off by %2").arg(what).arg(difference)));
    };
    {
        headroom::compat::AutocastState state;
        state.cpu_enabled = true;
        state.cpu_dtype = torch::kBFloat16;
        const headroom::compat::ScopedAutocastState autocast(state);
        check(encoder->mlmLogits(inputs, mask), "bf16 autocast");
    }
    encoder->to(torch::kBFloat16);
    const torch::Tensor logits = encoder->mlmLogits(inputs, mask);
    QCOMPARE(logits.scalar_type(), torch::kBFloat16);
    check(logits, "bf16 weights");
}

QTEST_GUILESS_MAIN(TestEncoderInterop)
#include "test_encoder_interop.moc"
