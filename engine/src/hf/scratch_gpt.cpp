#include "hf/scratch_gpt.h"

#include "tokenizers/byte_level.h"
#include "tokenizers/sentencepiece/sentencepiece_loader.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

namespace headroom::hf {

namespace {

using nlohmann::ordered_json;

constexpr const char *kEndOfText = "<|endoftext|>";
constexpr std::int64_t kByteVocabulary = 256;

// Block-relative Headroom name -> GPT-2 name, and whether GPT-2 stores it transposed (Conv1D).
struct BlockTensor {
    const char *headroom;
    const char *gpt2;
    bool transposed;
};
constexpr BlockTensor kBlockTensors[] = {
    {"ln1.weight", "ln_1.weight", false},         {"ln1.bias", "ln_1.bias", false},
    {"qkv.weight", "attn.c_attn.weight", true},   {"qkv.bias", "attn.c_attn.bias", false},
    {"proj.weight", "attn.c_proj.weight", true},  {"proj.bias", "attn.c_proj.bias", false},
    {"ln2.weight", "ln_2.weight", false},         {"ln2.bias", "ln_2.bias", false},
    {"fc.weight", "mlp.c_fc.weight", true},       {"fc.bias", "mlp.c_fc.bias", false},
    {"fc_out.weight", "mlp.c_proj.weight", true}, {"fc_out.bias", "mlp.c_proj.bias", false},
};

// (GPT-2 name, transposed) of a Headroom GPT tensor.
std::pair<std::string, bool> gpt2Name(const std::string &name) {
    if (name == "token_embedding.weight") {
        return {"transformer.wte.weight", false};
    }
    if (name == "position_embedding.weight") {
        return {"transformer.wpe.weight", false};
    }
    if (name == "ln_final.weight" || name == "ln_final.bias") {
        return {"transformer.ln_f." + name.substr(name.find('.') + 1), false};
    }
    const std::string prefix = "blocks.";
    if (name.rfind(prefix, 0) == 0) {
        const std::size_t dot = name.find('.', prefix.size());
        if (dot != std::string::npos) {
            const std::string layer = name.substr(prefix.size(), dot - prefix.size());
            const std::string rest = name.substr(dot + 1);
            for (const BlockTensor &tensor : kBlockTensors) {
                if (rest == tensor.headroom) {
                    return {"transformer.h." + layer + "." + tensor.gpt2, tensor.transposed};
                }
            }
        }
    }
    throw std::invalid_argument("the GPT has a tensor " + name + " that GPT-2 has no place for");
}

ordered_json addedToken(std::int64_t id, const std::string &content = kEndOfText) {
    return {{"id", id},        {"content", content},  {"single_word", false}, {"lstrip", false},
            {"rstrip", false}, {"normalized", false}, {"special", true}};
}

} // namespace

models::NamedTensors gpt2StateOf(const models::GptImpl &gpt) {
    const models::GptOptions &options = gpt.options();
    if (options.moe().experts() > 0) {
        throw std::invalid_argument("GPT-2 has no mixture-of-experts blocks; this GPT has " +
                                    std::to_string(options.moe().experts()) +
                                    " experts (moe.experts)");
    }
    models::NamedTensors state;
    for (const auto &[name, tensor] : gpt.mergedState()) {
        const auto [gpt2, transposed] = gpt2Name(name);
        state.emplace_back(gpt2, transposed ? tensor.t() : tensor);
    }
    return state;
}

std::string gpt2ConfigJson(const models::GptOptions &options, std::int64_t end_of_text) {
    const ordered_json config = {{"activation_function", "gelu"},
                                 {"architectures", {"GPT2LMHeadModel"}},
                                 {"attn_pdrop", options.dropout()},
                                 {"bos_token_id", end_of_text},
                                 {"embd_pdrop", options.dropout()},
                                 {"eos_token_id", end_of_text},
                                 {"initializer_range", 0.02},
                                 {"layer_norm_epsilon", 1e-5},
                                 {"model_type", "gpt2"},
                                 {"n_ctx", options.seq_len()},
                                 {"n_embd", options.dim()},
                                 {"n_head", options.heads()},
                                 {"n_inner", nullptr},
                                 {"n_layer", options.layers()},
                                 {"n_positions", options.seq_len()},
                                 {"reorder_and_upcast_attn", false},
                                 {"resid_pdrop", options.dropout()},
                                 {"scale_attn_by_inverse_layer_idx", false},
                                 {"scale_attn_weights", true},
                                 {"tie_word_embeddings", true},
                                 {"torch_dtype", "float32"},
                                 {"use_cache", true},
                                 {"vocab_size", options.vocab_size()}};
    return config.dump(2) + "\n";
}

std::string gpt2GenerationConfigJson(std::int64_t end_of_text) {
    const ordered_json config = {{"bos_token_id", end_of_text}, {"eos_token_id", end_of_text}};
    return config.dump(2) + "\n";
}

std::map<std::string, std::string> byteTokenizerFiles(std::int64_t max_length) {
    ordered_json vocab = ordered_json::object();
    for (std::int64_t byte = 0; byte < kByteVocabulary; ++byte) {
        vocab[tokenizers::byteLevelEncode(std::string(1, static_cast<char>(byte)))] = byte;
    }
    ordered_json full_vocab = vocab;
    full_vocab[kEndOfText] = kByteVocabulary;
    // No regex split: without merges every byte is its own token however the text is split.
    const ordered_json byte_level = {{"type", "ByteLevel"},
                                     {"add_prefix_space", false},
                                     {"trim_offsets", true},
                                     {"use_regex", false}};
    const ordered_json tokenizer = {{"version", "1.0"},
                                    {"truncation", nullptr},
                                    {"padding", nullptr},
                                    {"added_tokens", {addedToken(kByteVocabulary)}},
                                    {"normalizer", nullptr},
                                    {"pre_tokenizer", byte_level},
                                    {"post_processor", nullptr},
                                    {"decoder", byte_level},
                                    {"model",
                                     {{"type", "BPE"},
                                      {"dropout", nullptr},
                                      {"unk_token", nullptr},
                                      {"continuing_subword_prefix", nullptr},
                                      {"end_of_word_suffix", nullptr},
                                      {"fuse_unk", false},
                                      {"byte_fallback", false},
                                      {"ignore_merges", false},
                                      {"vocab", vocab},
                                      {"merges", ordered_json::array()}}}};
    ordered_json decoder = ordered_json::object();
    decoder[std::to_string(kByteVocabulary)] = addedToken(kByteVocabulary);
    decoder[std::to_string(kByteVocabulary)].erase("id");
    const ordered_json tokenizer_config = {{"add_bos_token", false},
                                           {"add_eos_token", false},
                                           {"add_prefix_space", false},
                                           {"added_tokens_decoder", decoder},
                                           {"bos_token", kEndOfText},
                                           {"clean_up_tokenization_spaces", false},
                                           {"eos_token", kEndOfText},
                                           {"model_max_length", max_length},
                                           {"tokenizer_class", "GPT2Tokenizer"},
                                           {"unk_token", kEndOfText}};
    const ordered_json special_tokens = {
        {"bos_token", kEndOfText}, {"eos_token", kEndOfText}, {"unk_token", kEndOfText}};
    return {{"tokenizer.json", tokenizer.dump(2) + "\n"},
            {"tokenizer_config.json", tokenizer_config.dump(2) + "\n"},
            {"special_tokens_map.json", special_tokens.dump(2) + "\n"},
            {"vocab.json", full_vocab.dump() + "\n"},
            {"merges.txt", "#version: 0.2\n"}};
}

std::map<std::string, std::string> sentencePieceTokenizerFiles(const std::string &model,
                                                               std::int64_t max_length) {
    const data::SentencePieceModuleApi &api = data::sentencePieceModule();
    std::string error;
    void *loaded = api.load(model, &error);
    if (loaded == nullptr) {
        throw std::invalid_argument("the project's SentencePiece model cannot be read: " + error);
    }
    const std::shared_ptr<void> processor(loaded, api.release);
    std::vector<data::SentencePieceEntry> pieces;
    api.describe(processor.get(), &pieces);
    // The special pieces the model itself names (data::trainSentencePiece: <unk> 0, <s> 1,
    // </s> 2, no pad), under transformers' keys; null where the model has none.
    const std::pair<const char *, data::SentencePieceRole> roles[] = {
        {"unk_token", data::SentencePieceRole::Unknown},
        {"bos_token", data::SentencePieceRole::Bos},
        {"eos_token", data::SentencePieceRole::Eos},
        {"pad_token", data::SentencePieceRole::Pad}};
    ordered_json tokens = ordered_json::object();
    ordered_json decoder = ordered_json::object();
    for (const auto &[key, role] : roles) {
        const int id = api.specialId(processor.get(), role);
        if (id < 0 || static_cast<std::size_t>(id) >= pieces.size()) {
            tokens[key] = nullptr;
            continue;
        }
        const std::string &piece = pieces[static_cast<std::size_t>(id)].piece;
        tokens[key] = piece;
        decoder[std::to_string(id)] = addedToken(id, piece);
        decoder[std::to_string(id)].erase("id");
    }
    const ordered_json tokenizer_config = {{"add_bos_token", false},
                                           {"add_eos_token", false},
                                           {"added_tokens_decoder", decoder},
                                           {"bos_token", tokens["bos_token"]},
                                           {"clean_up_tokenization_spaces", false},
                                           {"eos_token", tokens["eos_token"]},
                                           {"legacy", true},
                                           {"model_max_length", max_length},
                                           {"pad_token", tokens["pad_token"]},
                                           {"sp_model_kwargs", ordered_json::object()},
                                           {"spaces_between_special_tokens", false},
                                           {"tokenizer_class", "LlamaTokenizer"},
                                           {"unk_token", tokens["unk_token"]}};
    ordered_json special_tokens = ordered_json::object();
    for (const auto &[key, value] : tokens.items()) {
        if (!value.is_null()) {
            special_tokens[key] = value;
        }
    }
    return {{"tokenizer.model", model},
            {"tokenizer_config.json", tokenizer_config.dump(2) + "\n"},
            {"special_tokens_map.json", special_tokens.dump(2) + "\n"}};
}

} // namespace headroom::hf
