#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace headroom::data {

// Headroom's SentencePiece module (engine/sentencepiece/), loaded on first use with its own
// symbol scope so SentencePiece's bundled protobuf never meets LibTorch's.
class SentencePieceModule {
public:
    class Model {
    public:
        virtual ~Model() = default;
        virtual std::int32_t vocabSize() const = 0;
        virtual std::int32_t eosId() const = 0;
        virtual std::vector<std::int32_t> encode(const std::string &text) const = 0;
        virtual std::string decode(const std::vector<std::int32_t> &ids) const = 0;
    };

    // The loaded module; throws std::runtime_error saying why it is not available (not built,
    // not found next to the executable, or failed to load).
    static const SentencePieceModule &instance();
    static bool available();

    // Trains on a file of sentences (one per line) and returns the serialized model.
    std::string train(const std::string &sentences_path, const std::string &options) const;
    std::unique_ptr<Model> load(const std::string &serialized) const;

    struct Functions;

private:
    explicit SentencePieceModule(const Functions *functions) : functions_(functions) {}
    const Functions *functions_;
};

} // namespace headroom::data
