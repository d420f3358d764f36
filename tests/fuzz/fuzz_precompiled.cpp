// The Precompiled normalizer's charsmap (SentencePiece's compiled trie and strings) as raw bytes:
// through tokenizer.json's base64 the tokenizer fuzz target rarely gets a charsmap that decodes,
// let alone one whose trie a lookup walks. Loading may only fail with a TokenizerError; a
// charsmap that loads must normalize any UTF-8 text.
#include "util/base64.h"

#include <headroom/tokenizer.h>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string charsmap(reinterpret_cast<const char *>(data), size);
    const std::string json =
        R"({"normalizer":{"type":"Sequence","normalizers":[{"type":"Precompiled","precompiled_charsmap":")" +
        headroom::util::base64Encode(charsmap) +
        R"("}]},"model":{"type":"WordLevel","vocab":{"a":0,"<unk>":1},"unk_token":"<unk>"}})";
    std::unique_ptr<headroom::HfTokenizer> tokenizer;
    try {
        tokenizer = std::make_unique<headroom::HfTokenizer>(headroom::HfTokenizer::fromJson(json));
    } catch (const headroom::TokenizerError &) {
        return 0;
    }
    static const char *const texts[] = {
        "",
        "Hello world",
        "A\xCC\x81 e\xCC\x81\xCC\x81 \xEF\xBC\xA1\xEF\xAC\x81",
        "\r\n\t\x01 x",
        "\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB \xE6\x97\xA5\xE6\x9C\xAC",
    };
    for (const char *text : texts) {
        try {
            tokenizer->encode(text, true);
        } catch (const headroom::TokenizerError &) {
        }
    }
    // The replacement strings at the charsmap's end as text (refused when not UTF-8).
    try {
        tokenizer->encode(charsmap.substr(charsmap.size() > 256 ? charsmap.size() - 256 : 0), true);
    } catch (const headroom::TokenizerError &) {
    }
    return 0;
}
