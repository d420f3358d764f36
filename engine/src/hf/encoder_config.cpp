#include "hf/encoder_config.h"

#include "hf/hf_error.h"
#include "hf/json_file.h"
#include "util/text.h"

#include <array>

namespace headroom::hf {

namespace {

using util::startsWith;

using nlohmann::json;

using namespace config_limits;
constexpr std::int64_t kMaxTypeVocab = 1 << 16;

struct EncoderKind {
    const char *architecture;
    const char *model_type;
    EncoderFamily family;
};

constexpr std::array<EncoderKind, 2> kEncoderKinds = {{
    {"BertForMaskedLM", "bert", EncoderFamily::Bert},
    {"DistilBertForMaskedLM", "distilbert", EncoderFamily::DistilBert},
}};

// The family an architecture class name belongs to, whatever its head.
std::optional<EncoderFamily> familyOfClass(const std::string &name) {
    if (startsWith(name, "DistilBert")) {
        return EncoderFamily::DistilBert;
    }
    if (startsWith(name, "Bert")) {
        return EncoderFamily::Bert;
    }
    return std::nullopt;
}

std::optional<EncoderFamily> familyOfModelType(const std::string &model_type) {
    for (const EncoderKind &kind : kEncoderKinds) {
        if (model_type == kind.model_type) {
            return kind.family;
        }
    }
    return std::nullopt;
}

const EncoderKind &kindOf(EncoderFamily family) {
    return kEncoderKinds[family == EncoderFamily::Bert ? 0 : 1];
}

std::optional<std::string> firstArchitecture(const JsonFields &fields) {
    if (!fields.has("architectures")) {
        return std::nullopt;
    }
    const json &list = fields.object().at("architectures");
    bool strings = list.is_array();
    for (const json &item : list.is_array() ? list : json::array()) {
        strings = strings && item.is_string();
    }
    if (!strings) {
        fields.fail("architectures", "a list of class names such as [\"BertForMaskedLM\"]");
    }
    return list.empty() ? std::nullopt : std::optional<std::string>(list.front());
}

void readKind(const JsonFields &fields, EncoderConfig &config) {
    const std::optional<std::string> architecture = firstArchitecture(fields);
    const std::optional<std::string> model_type = fields.optionalString("model_type");
    const std::string supported = "; supported: " + supportedEncoderArchitectures();
    std::optional<EncoderFamily> by_architecture;
    if (architecture) {
        by_architecture = familyOfClass(*architecture);
        // BertForPreTraining holds the same masked-LM head (and a next-sentence head, ignored).
        const bool has_mlm_head = *architecture == "BertForMaskedLM" ||
                                  *architecture == "BertForPreTraining" ||
                                  *architecture == "DistilBertForMaskedLM";
        if (!by_architecture || !has_mlm_head) {
            failIn(fields.source(),
                   "architectures names " + describeJson(json(*architecture)) +
                       (by_architecture ? ", which has no masked-language-model head"
                                        : ", which is not a BERT-family encoder") +
                       supported);
        }
    }
    std::optional<EncoderFamily> by_model_type;
    if (model_type) {
        by_model_type = familyOfModelType(*model_type);
        if (!by_model_type) {
            failIn(fields.source(), "model_type is " + describeJson(json(*model_type)) +
                                        ", expected \"bert\" or \"distilbert\"");
        }
    }
    if (!by_architecture && !by_model_type) {
        failIn(fields.source(), "names neither architectures nor model_type" + supported);
    }
    if (by_architecture && by_model_type && *by_architecture != *by_model_type) {
        failIn(fields.source(), "model_type " + describeJson(json(*model_type)) +
                                    " does not fit architectures " +
                                    describeJson(json(*architecture)));
    }
    const EncoderKind &kind = kindOf(by_architecture ? *by_architecture : *by_model_type);
    config.architecture = kind.architecture;
    config.model_type = kind.model_type;
    config.family = kind.family;
}

void readActivation(const JsonFields &fields, const std::string &key, EncoderConfig &config) {
    const std::string activation = fields.optionalString(key).value_or("gelu");
    if (activation == "gelu" || activation == "relu") {
        config.activation = activation;
    } else if (activation == "gelu_new" || activation == "gelu_pytorch_tanh" ||
               activation == "gelu_fast") {
        config.activation = "gelu_tanh"; // three spellings of the same tanh approximation
    } else {
        fields.fail(key, "\"gelu\", \"gelu_new\", \"gelu_pytorch_tanh\", \"gelu_fast\" or "
                         "\"relu\" (the activations this engine computes exactly)");
    }
}

void requireDivisible(const JsonFields &fields, const std::string &heads_key,
                      const std::string &hidden_key, const EncoderConfig &config) {
    if (config.hidden_size % config.heads != 0) {
        throw ModelFolderError(fields.name(heads_key) + " is " + std::to_string(config.heads) +
                               (fields.has(heads_key) ? "" : " (the default)") +
                               ", expected a divisor of " + hidden_key + " " +
                               std::to_string(config.hidden_size));
    }
}

void readBert(const JsonFields &fields, EncoderConfig &config) {
    config.vocab_size = fields.integer("vocab_size", 30522, 1, kMaxVocab);
    config.hidden_size = fields.integer("hidden_size", 768, 1, kMaxHidden);
    config.layers = fields.integer("num_hidden_layers", 12, 1, kMaxLayers);
    config.heads = fields.integer("num_attention_heads", 12, 1, kMaxHeads);
    requireDivisible(fields, "num_attention_heads", "hidden_size", config);
    config.intermediate_size = fields.integer("intermediate_size", 3072, 1, kMaxIntermediate);
    config.max_positions = fields.integer("max_position_embeddings", 512, 1, kMaxPositions);
    config.type_vocab_size = fields.integer("type_vocab_size", 2, 1, kMaxTypeVocab);
    config.layer_norm_eps = fields.number("layer_norm_eps", 1e-12, 1e-30, 1.0);
    readActivation(fields, "hidden_act", config);
    config.hidden_dropout = fields.number("hidden_dropout_prob", 0.1, 0.0, 0.99);
    config.attention_dropout = fields.number("attention_probs_dropout_prob", 0.1, 0.0, 0.99);
    const std::string positions =
        fields.optionalString("position_embedding_type").value_or("absolute");
    if (positions != "absolute") {
        fields.fail("position_embedding_type", "\"absolute\" (relative position embeddings are "
                                               "not supported)");
    }
    if (fields.boolean("is_decoder", false)) {
        fields.fail("is_decoder", "false (a masked-LM encoder attends in both directions)");
    }
    if (fields.boolean("add_cross_attention", false)) {
        fields.fail("add_cross_attention", "false (cross-attention layers are not supported)");
    }
    config.tie_word_embeddings = fields.boolean("tie_word_embeddings", true);
}

void readDistilBert(const JsonFields &fields, EncoderConfig &config) {
    config.vocab_size = fields.integer("vocab_size", 30522, 1, kMaxVocab);
    config.hidden_size = fields.integer("dim", 768, 1, kMaxHidden);
    config.layers = fields.integer("n_layers", 6, 1, kMaxLayers);
    config.heads = fields.integer("n_heads", 12, 1, kMaxHeads);
    requireDivisible(fields, "n_heads", "dim", config);
    config.intermediate_size = fields.integer("hidden_dim", 3072, 1, kMaxIntermediate);
    config.max_positions = fields.integer("max_position_embeddings", 512, 1, kMaxPositions);
    config.type_vocab_size = 0;
    config.layer_norm_eps = 1e-12; // fixed in DistilBERT's modules, not a config key
    readActivation(fields, "activation", config);
    config.hidden_dropout = fields.number("dropout", 0.1, 0.0, 0.99);
    config.attention_dropout = fields.number("attention_dropout", 0.1, 0.0, 0.99);
    if (fields.boolean("sinusoidal_pos_embds", false)) {
        fields.fail("sinusoidal_pos_embds", "false (fixed sinusoidal position embeddings are not "
                                            "supported; learned ones are)");
    }
    config.tie_word_embeddings = fields.boolean("tie_word_embeddings", true);
}

} // namespace

std::string supportedEncoderArchitectures() {
    std::string list;
    for (const EncoderKind &kind : kEncoderKinds) {
        list += (list.empty() ? "" : ", ") + std::string(kind.architecture);
    }
    return list;
}

EncoderConfig parseEncoderConfig(const std::string &json_text, const std::string &source) {
    const json root = parseJson(json_text, source);
    if (!root.is_object()) {
        failIn(source, "the top level is " + describeJson(root) + ", expected a JSON object");
    }
    if (root.contains("quantization_config")) {
        failIn(source, "quantization_config: this model was quantized by another tool; Headroom "
                       "imports F32, F16 or BF16 encoder weights: use the unquantized original");
    }
    const JsonFields fields(root, source);
    EncoderConfig config;
    readKind(fields, config);
    if (config.family == EncoderFamily::Bert) {
        readBert(fields, config);
    } else {
        readDistilBert(fields, config);
    }
    config.torch_dtype = fields.torchDtype();
    if (fields.has("pad_token_id")) {
        config.pad_token_id = fields.optionalTokenId("pad_token_id", config.vocab_size);
    } else if (!root.contains("pad_token_id")) {
        config.pad_token_id = 0; // both config classes default to 0
    }
    return config;
}

EncoderConfig readEncoderConfig(const std::string &config_path) {
    return parseEncoderConfig(readTextFile(config_path, kMaxConfigBytes), config_path);
}

bool isEncoderArchitecture(const std::string &config_path) {
    try {
        const json root = parseJson(readTextFile(config_path, kMaxConfigBytes), config_path);
        if (!root.is_object()) {
            return false;
        }
        const auto model_type = root.find("model_type");
        if (model_type != root.end() && model_type->is_string()) {
            return familyOfModelType(model_type->get<std::string>()).has_value();
        }
        const auto architectures = root.find("architectures");
        return architectures != root.end() && architectures->is_array() &&
               !architectures->empty() && architectures->front().is_string() &&
               familyOfClass(architectures->front().get<std::string>()).has_value();
    } catch (const std::exception &) {
        return false;
    }
}

std::string encoderConfigJson(const EncoderConfig &config) {
    json out;
    out["architectures"] = json::array({config.architecture});
    out["model_type"] = config.model_type;
    out["vocab_size"] = config.vocab_size;
    out["max_position_embeddings"] = config.max_positions;
    // The activation as transformers names it; gelu_new stands for the tanh approximation.
    const std::string activation =
        config.activation == "gelu_tanh" ? std::string("gelu_new") : config.activation;
    if (config.family == EncoderFamily::Bert) {
        out["hidden_size"] = config.hidden_size;
        out["num_hidden_layers"] = config.layers;
        out["num_attention_heads"] = config.heads;
        out["intermediate_size"] = config.intermediate_size;
        out["type_vocab_size"] = config.type_vocab_size;
        out["layer_norm_eps"] = config.layer_norm_eps;
        out["hidden_act"] = activation;
        out["hidden_dropout_prob"] = config.hidden_dropout;
        out["attention_probs_dropout_prob"] = config.attention_dropout;
        out["position_embedding_type"] = "absolute";
    } else {
        out["dim"] = config.hidden_size;
        out["n_layers"] = config.layers;
        out["n_heads"] = config.heads;
        out["hidden_dim"] = config.intermediate_size;
        out["activation"] = activation;
        out["dropout"] = config.hidden_dropout;
        out["attention_dropout"] = config.attention_dropout;
        out["sinusoidal_pos_embds"] = false;
    }
    out["tie_word_embeddings"] = config.tie_word_embeddings;
    out["pad_token_id"] = config.pad_token_id ? json(*config.pad_token_id) : json(nullptr);
    out["torch_dtype"] = "float32";
    return out.dump();
}

} // namespace headroom::hf
