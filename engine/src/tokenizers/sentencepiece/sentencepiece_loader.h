#pragma once

#include "tokenizers/sentencepiece/sentencepiece_module.h"

namespace headroom::data {

// The SentencePiece module, loaded on first use. Throws std::runtime_error saying why it is not
// available (a build without SentencePiece, the module not found, an ASan build).
const SentencePieceModuleApi &sentencePieceModule();

} // namespace headroom::data
