// config.json of a Hugging Face masked-language-model encoder (BertForMaskedLM,
// DistilBertForMaskedLM), read into the sizes and switches models::BertEncoder needs. Torch-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace headroom::hf {

enum class EncoderFamily { Bert, DistilBert };

struct EncoderConfig {
    std::string architecture; // "BertForMaskedLM" or "DistilBertForMaskedLM"
    std::string model_type;   // "bert" or "distilbert"
    EncoderFamily family = EncoderFamily::Bert;
    std::int64_t vocab_size = 0, hidden_size = 0, layers = 0, heads = 0, intermediate_size = 0,
                 max_positions = 0;
    std::int64_t type_vocab_size = 0; // token-type (segment) embeddings; 0 for distilbert
    double layer_norm_eps = 1e-12;    // distilbert: always 1e-12
    // "gelu" (exact, erf), "gelu_tanh" (the tanh approximation: gelu_new, gelu_pytorch_tanh) or
    // "relu"; the MLM head's transform uses it too.
    std::string activation = "gelu";
    double hidden_dropout = 0.1, attention_dropout = 0.1;
    bool tie_word_embeddings = true;          // the MLM decoder is the word embedding matrix
    std::optional<std::int64_t> pad_token_id; // absent also when outside the vocabulary
    std::string torch_dtype;                  // as written ("float32", ...) or ""
};

// "BertForMaskedLM, DistilBertForMaskedLM"
std::string supportedEncoderArchitectures();

// Parses config.json text. `source` (the file's path) starts every message. Throws
// ModelFolderError naming the key, its value and what was expected: malformed JSON, an
// architecture without a masked-LM head, settings this engine cannot reproduce exactly
// (position_embedding_type other than absolute, sinusoidal DistilBERT positions, another
// activation), and sizes of the wrong type, inconsistent or beyond sane limits.
EncoderConfig parseEncoderConfig(const std::string &json_text, const std::string &source);
EncoderConfig readEncoderConfig(const std::string &config_path);

// Whether config.json describes a BERT-family encoder (model_type "bert" or "distilbert", or
// architectures naming a Bert* / DistilBert* class), so that an import picks this reader over
// the causal-LM one. Never throws: an unreadable or malformed file gives false, and the causal
// reader then reports the problem.
bool isEncoderArchitecture(const std::string &config_path);

// The config.json keys of `config` under the names transformers writes for its model_type,
// as JSON text (an object), for export: merged over the source folder's config.json.
std::string encoderConfigJson(const EncoderConfig &config);

} // namespace headroom::hf
