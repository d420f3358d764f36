// The tokenizer.json parser and the pipeline it builds: tokenizer files come from strangers'
// model folders. Loading may only fail with a TokenizerError; a tokenizer that loads must
// encode any UTF-8 text (or refuse it with a TokenizerError), and decode any ids.
#include <headroom/tokenizer.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string json(reinterpret_cast<const char *>(data), size);
    std::unique_ptr<headroom::HfTokenizer> tokenizer;
    try {
        tokenizer = std::make_unique<headroom::HfTokenizer>(headroom::HfTokenizer::fromJson(json));
    } catch (const headroom::TokenizerError &) {
        return 0;
    }
    static const std::vector<std::string> texts = {
        "",
        " ",
        "Hello world",
        "  multiple   spaces\n\ttabs",
        "Café 日本語 😀 👍🏽",
        "<s>Hello</s> world <unk> [CLS] <|endoftext|>",
        "1234567 3.14 x=y+1;",
        "\xE2\x96\x81x",
    };
    // The input itself, cut to valid UTF-8, as one more text.
    std::vector<std::string> all = texts;
    std::string tail = json.substr(json.size() > 200 ? json.size() - 200 : 0);
    all.push_back(tail);
    for (const std::string &text : all) {
        for (const bool special : {true, false}) {
            try {
                const headroom::TokenizedText encoded = tokenizer->encode(text, special);
                if (encoded.pieces.size() != encoded.ids.size() ||
                    encoded.offsets.size() != encoded.ids.size()) {
                    __builtin_trap();
                }
                for (const auto &[begin, end] : encoded.offsets) {
                    if (begin > end || end > text.size()) {
                        __builtin_trap();
                    }
                }
                tokenizer->decode(encoded.ids, false);
                tokenizer->decode(encoded.ids, true);
            } catch (const headroom::TokenizerError &) {
            }
        }
    }
    std::vector<std::int32_t> ids;
    for (std::size_t i = 0; i + 3 < size && ids.size() < 64; i += 4) {
        ids.push_back(static_cast<std::int32_t>(data[i] | data[i + 1] << 8 | data[i + 2] << 16) -
                      1000);
    }
    try {
        tokenizer->decode(ids, false);
        tokenizer->vocabSize();
        tokenizer->idToToken(ids.empty() ? 0 : ids[0]);
    } catch (const headroom::TokenizerError &) {
    }
    return 0;
}
