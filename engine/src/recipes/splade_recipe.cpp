#include "recipes/splade_recipe.h"

#include "compat/autocast.h"
#include "data/split.h"
#include "models/keyed_dropout.h"
#include "models/splade.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

namespace headroom::train {

namespace {

// Dropout row ids: queries by their place in the step, passages by (place, passage).
constexpr std::uint64_t kQuerySalt = 0x5155455259ULL;
constexpr std::uint64_t kPassageSalt = 0x50415353414745ULL;
constexpr std::int64_t kPassageSlots = 1 << 16;

struct Span {
    const std::int32_t *tokens = nullptr;
    std::int64_t length = 0;
};

// The query, then the passages.
std::vector<Span> segmentsOf(const data::Example &example) {
    std::vector<Span> spans;
    const std::int32_t *at = example.tokens.data();
    for (const std::int32_t length : example.segment_lengths) {
        spans.push_back({at, length});
        at += length;
    }
    TORCH_CHECK(spans.size() >= 2, "a retrieval example needs a query and a passage");
    return spans;
}

std::int64_t longest(const std::vector<Span> &texts) {
    std::int64_t width = 1;
    for (const Span &text : texts) {
        width = std::max(width, text.length);
    }
    return width;
}

struct Collated {
    torch::Tensor ids;
    torch::Tensor mask;
};

Collated collate(const std::vector<Span> &texts, std::int64_t width, std::int32_t pad_id,
                 torch::Device device) {
    const auto rows = static_cast<std::int64_t>(texts.size());
    torch::Tensor ids = torch::full({rows, width}, pad_id, torch::kLong);
    torch::Tensor mask = torch::zeros({rows, width}, torch::kLong);
    auto id = ids.accessor<std::int64_t, 2>();
    auto real = mask.accessor<std::int64_t, 2>();
    for (std::int64_t row = 0; row < rows; ++row) {
        const Span &text = texts[static_cast<std::size_t>(row)];
        TORCH_CHECK(text.length <= width, "a text is longer than the batch width");
        for (std::int64_t t = 0; t < text.length; ++t) {
            id[row][t] = text.tokens[t];
            real[row][t] = 1;
        }
    }
    return {ids.to(device), mask.to(device)};
}

std::string textKey(const Span &text) {
    return std::string(reinterpret_cast<const char *>(text.tokens),
                       static_cast<std::size_t>(text.length) * sizeof(std::int32_t));
}

class SpladeRecipe final : public Recipe {
public:
    SpladeRecipe(std::unique_ptr<MaskedLanguageModel> model, const SpladeSettings &settings,
                 torch::Device device)
        : model_(std::move(model)), settings_(settings), device_(device) {
        model_->module()->to(device_);
    }

    std::shared_ptr<torch::nn::Module> module() override { return model_->module(); }
    void moveTo(const torch::Device &device) override {
        device_ = device;
        model_->module()->to(device_);
    }

    // The in-batch loss of these examples alone: each query against its batch's first
    // positives and hard negatives (validation; training goes through trainingLoss).
    torch::Tensor loss(const ExampleBatch &batch) override { return encodeBatch(batch).loss; }

    bool couplesExamples() const override { return true; }

    void prepareStep(const ExampleBatch &all, std::size_t micro_batch,
                     std::uint64_t dropout_step_seed, std::int64_t step) override {
        prepared_ = false;
        step_examples_ = all;
        step_seed_ = dropout_step_seed;
        step_ = step;
        passage_offsets_.assign(1, 0);
        query_width_ = 1;
        passage_width_ = 1;
        std::int64_t passages = 0;
        for (const data::Example *example : all) {
            const std::vector<Span> spans = segmentsOf(*example);
            query_width_ = std::max(query_width_, spans[0].length);
            for (std::size_t i = 1; i < spans.size(); ++i) {
                passage_width_ = std::max(passage_width_, spans[i].length);
            }
            passages += static_cast<std::int64_t>(spans.size()) - 1;
            passage_offsets_.push_back(passages);
        }
        // The whole step in one micro-batch needs no cache: its one pass is the whole batch's.
        single_pass_ = micro_batch >= all.size();
        if (!single_pass_) {
            cacheVectorGradients(all, micro_batch);
        }
        prepared_ = true;
    }

    TrainingLoss trainingLoss(const ExampleBatch &batch) override {
        const models::ScopedDropoutKey::Key *key = models::ScopedDropoutKey::current();
        TORCH_CHECK(prepared_ && key != nullptr,
                    "the SPLADE recipe trains through prepareStep and the trainer's micro-batches");
        const std::int64_t start = key->first_row;
        const auto count = static_cast<std::int64_t>(batch.size());
        TORCH_CHECK(start + count <= static_cast<std::int64_t>(step_examples_.size()) &&
                        batch.front() == step_examples_[static_cast<std::size_t>(start)],
                    "a micro-batch that is not part of the prepared step");
        const auto [q, p] = encodeStepPart(batch, start);
        TrainingLoss result;
        result.step_total = true;
        if (single_pass_) {
            TORCH_CHECK(start == 0 && count == static_cast<std::int64_t>(step_examples_.size()),
                        "a single-pass step takes the whole batch at once");
            const models::SpladeLossTerms terms =
                stepLoss(q.to(torch::kFloat32), p.to(torch::kFloat32));
            result.objective = terms.objective;
            result.loss = terms.contrastive.detach();
            result.retrieval = step_metrics_;
            return result;
        }
        const std::int64_t first_passage = passage_offsets_[static_cast<std::size_t>(start)];
        const std::int64_t passages =
            passage_offsets_[static_cast<std::size_t>(start + count)] - first_passage;
        result.objective =
            (q.to(torch::kFloat32) * query_gradient_.narrow(0, start, count)).sum() +
            (p.to(torch::kFloat32) * passage_gradient_.narrow(0, first_passage, passages)).sum();
        result.loss = torch::tensor(step_loss_, torch::kFloat32);
        result.retrieval = step_metrics_;
        return result;
    }

    void beginEvaluation() override {
        index_ = InvertedIndex();
        passage_numbers_.clear();
        eval_queries_.clear();
        eval_relevant_.clear();
    }

    void evaluate(const ExampleBatch &batch, EvalTotals &totals) override {
        const EncodedBatch encoded = encodeBatch(batch);
        totals.loss_sum += encoded.loss.item<double>() * static_cast<double>(batch.size());
        totals.examples += static_cast<std::int64_t>(batch.size());

        const std::vector<SparseVector> query_rows = sparseRows(encoded.queries);
        const std::vector<SparseVector> passage_rows = sparseRows(encoded.passages);
        std::size_t row = 0;
        for (std::size_t e = 0; e < batch.size(); ++e) {
            std::vector<std::int64_t> relevant;
            for (std::int32_t i = 0; i < encoded.passage_counts[e]; ++i, ++row) {
                const auto [at, added] = passage_numbers_.emplace(encoded.passage_keys[row], 0);
                if (added) {
                    at->second = index_.add(passage_rows[row]);
                }
                if (i < batch[e]->positive_passages) {
                    relevant.push_back(at->second);
                }
            }
            eval_queries_.push_back(query_rows[e]);
            eval_relevant_.push_back(std::move(relevant));
        }
    }

    void finishEvaluation(EvalTotals &totals) override {
        const RetrievalQuality quality = measureRetrieval(index_, eval_queries_, eval_relevant_);
        if (quality.queries > 0) {
            totals.mrr_at_10 = quality.mrr_at_10;
            totals.recall_at_100 = quality.recall_at_100;
        }
        beginEvaluation(); // frees the index
    }

    std::int64_t tokensPerExample() const override {
        return settings_.max_length * (2 + settings_.hard_negatives);
    }
    std::int64_t tokensOf(const std::vector<data::Example> &examples) const override {
        std::int64_t tokens = 0;
        for (const data::Example &example : examples) {
            tokens += static_cast<std::int64_t>(example.tokens.size());
        }
        return tokens;
    }
    torch::Tensor textVectors(const std::vector<std::vector<std::int32_t>> &texts) override {
        return spladeVectors(*model_, texts, settings_.pad_id, device_);
    }
    bool setActivationCheckpointing(std::int64_t every) override {
        model_->setCheckpointEvery(every);
        return true;
    }
    bool reportsAccuracy() const override { return false; }
    bool reportsRmse() const override { return false; }
    std::string describe() const override {
        char text[160];
        std::snprintf(text, sizeof text, " · SPLADE (FLOPS weights q %g, d %g)", settings_.lambda_q,
                      settings_.lambda_d);
        return model_->describe() + text;
    }

private:
    struct EncodedBatch {
        torch::Tensor queries;  // [examples, V]
        torch::Tensor passages; // [every passage of the batch, V], example by example
        std::vector<std::int32_t> passage_counts; // per example
        std::vector<std::string> passage_keys;    // per passage, its tokens as bytes
        torch::Tensor loss; // in-batch: each query over the first positives and negatives
    };

    // Every text of the batch encoded without dropout keys (validation), and its in-batch loss;
    // a query's further positives are encoded (for the index) but not scored as negatives.
    EncodedBatch encodeBatch(const ExampleBatch &batch) {
        EncodedBatch encoded;
        std::vector<Span> queries;
        std::vector<Span> passages;
        std::vector<std::int64_t> positive;
        std::vector<std::int64_t> candidates; // rows of `passages` the in-batch loss scores
        for (const data::Example *example : batch) {
            const std::vector<Span> spans = segmentsOf(*example);
            queries.push_back(spans[0]);
            encoded.passage_counts.push_back(static_cast<std::int32_t>(spans.size()) - 1);
            for (std::size_t i = 1; i < spans.size(); ++i) {
                if (i == 1) {
                    positive.push_back(static_cast<std::int64_t>(candidates.size()));
                }
                if (i == 1 || i > static_cast<std::size_t>(example->positive_passages)) {
                    candidates.push_back(static_cast<std::int64_t>(passages.size()));
                }
                encoded.passage_keys.push_back(textKey(spans[i]));
                passages.push_back(spans[i]);
            }
        }
        encoded.queries = encode(queries, longest(queries), std::nullopt);
        encoded.passages = encode(passages, longest(passages), std::nullopt);
        const torch::Tensor scored =
            encoded.passages.index_select(0, torch::tensor(candidates).to(device_));
        encoded.loss =
            models::spladeLoss(encoded.queries, scored, torch::tensor(positive).to(device_), 0, 0)
                .contrastive;
        return encoded;
    }

    // The whole step's loss over its vectors (fp32, whatever the encoder computed in: the
    // scores are sums over the vocabulary), and the step's figures.
    models::SpladeLossTerms stepLoss(const torch::Tensor &queries, const torch::Tensor &passages) {
        const double lambda_q =
            models::flopsWeight(settings_.lambda_q, step_, settings_.warmup_steps);
        const double lambda_d =
            models::flopsWeight(settings_.lambda_d, step_, settings_.warmup_steps);
        const compat::ScopedAutocastState fp32(compat::AutocastState{});
        // A training example's first passage is its positive.
        const std::vector<std::int64_t> positives(passage_offsets_.begin(),
                                                  passage_offsets_.end() - 1);
        models::SpladeLossTerms terms = models::spladeLoss(
            queries, passages, torch::tensor(positives, torch::kLong).to(device_), lambda_q,
            lambda_d);
        RetrievalStepMetrics metrics;
        metrics.flops_q = terms.flops_q.item<double>();
        metrics.flops_d = terms.flops_d.item<double>();
        metrics.lambda_q = lambda_q;
        metrics.lambda_d = lambda_d;
        metrics.query_nonzeros = models::meanNonZeros(queries.detach());
        metrics.passage_nonzeros = models::meanNonZeros(passages.detach());
        step_metrics_ = metrics;
        return terms;
    }

    // The first pass of a step cut in micro-batches: every vector without a graph, the whole
    // batch's loss, and its gradient with respect to each vector.
    void cacheVectorGradients(const ExampleBatch &all, std::size_t micro_batch) {
        std::vector<torch::Tensor> query_parts;
        std::vector<torch::Tensor> passage_parts;
        {
            torch::NoGradGuard no_grad;
            for (std::size_t start = 0; start < all.size(); start += micro_batch) {
                const std::size_t end = std::min(all.size(), start + micro_batch);
                const ExampleBatch part(all.begin() + static_cast<std::ptrdiff_t>(start),
                                        all.begin() + static_cast<std::ptrdiff_t>(end));
                const auto [q, p] = encodeStepPart(part, static_cast<std::int64_t>(start));
                query_parts.push_back(q.to(torch::kFloat32));
                passage_parts.push_back(p.to(torch::kFloat32));
            }
        }
        const torch::Tensor queries = torch::cat(query_parts).requires_grad_(true);
        const torch::Tensor passages = torch::cat(passage_parts).requires_grad_(true);
        const models::SpladeLossTerms terms = stepLoss(queries, passages);
        const std::vector<torch::Tensor> gradients =
            torch::autograd::grad({terms.objective}, {queries, passages});
        query_gradient_ = gradients[0];
        passage_gradient_ = gradients[1];
        step_loss_ = terms.contrastive.item<double>();
    }

    // Vectors of texts padded to `width`; dropout keyed by `row_ids` under `seed` when given.
    torch::Tensor encode(const std::vector<Span> &texts, std::int64_t width,
                         std::optional<std::pair<std::uint64_t, std::vector<std::int64_t>>> key) {
        const Collated batch = collate(texts, width, settings_.pad_id, device_);
        std::optional<models::ScopedDropoutKey> scope;
        if (key) {
            scope.emplace(key->first, std::move(key->second));
        }
        return models::spladePool(model_->logits(batch.ids, batch.mask), batch.mask);
    }

    // The query and passage vectors of the step's examples [start, start + part.size()).
    std::pair<torch::Tensor, torch::Tensor> encodeStepPart(const ExampleBatch &part,
                                                           std::int64_t start) {
        std::vector<Span> queries;
        std::vector<Span> passages;
        std::vector<std::int64_t> query_rows;
        std::vector<std::int64_t> passage_rows;
        for (std::size_t e = 0; e < part.size(); ++e) {
            const std::vector<Span> spans = segmentsOf(*part[e]);
            const std::int64_t place = start + static_cast<std::int64_t>(e);
            queries.push_back(spans[0]);
            query_rows.push_back(place);
            for (std::size_t i = 1; i < spans.size(); ++i) {
                passages.push_back(spans[i]);
                passage_rows.push_back(place * kPassageSlots + static_cast<std::int64_t>(i));
            }
        }
        torch::Tensor q = encode(queries, query_width_,
                                 std::make_pair(data::mix64(step_seed_ ^ kQuerySalt), query_rows));
        torch::Tensor p =
            encode(passages, passage_width_,
                   std::make_pair(data::mix64(step_seed_ ^ kPassageSalt), passage_rows));
        return {q, p};
    }

    std::unique_ptr<MaskedLanguageModel> model_;
    SpladeSettings settings_;
    torch::Device device_;

    // The prepared step.
    bool prepared_ = false;
    bool single_pass_ = false;
    std::int64_t step_ = 0;
    ExampleBatch step_examples_;
    std::uint64_t step_seed_ = 0;
    std::vector<std::int64_t> passage_offsets_; // first passage row of each example, then total
    std::int64_t query_width_ = 1;
    std::int64_t passage_width_ = 1;
    torch::Tensor query_gradient_;
    torch::Tensor passage_gradient_;
    double step_loss_ = 0;
    RetrievalStepMetrics step_metrics_;

    // The evaluation pass.
    InvertedIndex index_;
    std::map<std::string, std::int64_t> passage_numbers_;
    std::vector<SparseVector> eval_queries_;
    std::vector<std::vector<std::int64_t>> eval_relevant_;
};

} // namespace

std::unique_ptr<Recipe> makeSpladeRecipe(std::unique_ptr<MaskedLanguageModel> model,
                                         const SpladeSettings &settings, torch::Device device) {
    return std::make_unique<SpladeRecipe>(std::move(model), settings, device);
}

torch::Tensor spladeVectors(MaskedLanguageModel &model,
                            const std::vector<std::vector<std::int32_t>> &texts,
                            std::int32_t pad_id, torch::Device device) {
    std::vector<Span> spans;
    for (const std::vector<std::int32_t> &text : texts) {
        spans.push_back({text.data(), static_cast<std::int64_t>(text.size())});
    }
    const Collated batch = collate(spans, longest(spans), pad_id, device);
    return models::spladePool(model.logits(batch.ids, batch.mask), batch.mask);
}

std::vector<SparseVector> sparseRows(const torch::Tensor &vectors, std::int64_t top) {
    const torch::Tensor values = vectors.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    std::vector<SparseVector> rows(static_cast<std::size_t>(values.size(0)));
    const std::int64_t width = values.size(1);
    const float *data = values.data_ptr<float>();
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const float *row = data + static_cast<std::int64_t>(r) * width;
        std::vector<std::int32_t> order;
        for (std::int64_t v = 0; v < width; ++v) {
            if (row[v] != 0) {
                order.push_back(static_cast<std::int32_t>(v));
            }
        }
        std::stable_sort(order.begin(), order.end(),
                         [row](std::int32_t a, std::int32_t b) { return row[a] > row[b]; });
        if (top > 0 && static_cast<std::int64_t>(order.size()) > top) {
            order.resize(static_cast<std::size_t>(top));
        }
        for (const std::int32_t v : order) {
            rows[r].terms.push_back(v);
            rows[r].weights.push_back(row[v]);
        }
    }
    return rows;
}

} // namespace headroom::train
