#pragma once

// Decoders of the reference library: they turn the token strings of a sequence back into text.

#include "tokenizers/json_reader.h"

#include <memory>
#include <string>
#include <vector>

namespace headroom::tokenizers {

class Decoder {
public:
    virtual ~Decoder() = default;
    // Rewrites the token strings; decode() joins what is left.
    virtual void decodeChain(std::vector<std::string> &tokens) const = 0;
    std::string decode(std::vector<std::string> tokens) const;
};

std::unique_ptr<Decoder> makeDecoder(const JsonNode &node);
std::unique_ptr<Decoder> makeByteLevelDecoder();
std::unique_ptr<Decoder> makeWordPieceDecoder(std::string prefix, bool cleanup);

} // namespace headroom::tokenizers
