#include "train/reference_pass.h"

#include "data/data_error.h"
#include "data/example_stream.h"
#include "data/split.h"
#include "data/state_codec.h"

#include <headroom/config.h>
#include <headroom/project.h>

#include <cstdio>

namespace headroom::train {

namespace {

constexpr std::uint64_t kTableMagic = 0x3246455250524448ULL; // "HDRPREF2"
// Pairs between the partial tables a pass stores, so a stopped or killed pass continues.
constexpr std::size_t kPairsBetweenSaves = 2048;

struct StoredTable {
    std::shared_ptr<ReferenceTable> table;
    bool complete = false;
};

// What the table depends on: the data file, how its pairs become tokens, the base, and how the
// reference holds it.
std::string tableBlobName(const PreparedData &data, const Config &config, const Project &project) {
    data::StateWriter key;
    const data::FileFingerprint file = data::fingerprintFile(data.spec.path);
    key.u64(file.size);
    key.u64(file.head_hash);
    for (const char *setting :
         {"model.seq_len", "data.max_prompt_len", "data.chat_template", "data.format",
          "data.validation_fraction", "data.max_examples", "model.base_dtype",
          "pref.reference_dtype", "train.objective", "precision"}) {
        key.str(config.text(setting));
    }
    key.u64(config.integer("lora.rank") > 0 ? 1 : 0); // the base with adapters off, or a copy
    key.str(project.blob(kBaseModelBlob).value_or(config.text("model.base")));
    char name[64];
    std::snprintf(
        name, sizeof name, "preference_reference/%016llx",
        static_cast<unsigned long long>(data::fnv1a(key.bytes().data(), key.bytes().size())));
    return name;
}

std::string serialize(const ReferenceTable &table, bool complete) {
    data::StateWriter writer;
    writer.u64(kTableMagic);
    writer.u64(complete ? 1 : 0);
    writer.u64(table.size());
    for (const auto &[ordinal, sums] : table) {
        writer.u64(ordinal);
        writer.f64(sums[0]);
        writer.f64(sums[1]);
    }
    return writer.bytes();
}

// Nothing when the bytes are not a table of this version.
StoredTable deserialize(const std::string &bytes, const std::string &name) {
    data::StateReader reader(bytes, name);
    if (reader.u64() != kTableMagic) {
        return {};
    }
    StoredTable stored;
    stored.complete = reader.u64() == 1;
    auto table = std::make_shared<ReferenceTable>();
    const std::uint64_t count = reader.u64();
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t ordinal = reader.u64();
        const auto chosen = static_cast<float>(reader.f64());
        const auto rejected = static_cast<float>(reader.f64());
        (*table)[ordinal] = {chosen, rejected};
    }
    if (!reader.atEnd()) {
        return {};
    }
    stored.table = std::move(table);
    return stored;
}

// Adds the pairs of one split that the table lacks; `save` after every kPairsBetweenSaves new
// ones. False when stopped.
bool addSplit(Recipe &recipe, const PreparedData &data, data::Split split, std::int64_t micro_batch,
              ReferenceTable &table, const std::function<void(const std::string &)> &progress,
              const std::function<bool()> &stop, const std::function<void()> &save) {
    data::DataSpec spec = data.spec;
    spec.shuffle_buffer = 1; // file order; the pairs themselves do not depend on it
    data::ExampleStream stream(spec, split, data.tokenizer.get(), nullptr);
    std::vector<data::Example> pairs;
    const auto flush = [&] {
        ExampleBatch batch;
        for (const data::Example &pair : pairs) {
            batch.push_back(&pair);
        }
        const std::vector<std::array<float, 2>> sums = recipe.referenceLogps(batch);
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            table[data::exampleOrdinal(pairs[i].id)] = sums[i];
        }
        pairs.clear();
    };
    data::Example pair;
    std::size_t since_save = 0;
    while (stream.next(pair)) {
        // The training split is endless: one epoch of it.
        if (split == data::Split::Train && (pair.id >> 48) != 0) {
            break;
        }
        if (table.count(data::exampleOrdinal(pair.id)) != 0) {
            continue; // an earlier, stopped pass computed it
        }
        pairs.push_back(std::move(pair));
        if (static_cast<std::int64_t>(pairs.size()) == micro_batch) {
            if (stop()) {
                return false;
            }
            flush();
            since_save += static_cast<std::size_t>(micro_batch);
            if (since_save >= kPairsBetweenSaves) {
                since_save = 0;
                save();
                progress("reference log-probabilities: " + std::to_string(table.size()) + " pairs");
            }
        }
    }
    if (!pairs.empty()) {
        flush();
    }
    return true;
}

} // namespace

std::shared_ptr<const ReferenceTable>
precomputedReference(Recipe &recipe, const PreparedData &data, const Config &config,
                     Project &project, bool store, std::int64_t micro_batch,
                     const std::function<void(const std::string &)> &progress,
                     const std::function<bool()> &stop) {
    const std::string name = tableBlobName(data, config, project);
    StoredTable stored;
    if (const std::optional<std::string> bytes = project.blob(name)) {
        try {
            stored = deserialize(*bytes, name);
        } catch (const data::DataError &) {
            stored = {}; // a damaged table is computed again
        }
    }
    if (stored.table && stored.complete) {
        progress("reference log-probabilities of " + std::to_string(stored.table->size()) +
                 " pairs from the project");
        return stored.table;
    }
    std::shared_ptr<ReferenceTable> table =
        stored.table ? stored.table : std::make_shared<ReferenceTable>();
    progress(table->empty()
                 ? "computing the reference log-probabilities of every pair once (no gradients)"
                 : "continuing the reference log-probabilities after the " +
                       std::to_string(table->size()) + " pairs an earlier pass stored");
    const auto save = [&] {
        if (store) {
            project.putBlob(name, serialize(*table, false));
        }
    };
    torch::NoGradGuard no_grad;
    for (const data::Split split : {data::Split::Train, data::Split::Validation}) {
        if (!addSplit(recipe, data, split, std::max<std::int64_t>(1, micro_batch), *table, progress,
                      stop, save)) {
            save();
            return nullptr;
        }
    }
    if (store) {
        project.putBlob(name, serialize(*table, true));
    }
    progress("reference log-probabilities of " + std::to_string(table->size()) + " pairs computed" +
             (store ? " and stored in the project" : ""));
    return table;
}

} // namespace headroom::train
