// The SPLADE step's memory model (plan/encoder_memory_model.h) against the ground truth: the
// counting CPU allocator's peak over real training steps of BERT and DistilBERT folders written
// here, with a vocabulary large enough that the MLM head's logits matter, over shapes, hard
// negatives, accumulation, precision, checkpointing and the 8-bit optimizer.
#include "export/safetensors.h"
#include "hf/encoder_config.h"
#include "hf/encoder_layout.h"
#include "plan/model_facts.h"
#include "sample_files.h"
#include "training_support.h"

#include <headroom/plan.h>
#include <headroom/project.h>
#include <headroom/session.h>
#include <headroom/workflow.h>

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

using namespace headroom;
using namespace test_support;

namespace {

const QStringList kMeasure = {"train.steps=2", "train.eval_every=0", "train.checkpoint_every=0",
                              "train.warmup_steps=1", "data.validation_fraction=0"};

const char *const kBert = R"({"architectures": ["BertForMaskedLM"], "model_type": "bert",
  "vocab_size": 6000, "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
  "intermediate_size": 128, "max_position_embeddings": 256, "type_vocab_size": 2,
  "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
  "layer_norm_eps": 1e-12, "pad_token_id": 0})";
const char *const kDistilBert = R"({"architectures": ["DistilBertForMaskedLM"],
  "model_type": "distilbert", "vocab_size": 6000, "dim": 64, "n_layers": 2, "n_heads": 4,
  "hidden_dim": 128, "max_position_embeddings": 256, "activation": "gelu", "dropout": 0.1,
  "attention_dropout": 0.1, "pad_token_id": 0, "sinusoidal_pos_embds": false})";

// config.json, small random F32 weights (LayerNorms at one and zero) and the WordPiece tokenizer
// of the tokenizer tests.
QString writeEncoderFolder(const QDir &parent, const QString &name, const char *config_json) {
    const std::filesystem::path folder = parent.filePath(name).toStdString();
    std::filesystem::create_directories(folder);
    std::ofstream(folder / "config.json") << config_json;
    std::filesystem::copy_file(std::string(HEADROOM_SOURCE_DIR) +
                                   "/tests/data/tokenizers/wordpiece_bert/tokenizer.json",
                               folder / "tokenizer.json");
    const hf::EncoderConfig config = hf::parseEncoderConfig(config_json, "config.json");
    std::mt19937 random(11);
    std::normal_distribution<float> normal(0.0F, 0.05F);
    std::vector<std::vector<float>> data;
    std::vector<exporting::TensorView> views;
    const std::vector<hf::ExpectedTensor> tensors = hf::expectedEncoderTensors(config);
    data.reserve(tensors.size());
    for (const hf::ExpectedTensor &tensor : tensors) {
        std::int64_t count = 1;
        for (const std::int64_t size : tensor.shape) {
            count *= size;
        }
        const bool norm = tensor.name.find("LayerNorm") != std::string::npos ||
                          tensor.name.find("layer_norm") != std::string::npos;
        const bool bias =
            tensor.name.size() > 4 && tensor.name.compare(tensor.name.size() - 4, 4, "bias") == 0;
        std::vector<float> values(static_cast<std::size_t>(count));
        for (float &value : values) {
            value = bias ? 0.0F : norm ? 1.0F : normal(random);
        }
        data.push_back(std::move(values));
        views.push_back({tensor.name, "F32", tensor.shape, data.back().data(),
                         static_cast<std::uint64_t>(count) * 4});
    }
    exporting::writeSafetensors((folder / "model.safetensors").string(), views, {{"format", "pt"}});
    return QString::fromStdString(folder.string());
}

// Texts longer than any sequence length measured: every text fills model.seq_len, the length
// the model plans for.
QByteArray longRecords() {
    const char *const words[] = {"hello", "world", "new",  "york",  "text", "token",
                                 "words", "they",  "cafe", "brown", "caps", "the"};
    std::mt19937 random(3);
    const auto text = [&] {
        std::string out;
        for (int i = 0; i < 300; ++i) {
            out += std::string(out.empty() ? "" : " ") + words[random() % 12];
        }
        return out;
    };
    std::string lines;
    for (int i = 0; i < 64; ++i) {
        lines += R"({"query": ")" + text() + R"(", "positive": ")" + text() +
                 R"(", "negatives": [")" + text() + R"(", ")" + text() + "\"]}\n";
    }
    return QByteArray::fromStdString(lines);
}

QString createSpladeProject(const QString &project_path, const QString &data_path,
                            const QString &base) {
    NewProjectRequest request;
    request.project_path = project_path.toStdString();
    request.data_path = data_path.toStdString();
    request.base_path = base.toStdString();
    request.overrides = {"model.seq_len=32", "train.micro_batch=4"};
    createProject(request, [](const std::string &) {});
    return project_path;
}

MemoryEstimate estimateFor(const QString &project_path, const QStringList &settings) {
    Project project = Project::openForReading(project_path.toStdString());
    Config config = Config::fromJson(project.configJson());
    for (const std::string &assignment : toStd(kMeasure + settings)) {
        config.setAssignment(assignment);
    }
    return estimateMemory(config, plan::storedModelFacts(config, project));
}

} // namespace

class TestSpladeMemory : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    QString bert_;
    QString distilbert_;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const QDir folder(dir_.path());
        const QString data = writeFile(folder, "pairs.jsonl", longRecords());
        bert_ = createSpladeProject(folder.filePath("bert.headroom"), data,
                                    writeEncoderFolder(folder, "bert", kBert));
        distilbert_ = createSpladeProject(folder.filePath("distilbert.headroom"), data,
                                          writeEncoderFolder(folder, "distilbert", kDistilBert));
    }

    void predictsTheAllocatorPeak_data() {
        QTest::addColumn<bool>("distil");
        QTest::addColumn<QStringList>("settings");
        QTest::newRow("bert 4 x 32") << false << QStringList{};
        QTest::newRow("bert 8 x 64")
            << false << QStringList{"train.micro_batch=8", "model.seq_len=64"};
        QTest::newRow("bert 2 x 16")
            << false << QStringList{"train.micro_batch=2", "model.seq_len=16"};
        QTest::newRow("bert accumulation") << false << QStringList{"train.accumulation=2"};
        QTest::newRow("bert two negatives") << false << QStringList{"splade.hard_negatives=2"};
        QTest::newRow("bert checkpointing")
            << false << QStringList{"checkpointing=1", "model.seq_len=64"};
        QTest::newRow("bert 8-bit AdamW") << false << QStringList{"optimizer=adamw8bit"};
        QTest::newRow("distilbert 4 x 32") << true << QStringList{};
        QTest::newRow("distilbert 8 x 64")
            << true << QStringList{"train.micro_batch=8", "model.seq_len=64"};
    }

    // Every prediction within 10 % of the measured peak.
    void predictsTheAllocatorPeak() {
        QFETCH(bool, distil);
        QFETCH(QStringList, settings);
        const QString project = distil ? distilbert_ : bert_;
        const MemoryEstimate estimate = estimateFor(project, settings);
        const std::uint64_t measured = measuredPeak(project, kMeasure + settings);
        QVERIFY(measured > 0);
        const double error = (static_cast<double>(estimate.peak) - static_cast<double>(measured)) /
                             static_cast<double>(measured);
        qInfo("%-10s %-40s measured %9llu predicted %9llu error %+6.2f %%",
              distil ? "distilbert" : "bert", qPrintable(settings.join(' ')),
              static_cast<unsigned long long>(measured),
              static_cast<unsigned long long>(estimate.peak), 100 * error);
        QVERIFY2(std::abs(error) <= 0.10,
                 qPrintable(QString("predicted %1, measured %2").arg(estimate.peak).arg(measured)));
    }

    void describesTheEncoderAndAddsUp() {
        const MemoryEstimate estimate = estimateFor(bert_, {});
        QVERIFY2(QString::fromStdString(estimate.model).startsWith("BertForMaskedLM · 2 layers"),
                 estimate.model.c_str());
        QCOMPARE(estimate.trainable, estimate.parameters);
        QCOMPARE(estimate.weights, static_cast<std::uint64_t>(4 * estimate.parameters));
        QCOMPARE(estimate.model_peak, estimate.weights + estimate.gradients + estimate.optimizer +
                                          estimate.activations + estimate.overhead);
        // More hard negatives, longer texts: more memory.
        QVERIFY(estimateFor(bert_, {"splade.hard_negatives=3"}).peak > estimate.peak);
        QVERIFY(estimateFor(bert_, {"model.seq_len=64"}).peak > estimate.peak);
    }
};

QTEST_GUILESS_MAIN(TestSpladeMemory)
#include "test_splade_memory.moc"
