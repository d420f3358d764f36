// Headroom's own GPT (models/gpt.h: a project trained from scratch, without model.base) in
// transformers' GPT2LMHeadModel layout. The two compute the same thing: learned positions,
// pre-LayerNorm blocks with biases everywhere, q|k|v fused in that order, scores scaled by
// 1/sqrt(head size), an exact (erf) GELU MLP of width 4*dim — activation_function "gelu" —,
// a final LayerNorm and the output tied to the token embedding.
#pragma once

#include "models/gpt.h"

#include <cstdint>
#include <map>
#include <string>

namespace headroom::hf {

// The GPT's merged state (LoRA folded in) under GPT-2's names, in model order, the Conv1D
// weights transposed to [in, out]; the tied lm_head left out as save_pretrained leaves it.
// Throws std::invalid_argument for a GPT with mixture-of-experts blocks (GPT-2 has none).
models::NamedTensors gpt2StateOf(const models::GptImpl &gpt);

// config.json and generation_config.json of that GPT2LMHeadModel; end_of_text is both the BOS
// and EOS id (Headroom separates documents with it).
std::string gpt2ConfigJson(const models::GptOptions &options, std::int64_t end_of_text);
std::string gpt2GenerationConfigJson(std::int64_t end_of_text);

// File name -> text of a Hugging Face tokenizer that gives the ids of Headroom's byte tokenizer
// (tokenizers/tokenizer.h: byte b is id b, end-of-text 256): a byte-level BPE without merges over
// GPT-2's 256-character byte alphabet, "<|endoftext|>" as the special token 256
// (tokenizer.json, tokenizer_config.json, special_tokens_map.json, and vocab.json + an empty
// merges.txt for the slow GPT2Tokenizer). The one difference: the text "<|endoftext|>" itself
// becomes id 256 there, its 13 bytes here.
std::map<std::string, std::string> byteTokenizerFiles(std::int64_t max_length);

// File name -> contents of a Hugging Face tokenizer for a project's own SentencePiece model
// (tokenizer=bpe|unigram, data::trainSentencePiece): the serialized model as tokenizer.model for
// transformers' slow LlamaTokenizer in legacy mode (each text between special tokens encoded by
// SentencePiece as it is), and its tokenizer_config.json and special_tokens_map.json naming the
// model's own unk/bos/eos/pad pieces. Headroom adds no BOS and appends EOS only to separate
// documents, so add_bos_token and add_eos_token are false. As with the byte tokenizer, the texts of
// the special pieces
// ("<s>", "</s>", "<unk>") become their ids there. Throws std::runtime_error when the
// SentencePiece module is missing, std::invalid_argument when the model cannot be read.
std::map<std::string, std::string> sentencePieceTokenizerFiles(const std::string &model,
                                                               std::int64_t max_length);

} // namespace headroom::hf
