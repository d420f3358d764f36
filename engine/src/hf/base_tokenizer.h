#pragma once

#include "hf/model_folder.h"
#include "tokenizers/tokenizer.h"

#include <memory>
#include <string>

namespace headroom::hf {

// The tokenizer a pretrained base trains with: the folder's Hugging Face tokenizer, documents
// separated by the model's first end-of-sequence id (generation_config.json over config.json)
// and started as in pretraining (Llama's BOS). Throws TokenizerError for tokenizer files that
// cannot be read, ModelFolderError for a folder without a readable config.json.
std::unique_ptr<data::Tokenizer> loadBaseTokenizer(const ModelFolder &folder);
// The same for a folder a user named (a tokenizer preview): located here, and named as given in
// the tokenizer's messages.
std::unique_ptr<data::Tokenizer> loadBaseTokenizer(const std::string &folder_path);

// The tokenizer of an encoder (BERT, DistilBERT) folder or tokenizer file: encodeStart gives
// the text with its opening specials ([CLS] ...), endOfTextId is the closing one ([SEP]).
// Throws TokenizerError.
std::unique_ptr<data::Tokenizer> loadEncoderTokenizer(const std::string &path);
std::unique_ptr<data::Tokenizer> loadEncoderTokenizer(const ModelFolder &folder);

} // namespace headroom::hf
