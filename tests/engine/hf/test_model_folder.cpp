#include "export/safetensors.h"
#include "hf/architecture_config.h"
#include "hf/checkpoint_layout.h"
#include "hf/generation_defaults.h"
#include "hf/hf_error.h"
#include "hf/model_folder.h"
#include "hf/safetensors_file.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

using namespace headroom::hf;

namespace {

namespace fs = std::filesystem;

// Small enough to write whole checkpoints of.
const char *const kLlama = R"({"architectures": ["LlamaForCausalLM"], "vocab_size": 16,
  "hidden_size": 8, "intermediate_size": 12, "num_hidden_layers": 2, "num_attention_heads": 2,
  "num_key_value_heads": 1, "max_position_embeddings": 32, "bos_token_id": 1,
  "eos_token_id": 2})";
const char *const kGpt2 = R"({"architectures": ["GPT2LMHeadModel"], "vocab_size": 16,
  "n_embd": 8, "n_head": 2, "n_layer": 1, "n_positions": 8})";

std::string errorOf(const std::function<void()> &action) {
    try {
        action();
    } catch (const ModelFolderError &error) {
        return error.what();
    }
    return "(no error)";
}

bool contains(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}

#define QVERIFY_CONTAINS(text, part)                                                               \
    QVERIFY2(contains((text), (part)), (std::string(text) + "\n  lacks: " + (part)).c_str())

void writeText(const fs::path &path, const std::string &text) {
    std::ofstream(path, std::ios::binary) << text;
}

struct StoredTensor {
    std::string name;
    std::vector<std::int64_t> shape;
    std::string dtype = "F32";
};

// Zero-filled tensors in one safetensors file.
void writeTensors(const fs::path &path, const std::vector<StoredTensor> &tensors) {
    std::vector<std::vector<char>> buffers;
    std::vector<headroom::exporting::TensorView> views;
    buffers.reserve(tensors.size());
    for (const StoredTensor &tensor : tensors) {
        std::int64_t numel = 1;
        for (const std::int64_t dimension : tensor.shape) {
            numel *= dimension;
        }
        const auto bytes = static_cast<std::uint64_t>(numel) * safetensorsDtypeSize(tensor.dtype);
        buffers.emplace_back(bytes);
        views.push_back({tensor.name, tensor.dtype, tensor.shape, buffers.back().data(), bytes});
    }
    headroom::exporting::writeSafetensors(path.string(), views, {{"format", "pt"}});
}

std::vector<StoredTensor> storedAs(const ArchitectureConfig &config) {
    std::vector<StoredTensor> tensors;
    for (const ExpectedTensor &tensor : expectedTensors(config)) {
        tensors.push_back({tensor.name, tensor.shape});
    }
    return tensors;
}

// A folder with config.json and model.safetensors holding `tensors`.
ModelFolder writeFolder(const fs::path &folder, const std::string &config,
                        const std::vector<StoredTensor> &tensors) {
    fs::create_directories(folder);
    writeText(folder / "config.json", config);
    writeTensors(folder / "model.safetensors", tensors);
    return locateModelFolder(folder.string());
}

std::map<std::string, LocatedTensor> validate(const ModelFolder &folder,
                                              const ArchitectureConfig &config) {
    std::vector<SafetensorsFile> files;
    for (const std::string &path : folder.weight_files) {
        files.push_back(SafetensorsFile::open(path));
    }
    return validateCheckpoint(folder, config, files);
}

// The llama tensors with one changed by `edit` (or removed when it returns false).
std::vector<StoredTensor> llamaTensorsWith(const std::string &name,
                                           const std::function<bool(StoredTensor &)> &edit) {
    std::vector<StoredTensor> tensors;
    for (StoredTensor tensor : storedAs(parseArchitectureConfig(kLlama, "config.json"))) {
        if (tensor.name != name || edit(tensor)) {
            tensors.push_back(tensor);
        }
    }
    return tensors;
}

} // namespace

class TestModelFolder : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void folderLayouts();
    void foldersWithoutWeights_data();
    void foldersWithoutWeights();
    void badIndexes_data();
    void badIndexes();
    void validCheckpoints();
    void badCheckpoints_data();
    void badCheckpoints();
    void shardedCheckpoints();
    void generationDefaults();
    void badGenerationFiles();
};

void TestModelFolder::folderLayouts() {
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    const fs::path single = root / "single";
    fs::create_directories(single);
    writeText(single / "config.json", kLlama);
    writeTensors(single / "model.safetensors", {});
    writeText(single / "vocab.json", "{}");
    ModelFolder folder = locateModelFolder((single.string() + "/"));
    QCOMPARE(folder.folder, single.string());
    QCOMPARE(folder.config_path, (single / "config.json").string());
    QCOMPARE(folder.weight_files,
             std::vector<std::string>{(single / "model.safetensors").string()});
    QVERIFY(folder.index_weight_map.empty());
    QVERIFY(!folder.generation_config_path && !folder.tokenizer_config_path);
    QVERIFY(!folder.has_tokenizer); // vocab.json needs merges.txt
    writeText(single / "merges.txt", "");
    writeText(single / "generation_config.json", "{}");
    writeText(single / "tokenizer_config.json", "{}");
    folder = locateModelFolder(single.string());
    QVERIFY(folder.has_tokenizer);
    QCOMPARE(folder.generation_config_path,
             std::optional((single / "generation_config.json").string()));
    QCOMPARE(folder.tokenizer_config_path,
             std::optional((single / "tokenizer_config.json").string()));

    // Shards in the order the index first names them, whatever their file names.
    const fs::path sharded = root / "sharded";
    fs::create_directories(sharded);
    writeText(sharded / "config.json", kLlama);
    writeTensors(sharded / "b.safetensors", {});
    writeTensors(sharded / "a.safetensors", {});
    writeText(sharded / "model.safetensors.index.json",
              R"({"metadata": {"total_size": 8}, "weight_map": {"z": "b.safetensors",
                  "y": "a.safetensors", "x": "b.safetensors"}})");
    writeText(sharded / "vocab.txt", "");
    const QString relative =
        QDir::current().relativeFilePath(QString::fromStdString(sharded.string()));
    folder = locateModelFolder(relative.toStdString());
    QCOMPARE(folder.folder, sharded.string());
    QCOMPARE(folder.weight_files, (std::vector<std::string>{(sharded / "b.safetensors").string(),
                                                            (sharded / "a.safetensors").string()}));
    QCOMPARE(folder.index_weight_map.size(), std::size_t{3});
    QCOMPARE(folder.index_weight_map.at("y"), (sharded / "a.safetensors").string());
    QVERIFY(folder.has_tokenizer);
}

void TestModelFolder::foldersWithoutWeights_data() {
    QTest::addColumn<QStringList>("files");
    QTest::addColumn<QString>("expected");
    const QString pickle = " is a pickle checkpoint, and pickle checkpoints are not read";
    QTest::newRow("pytorch_model.bin")
        << QStringList{"config.json", "pytorch_model.bin"} << "pytorch_model.bin" + pickle;
    QTest::newRow("pickle shards") << QStringList{"config.json", "pytorch_model-00001-of-00002.bin"}
                                   << "pytorch_model-00001-of-00002.bin" + pickle;
    QTest::newRow(".pt") << QStringList{"config.json", "weights.pt"} << "weights.pt" + pickle;
    QTest::newRow(".pth") << QStringList{"config.json", "consolidated.00.pth"}
                          << "consolidated.00.pth" + pickle;
    QTest::newRow("conversion hint")
        << QStringList{"config.json", "pytorch_model.bin"} << "save_pretrained(";
    QTest::newRow("nothing") << QStringList{"config.json"}
                             << ": no model.safetensors or model.safetensors.index.json";
    QTest::newRow("adapter") << QStringList{"config.json", "adapter_config.json",
                                            "adapter_model.safetensors"}
                             << "this is a PEFT adapter";
    QTest::newRow("no config") << QStringList{"model.safetensors"} << ": no config.json";
}

void TestModelFolder::foldersWithoutWeights() {
    QFETCH(QStringList, files);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const fs::path folder = dir.path().toStdString();
    for (const QString &name : files) {
        writeText(folder / name.toStdString(), "{}");
    }
    const std::string message = errorOf([&] { locateModelFolder(folder.string()); });
    QVERIFY_CONTAINS(message, folder.string() + ": ");
    QVERIFY_CONTAINS(message, expected.toStdString());
}

void TestModelFolder::badIndexes_data() {
    QTest::addColumn<QString>("index");
    QTest::addColumn<QString>("expected");
    QTest::newRow("not JSON") << "{\"weight_map\": "
                              << "malformed JSON: parse error";
    QTest::newRow("no weight_map") << R"({"metadata": {}})"
                                   << "weight_map is missing";
    QTest::newRow("weight_map list") << R"({"weight_map": ["a.safetensors"]})"
                                     << "weight_map is missing, expected an object";
    QTest::newRow("not a string") << R"({"weight_map": {"w": 3}})"
                                  << "weight_map entry \"w\" is 3, expected the file name";
    QTest::newRow("subfolder") << R"({"weight_map": {"w": "sub/a.safetensors"}})"
                               << "weight_map entry \"w\" is \"sub/a.safetensors\"";
    QTest::newRow("parent") << R"({"weight_map": {"w": ".."}})"
                            << "is \"..\", expected";
    QTest::newRow("absolute") << R"({"weight_map": {"w": "/etc/passwd"}})"
                              << "is \"/etc/passwd\", expected";
    QTest::newRow("empty") << R"({"weight_map": {}})"
                           << "weight_map is empty";
    QTest::newRow("missing shard")
        << R"({"weight_map": {"a": "present.safetensors", "w": "model-00002-of-00002.safetensors"}})"
        << "the shard model-00002-of-00002.safetensors (holding \"w\") is missing";
}

void TestModelFolder::badIndexes() {
    QFETCH(QString, index);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const fs::path folder = dir.path().toStdString();
    writeText(folder / "config.json", kLlama);
    writeTensors(folder / "present.safetensors", {});
    const fs::path index_path = folder / "model.safetensors.index.json";
    writeText(index_path, index.toStdString());
    const std::string message = errorOf([&] { locateModelFolder(folder.string()); });
    QVERIFY_CONTAINS(message, index_path.string() + ": ");
    QVERIFY_CONTAINS(message, expected.toStdString());
}

void TestModelFolder::validCheckpoints() {
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    const ArchitectureConfig llama = parseArchitectureConfig(kLlama, "config.json");
    std::vector<StoredTensor> tensors = storedAs(llama);
    tensors.push_back({"model.layers.0.self_attn.rotary_emb.inv_freq", {2}});
    tensors[1].dtype = "BF16";
    tensors[2].dtype = "F16";
    ModelFolder folder = writeFolder(root / "llama", kLlama, tensors);
    auto located = validate(folder, llama);
    QCOMPARE(located.size(), expectedTensors(llama).size());
    QCOMPARE(located.at("model.layers.0.input_layernorm.weight").record.dtype, std::string("BF16"));
    QCOMPARE(located.at("lm_head.weight").record.shape, (std::vector<std::int64_t>{16, 8}));

    // GPT-2 as the hub stores it: saved from GPT2Model (no "transformer." prefix), with the
    // causal-mask buffers, no lm_head (tied).
    const ArchitectureConfig gpt2 = parseArchitectureConfig(kGpt2, "config.json");
    tensors.clear();
    for (const ExpectedTensor &tensor : expectedTensors(gpt2)) {
        tensors.push_back({tensor.name.substr(std::string("transformer.").size()), tensor.shape});
    }
    tensors.push_back({"h.0.attn.bias", {1, 1, 8, 8}, "BOOL"});
    tensors.push_back({"h.0.attn.masked_bias", {}, "F32"});
    folder = writeFolder(root / "gpt2", kGpt2, tensors);
    located = validate(folder, gpt2);
    QCOMPARE(located.size(), expectedTensors(gpt2).size());
    QCOMPARE(located.at("transformer.h.0.attn.c_attn.weight").record.name,
             std::string("h.0.attn.c_attn.weight"));
    QCOMPARE(located.at("transformer.h.0.attn.c_attn.weight").record.shape,
             (std::vector<std::int64_t>{8, 24}));
    QCOMPARE(located.at("transformer.wte.weight").file, std::size_t{0});

    // A tied model that stores lm_head.weight anyway: accepted, not returned.
    tensors = storedAs(gpt2);
    tensors.push_back({"lm_head.weight", {16, 8}});
    folder = writeFolder(root / "gpt2-head", kGpt2, tensors);
    QCOMPARE(validate(folder, gpt2).count("lm_head.weight"), std::size_t{0});
    tensors.back().shape = {16, 4};
    folder = writeFolder(root / "gpt2-bad-head", kGpt2, tensors);
    QVERIFY_CONTAINS(errorOf([&] { validate(folder, gpt2); }),
                     "tensor lm_head.weight has shape [16, 4], config.json (vocab_size 16, n_embd "
                     "8) needs [16, 8] (tie_word_embeddings");
}

void TestModelFolder::badCheckpoints_data() {
    QTest::addColumn<QString>("tensor");
    QTest::addColumn<QString>("change");
    QTest::addColumn<QString>("expected");
    QTest::newRow("missing") << "model.norm.weight"
                             << "remove"
                             << "lack 1 tensor that config.json needs: model.norm.weight [8]";
    QTest::newRow("wrong shape")
        << "model.layers.1.self_attn.q_proj.weight"
        << "shape"
        << "model.safetensors: tensor model.layers.1.self_attn.q_proj.weight has shape [8, 4], "
           "config.json (hidden_size 8, num_attention_heads 2, head_dim 4) needs [8, 8]";
    QTest::newRow("kv shape") << "model.layers.0.self_attn.k_proj.weight"
                              << "shape"
                              << "(hidden_size 8, num_key_value_heads 1, head_dim 4) needs [4, 8]";
    QTest::newRow("I32") << "model.embed_tokens.weight"
                         << "I32"
                         << "tensor model.embed_tokens.weight belongs to a model already "
                            "quantized by another tool (I32 weights); Headroom imports F32, F16 "
                            "or BF16 weights";
    QTest::newRow("GPTQ") << "model.layers.0.self_attn.q_proj.weight"
                          << "gptq"
                          << "tensor model.layers.0.self_attn.q_proj.qweight belongs to a model "
                             "already quantized by another tool (GPTQ/AWQ)";
    QTest::newRow("bitsandbytes") << "model.layers.1.mlp.down_proj.weight"
                                  << "bnb"
                                  << "down_proj.weight.absmax belongs to a model already "
                                     "quantized by another tool (bitsandbytes); Headroom "
                                     "imports F32, F16 or BF16 weights and quantizes the frozen "
                                     "base itself (model.base_dtype=int8 or nf4)";
    QTest::newRow("F64") << "lm_head.weight"
                         << "F64"
                         << "has dtype F64";
    QTest::newRow("LoRA") << "model.layers.0.mlp.up_proj.weight"
                          << "lora"
                          << "unexpected tensor model.layers.0.mlp.up_proj.lora_A.weight: a "
                             "LlamaForCausalLM with 2 layers as config.json describes has no such "
                             "weight (a LoRA adapter's weight";
    QTest::newRow("extra layer") << "model.norm.weight"
                                 << "layer"
                                 << "unexpected tensor model.layers.2.input_layernorm.weight";
    QTest::newRow("twice in one file") << "model.norm.weight"
                                       << "unprefixed"
                                       << "tensor model.norm.weight is stored twice: as "
                                          "model.norm.weight in ";
}

void TestModelFolder::badCheckpoints() {
    QFETCH(QString, tensor);
    QFETCH(QString, change);
    QFETCH(QString, expected);
    std::vector<StoredTensor> extra;
    const auto tensors = llamaTensorsWith(tensor.toStdString(), [&](StoredTensor &stored) {
        if (change == "shape") {
            stored.shape.back() /= 2;
        } else if (change == "I32" || change == "F64") {
            stored.dtype = change.toStdString();
        } else if (change == "gptq") {
            extra.push_back({"model.layers.0.self_attn.q_proj.qweight", {1, 8}});
        } else if (change == "bnb") {
            extra.push_back({"model.layers.1.mlp.down_proj.weight.absmax", {4}});
        } else if (change == "lora") {
            extra.push_back({"model.layers.0.mlp.up_proj.lora_A.weight", {2, 8}});
        } else if (change == "layer") {
            extra.push_back({"model.layers.2.input_layernorm.weight", {8}});
        } else if (change == "unprefixed") {
            extra.push_back({"norm.weight", {8}});
        }
        return change != "remove";
    });
    std::vector<StoredTensor> all = tensors;
    all.insert(all.end(), extra.begin(), extra.end());
    QTemporaryDir dir;
    const ModelFolder folder = writeFolder(dir.path().toStdString(), kLlama, all);
    const std::string message =
        errorOf([&] { validate(folder, parseArchitectureConfig(kLlama, "config.json")); });
    QVERIFY_CONTAINS(message, folder.folder);
    QVERIFY_CONTAINS(message, expected.toStdString());
}

void TestModelFolder::shardedCheckpoints() {
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    const ArchitectureConfig llama = parseArchitectureConfig(kLlama, "config.json");
    const std::vector<StoredTensor> tensors = storedAs(llama);
    const std::size_t half = tensors.size() / 2;
    const std::vector<StoredTensor> first(tensors.begin(), tensors.begin() + half);
    const std::vector<StoredTensor> second(tensors.begin() + half, tensors.end());
    const auto shardFolder = [&](const std::string &name, const std::vector<StoredTensor> &one,
                                 const std::vector<StoredTensor> &two,
                                 const std::string &moved_to_first) {
        const fs::path folder = root / name;
        fs::create_directories(folder);
        writeText(folder / "config.json", kLlama);
        writeTensors(folder / "model-00001-of-00002.safetensors", one);
        writeTensors(folder / "model-00002-of-00002.safetensors", two);
        std::string map;
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            const bool in_first = i < half || tensors[i].name == moved_to_first;
            map += (map.empty() ? "\"" : ", \"") + tensors[i].name + "\": \"model-0000" +
                   (in_first ? "1" : "2") + "-of-00002.safetensors\"";
        }
        writeText(folder / "model.safetensors.index.json", "{\"weight_map\": {" + map + "}}");
        return locateModelFolder(folder.string());
    };

    ModelFolder folder = shardFolder("good", first, second, "");
    QCOMPARE(folder.weight_files.size(), std::size_t{2});
    const auto located = validate(folder, llama);
    QCOMPARE(located.at("lm_head.weight").file, std::size_t{1});
    QCOMPARE(located.at("model.embed_tokens.weight").file, std::size_t{0});

    // The same tensor in both shards.
    std::vector<StoredTensor> doubled = first;
    doubled.push_back(tensors.back());
    folder = shardFolder("twice", doubled, second, "");
    std::string message = errorOf([&] { validate(folder, llama); });
    QVERIFY_CONTAINS(message, "tensor lm_head.weight is stored twice: as lm_head.weight in " +
                                  folder.weight_files[0] + " and as lm_head.weight in " +
                                  folder.weight_files[1]);

    // The index says shard 1, the tensor is in shard 2.
    folder = shardFolder("misplaced", first, second, tensors.back().name);
    message = errorOf([&] { validate(folder, llama); });
    QVERIFY_CONTAINS(message, folder.weight_files[1] +
                                  ": tensor lm_head.weight is in this file, but "
                                  "model.safetensors.index.json puts it in " +
                                  folder.weight_files[0]);
}

void TestModelFolder::generationDefaults() {
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    const ArchitectureConfig llama = parseArchitectureConfig(kLlama, "config.json");
    ModelFolder folder = writeFolder(root, kLlama, storedAs(llama));
    GenerationDefaults defaults = readGenerationDefaults(folder, llama);
    QCOMPARE(defaults.eos_token_ids, std::vector<std::int64_t>{2});
    QCOMPARE(defaults.bos_token_id, std::optional<std::int64_t>(1));
    QVERIFY(!defaults.pad_token_id && !defaults.temperature && !defaults.chat_template);

    writeText(root / "generation_config.json",
              R"({"bos_token_id": 3, "eos_token_id": [4, 5], "pad_token_id": -1,
                  "temperature": 0.6, "top_p": 0.9, "top_k": 5, "do_sample": true,
                  "transformers_version": "4.45.0"})");
    writeText(root / "tokenizer_config.json",
              R"({"add_bos_token": true, "add_eos_token": false,
                  "bos_token": {"__type": "AddedToken", "content": "<s>", "lstrip": false},
                  "eos_token": "</s>", "pad_token": null,
                  "chat_template": [{"name": "tool_use", "template": "T"},
                                    {"name": "default", "template": "D"}]})");
    folder = locateModelFolder(root.string());
    defaults = readGenerationDefaults(folder, llama);
    QCOMPARE(defaults.bos_token_id, std::optional<std::int64_t>(3));
    QCOMPARE(defaults.eos_token_ids, (std::vector<std::int64_t>{4, 5}));
    QVERIFY(!defaults.pad_token_id);
    QCOMPARE(defaults.temperature, std::optional<double>(0.6));
    QCOMPARE(defaults.top_p, std::optional<double>(0.9));
    QCOMPARE(defaults.top_k, std::optional<std::int64_t>(5));
    QCOMPARE(defaults.do_sample, std::optional<bool>(true));
    QCOMPARE(defaults.bos_token, std::optional<std::string>("<s>"));
    QCOMPARE(defaults.eos_token, std::optional<std::string>("</s>"));
    QCOMPARE(defaults.add_bos_token, std::optional<bool>(true));
    QCOMPARE(defaults.add_eos_token, std::optional<bool>(false));
    QCOMPARE(defaults.chat_template, std::optional<std::string>("D"));

    // A template file beside the tokenizer config wins.
    writeText(root / "chat_template.jinja", "{{ messages }}");
    QCOMPARE(readGenerationDefaults(folder, llama).chat_template,
             std::optional<std::string>("{{ messages }}"));
}

void TestModelFolder::badGenerationFiles() {
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    const ArchitectureConfig llama = parseArchitectureConfig(kLlama, "config.json");
    writeFolder(root, kLlama, storedAs(llama));
    const fs::path generation = root / "generation_config.json";
    const fs::path tokenizer = root / "tokenizer_config.json";
    const auto check = [&](const fs::path &file, const std::string &text,
                           const std::string &expected) {
        fs::remove(generation);
        fs::remove(tokenizer);
        writeText(file, text);
        const ModelFolder folder = locateModelFolder(root.string());
        const std::string message = errorOf([&] { readGenerationDefaults(folder, llama); });
        QVERIFY_CONTAINS(message, file.string() + ": " + expected);
    };
    check(generation, R"({"temperature": "hot"})", "temperature is \"hot\", expected a number");
    check(generation, R"({"eos_token_id": [2, 99]})",
          "eos_token_id holds 99, expected a token id from 0 to 15");
    check(generation, R"({"top_p": 1.5})", "top_p is 1.5, expected a number from 0 to 1");
    check(generation, "{\"do_sample\": true", "malformed JSON: parse error at line 1");
    check(generation, "[]", "the top level is an array");
    check(tokenizer, R"({"bos_token": 1})", "bos_token is 1, expected a string or an object");
    check(tokenizer, R"({"chat_template": [{"name": "default"}]})",
          "chat_template holds an object, expected objects with a string name and template");
    check(tokenizer, R"({"add_bos_token": "yes"})", "add_bos_token is \"yes\", expected true");
}

QTEST_GUILESS_MAIN(TestModelFolder)
#include "test_model_folder.moc"
