// config.json of BERT-family masked-LM encoders (hf/encoder_config.h) and the checks of their
// safetensors weights (hf/encoder_layout.h, hf/pretrained_encoder.h): published configs read
// into the right sizes and parameter counts, bad values and broken checkpoints refused with
// messages that name the key or the tensor.
#include "export/safetensors.h"
#include "hf/encoder_config.h"
#include "hf/encoder_layout.h"
#include "hf/hf_error.h"
#include "hf/pretrained_encoder.h"
#include "models/bert_encoder.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

using namespace headroom::hf;

namespace {

namespace fs = std::filesystem;

const std::string kSource = "/models/x/config.json";

// The hub's config.json files, as published.
const char *const kBertBase = R"({
  "architectures": ["BertForMaskedLM"], "attention_probs_dropout_prob": 0.1,
  "gradient_checkpointing": false, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
  "hidden_size": 768, "initializer_range": 0.02, "intermediate_size": 3072,
  "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "model_type": "bert",
  "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 0,
  "position_embedding_type": "absolute", "transformers_version": "4.6.0.dev0",
  "type_vocab_size": 2, "use_cache": true, "vocab_size": 30522
})";

const char *const kDistilBertBase = R"({
  "activation": "gelu", "architectures": ["DistilBertForMaskedLM"], "attention_dropout": 0.1,
  "dim": 768, "dropout": 0.1, "hidden_dim": 3072, "initializer_range": 0.02,
  "max_position_embeddings": 512, "model_type": "distilbert", "n_heads": 12, "n_layers": 6,
  "pad_token_id": 0, "qa_dropout": 0.1, "seq_classif_dropout": 0.2,
  "sinusoidal_pos_embds": false, "tie_weights_": true, "transformers_version": "4.10.0.dev0",
  "vocab_size": 30522
})";

EncoderConfig parse(const std::string &text) {
    return parseEncoderConfig(text, kSource);
}

std::string messageOf(const std::function<void()> &action) {
    try {
        action();
    } catch (const ModelFolderError &error) {
        return error.what();
    }
    return "(no ModelFolderError)";
}

void writeText(const std::string &path, const std::string &text) {
    std::ofstream(path) << text;
}

const std::string kTinyBert = R"({"model_type": "bert", "vocab_size": 10, "hidden_size": 16,
  "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 24,
  "max_position_embeddings": 8, "type_vocab_size": 2})";
const std::string kTinyDistilBert = R"({"model_type": "distilbert", "vocab_size": 10,
  "dim": 16, "n_layers": 1, "n_heads": 2, "hidden_dim": 24, "max_position_embeddings": 8})";

using Tensors = std::map<std::string, torch::Tensor>;

// A folder holding config_text and the weights of a fresh encoder built from it, as
// save_pretrained names them, changed by `change` before they are written.
void writeFolder(const std::string &folder, const std::string &config_text,
                 const std::function<void(Tensors &)> &change) {
    fs::create_directories(folder);
    writeText(folder + "/config.json", config_text);
    const EncoderConfig config = parse(config_text);
    headroom::models::BertEncoder encoder(bertEncoderOptions(config));
    Tensors tensors;
    for (const auto &item : encoder->named_parameters()) {
        tensors[encoder->checkpointName(item.key())] = item.value().detach();
    }
    change(tensors);
    std::vector<headroom::exporting::TensorView> views;
    for (const auto &[name, tensor] : tensors) {
        headroom::exporting::TensorView view;
        view.name = name;
        view.dtype = tensor.scalar_type() == torch::kInt ? "I32" : "F32";
        view.shape = tensor.sizes().vec();
        view.data = tensor.data_ptr();
        view.bytes = static_cast<std::uint64_t>(tensor.nbytes());
        views.push_back(view);
    }
    headroom::exporting::writeSafetensors(folder + "/model.safetensors", views, {});
}

} // namespace

class TestEncoderConfig : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void readsPublishedConfigs();
    void badValuesNameTheKey_data();
    void badValuesNameTheKey();
    void recognisesEncoderFolders();
    void brokenCheckpointsNameTheTensor_data();
    void brokenCheckpointsNameTheTensor();
    void acceptsWhatSavePretrainedWrites();
};

void TestEncoderConfig::readsPublishedConfigs() {
    const EncoderConfig bert = parse(kBertBase);
    QCOMPARE(bert.architecture, std::string("BertForMaskedLM"));
    QCOMPARE(bert.family, EncoderFamily::Bert);
    QCOMPARE(bert.hidden_size, 768);
    QCOMPARE(bert.layers, 12);
    QCOMPARE(bert.type_vocab_size, 2);
    QCOMPARE(bert.activation, std::string("gelu"));
    QCOMPARE(bert.pad_token_id, std::optional<std::int64_t>(0));
    // transformers' count for BertForMaskedLM (bert-base-uncased, no pooler).
    QCOMPARE(parameterCount(bert), 109514298);

    const EncoderConfig distil = parse(kDistilBertBase);
    QCOMPARE(distil.architecture, std::string("DistilBertForMaskedLM"));
    QCOMPARE(distil.family, EncoderFamily::DistilBert);
    QCOMPARE(distil.layers, 6);
    QCOMPARE(distil.intermediate_size, 3072);
    QCOMPARE(distil.type_vocab_size, 0);
    QCOMPARE(distil.layer_norm_eps, 1e-12);
    QCOMPARE(parameterCount(distil), 66985530); // distilbert-base-uncased

    // BertForPreTraining carries the same MLM head; the tanh GELU has three spellings.
    const EncoderConfig pretraining =
        parse(R"({"architectures": ["BertForPreTraining"], "hidden_act": "gelu_pytorch_tanh"})");
    QCOMPARE(pretraining.architecture, std::string("BertForMaskedLM"));
    QCOMPARE(pretraining.activation, std::string("gelu_tanh"));
    QCOMPARE(parse(R"({"model_type": "bert", "pad_token_id": null})").pad_token_id,
             std::optional<std::int64_t>());
}

void TestEncoderConfig::badValuesNameTheKey_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("expected");
    QTest::newRow("malformed") << "{"
                               << "config.json: malformed JSON";
    QTest::newRow("not an object") << "[1]"
                                   << "the top level is an array";
    QTest::newRow("no kind") << "{}"
                             << "names neither architectures nor model_type";
    QTest::newRow("causal") << R"({"architectures": ["GPT2LMHeadModel"]})"
                            << "\"GPT2LMHeadModel\", which is not a BERT-family encoder";
    QTest::newRow("no head") << R"({"architectures": ["BertModel"]})"
                             << "\"BertModel\", which has no masked-language-model head";
    QTest::newRow("mismatch") << R"({"architectures": ["DistilBertForMaskedLM"],
                                     "model_type": "bert"})"
                              << "model_type \"bert\" does not fit architectures";
    QTest::newRow("model_type") << R"({"model_type": "roberta"})"
                                << "model_type is \"roberta\", expected \"bert\" or";
    QTest::newRow("activation") << R"({"model_type": "bert", "hidden_act": "silu"})"
                                << "config.json: hidden_act is \"silu\", expected \"gelu\"";
    QTest::newRow("distil activation") << R"({"model_type": "distilbert", "activation": "tanh"})"
                                       << "config.json: activation is \"tanh\", expected";
    QTest::newRow("sinusoidal") << R"({"model_type": "distilbert", "sinusoidal_pos_embds": true})"
                                << "sinusoidal_pos_embds is true, expected false";
    QTest::newRow("relative") << R"({"model_type": "bert",
                                     "position_embedding_type": "relative_key"})"
                              << "position_embedding_type is \"relative_key\", expected "
                                 "\"absolute\"";
    QTest::newRow("decoder") << R"({"model_type": "bert", "is_decoder": true})"
                             << "is_decoder is true, expected false";
    QTest::newRow("vocab type") << R"({"model_type": "bert", "vocab_size": "big"})"
                                << "vocab_size is \"big\", expected an integer from 1";
    QTest::newRow("heads") << R"({"model_type": "bert", "hidden_size": 30})"
                           << "num_attention_heads is 12 (the default), expected a divisor of "
                              "hidden_size 30";
    QTest::newRow("distil heads") << R"({"model_type": "distilbert", "dim": 10, "n_heads": 4})"
                                  << "n_heads is 4, expected a divisor of dim 10";
    QTest::newRow("dropout") << R"({"model_type": "bert", "hidden_dropout_prob": 1.5})"
                             << "hidden_dropout_prob is 1.5, expected a number from 0 to 0.99";
    QTest::newRow("pad") << R"({"model_type": "bert", "pad_token_id": "0"})"
                         << "pad_token_id is \"0\", expected an integer or null";
}

void TestEncoderConfig::badValuesNameTheKey() {
    QFETCH(QString, json);
    QFETCH(QString, expected);
    const std::string message = messageOf([&] { parse(json.toStdString()); });
    QVERIFY2(message.rfind(kSource, 0) == 0, message.c_str());
    QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
}

void TestEncoderConfig::recognisesEncoderFolders() {
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/config.json").toStdString();
    const std::vector<std::pair<std::string, bool>> cases = {
        {kBertBase, true},
        {kDistilBertBase, true},
        {R"({"architectures": ["BertModel"]})", true}, // refused later, with a reason
        {R"({"model_type": "llama"})", false},
        {R"({"architectures": ["GPT2LMHeadModel"]})", false},
        {"{ not json", false},
    };
    for (const auto &[text, encoder] : cases) {
        writeText(path, text);
        QVERIFY2(isEncoderArchitecture(path) == encoder, text.c_str());
    }
    QVERIFY(!isEncoderArchitecture((dir.path() + "/missing.json").toStdString()));
}

void TestEncoderConfig::brokenCheckpointsNameTheTensor_data() {
    QTest::addColumn<QString>("config");
    QTest::addColumn<QString>("change");
    QTest::addColumn<QStringList>("expected");
    const QString bert = QString::fromStdString(kTinyBert);
    QTest::newRow("missing") << bert << "missing"
                             << QStringList{"lack 1 tensor that config.json needs",
                                            "bert.encoder.layer.1.output.dense.bias [16]"};
    QTest::newRow("shape") << bert << "shape"
                           << QStringList{"tensor bert.encoder.layer.0.attention.self.query.weight",
                                          "has shape [16, 8]", "(hidden_size 16) needs [16, 16]"};
    QTest::newRow("intermediate")
        << bert << "intermediate"
        << QStringList{"tensor bert.encoder.layer.1.intermediate.dense.weight has shape [20, 16]",
                       "(hidden_size 16, intermediate_size 24) needs [24, 16]"};
    QTest::newRow("unexpected") << bert << "unexpected"
                                << QStringList{"unexpected tensor bert.encoder.layer.2.output."
                                               "dense.bias",
                                               "with 2 layers"};
    QTest::newRow("tied decoder") << bert << "decoder"
                                  << QStringList{"tensor cls.predictions.decoder.weight has shape "
                                                 "[9, 16]",
                                                 "needs [10, 16] (tie_word_embeddings"};
    QTest::newRow("dtype") << bert << "dtype"
                           << QStringList{"tensor cls.predictions.bias has dtype I32"};
    QTest::newRow("nan") << bert << "nan"
                         << QStringList{"tensor bert.embeddings.LayerNorm.weight holds NaN"};
    QTest::newRow("twice") << bert << "twice"
                           << QStringList{"tensor bert.embeddings.LayerNorm.bias is stored twice"};
    QTest::newRow("distil missing") << QString::fromStdString(kTinyDistilBert) << "distil"
                                    << QStringList{"vocab_projector.bias [10]"};
}

void TestEncoderConfig::brokenCheckpointsNameTheTensor() {
    QFETCH(QString, config);
    QFETCH(QString, change);
    QFETCH(QStringList, expected);
    const std::map<QString, std::function<void(Tensors &)>> changes = {
        {"missing",
         [](Tensors &t) {
             t.erase("bert.encoder.layer.1.output.dense.bias");
         }},
        {"shape",
         [](Tensors &t) {
             t["bert.encoder.layer.0.attention.self.query.weight"] = torch::zeros({16, 8});
         }},
        {"intermediate",
         [](Tensors &t) {
             t["bert.encoder.layer.1.intermediate.dense.weight"] = torch::zeros({20, 16});
         }},
        {"unexpected",
         [](Tensors &t) {
             t["bert.encoder.layer.2.output.dense.bias"] = torch::zeros({16});
         }},
        {"decoder",
         [](Tensors &t) {
             t["cls.predictions.decoder.weight"] = torch::zeros({9, 16});
         }},
        {"dtype",
         [](Tensors &t) {
             t["cls.predictions.bias"] = torch::zeros({10}, torch::kInt);
         }},
        {"nan",
         [](Tensors &t) {
             t["bert.embeddings.LayerNorm.weight"] = torch::full({16}, NAN);
         }},
        {"twice",
         [](Tensors &t) {
             t["embeddings.LayerNorm.bias"] = t["bert.embeddings.LayerNorm.bias"];
         }},
        {"distil",
         [](Tensors &t) {
             t.erase("vocab_projector.bias");
         }},
    };
    QTemporaryDir dir;
    const std::string folder = (dir.path() + "/model").toStdString();
    writeFolder(folder, config.toStdString(), changes.at(change));
    const std::string message =
        messageOf([&] { loadPretrainedEncoder(locateModelFolder(folder)); });
    for (const QString &part : expected) {
        QVERIFY2(message.find(part.toStdString()) != std::string::npos, message.c_str());
    }
}

void TestEncoderConfig::acceptsWhatSavePretrainedWrites() {
    // Old and new spellings of the same checkpoint all load to the same encoder.
    QTemporaryDir dir;
    Tensors original;
    const std::vector<std::pair<std::string, std::function<void(Tensors &)>>> variants = {
        {"plain",
         [&](Tensors &t) {
             original = t;
         }},
        {"unprefixed",
         [](Tensors &t) {
             Tensors renamed;
             for (const auto &[name, tensor] : t) {
                 renamed[name.rfind("bert.", 0) == 0 ? name.substr(5) : name] = tensor;
             }
             t = renamed;
         }},
        {"legacy",
         [](Tensors &t) {
             t["cls.predictions.decoder.bias"] = t["cls.predictions.bias"];
             t.erase("cls.predictions.bias");
             t["cls.predictions.decoder.weight"] = t["bert.embeddings.word_embeddings.weight"];
             t["bert.pooler.dense.weight"] = torch::zeros({16, 16});
             t["cls.seq_relationship.bias"] = torch::zeros({2});
             t["bert.embeddings.position_ids"] = torch::zeros({1, 8}, torch::kInt);
             t["bert.embeddings.LayerNorm.gamma"] = t["bert.embeddings.LayerNorm.weight"];
             t.erase("bert.embeddings.LayerNorm.weight");
         }},
    };
    torch::manual_seed(3);
    for (const auto &[name, change] : variants) {
        torch::manual_seed(3); // the same random weights every time
        const std::string folder = (dir.path() + "/").toStdString() + name;
        writeFolder(folder, kTinyBert, change);
        headroom::models::BertEncoder encoder = loadPretrainedEncoder(locateModelFolder(folder));
        for (const auto &item : encoder->named_parameters()) {
            const std::string stored = encoder->checkpointName(item.key());
            QVERIFY2(torch::equal(item.value(), original.at(stored)),
                     (name + ": " + stored).c_str());
        }
    }
}

QTEST_GUILESS_MAIN(TestEncoderConfig)
#include "test_encoder_config.moc"
