// The SPLADE recipe's gradient cache: however a step is cut into micro-batches, the gradient is
// that of the whole batch's loss (in-batch negatives included), dropout too; and the inverted
// index behind the validation split's MRR@10 and Recall@100.
#include "models/keyed_dropout.h"
#include "models/splade.h"
#include "recipes/recipe.h"
#include "recipes/sparse_ranking.h"
#include "recipes/splade_recipe.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>

using namespace headroom;
using namespace headroom::train;

namespace {

constexpr std::int64_t kVocab = 30;

// Embedding, keyed dropout, projection to the vocabulary: enough of an MLM for the recipe.
struct TinyMlmImpl : torch::nn::Module {
    explicit TinyMlmImpl(double dropout) : dropout(dropout) {
        embedding = register_module("embedding", torch::nn::Embedding(kVocab, 8));
        mix = register_module("mix", torch::nn::Linear(8, 8));
        head = register_module("head", torch::nn::Linear(8, kVocab));
    }
    torch::Tensor forward(const torch::Tensor &ids, const torch::Tensor &mask) {
        torch::Tensor x = embedding(ids);
        // A little context so padding would matter if it leaked: the mean of the real tokens.
        const torch::Tensor weights = mask.unsqueeze(-1).to(torch::kFloat32);
        const torch::Tensor context = (x * weights).sum(1, true) / weights.sum(1, true);
        x = torch::tanh(mix(x + context));
        if (is_training()) {
            x = models::keyedDropout(x, dropout, 1);
        }
        return head(x);
    }
    double dropout;
    torch::nn::Embedding embedding{nullptr};
    torch::nn::Linear mix{nullptr};
    torch::nn::Linear head{nullptr};
};
TORCH_MODULE(TinyMlm);

class TinyModel : public MaskedLanguageModel {
public:
    explicit TinyModel(TinyMlm module) : module_(std::move(module)) {}
    std::shared_ptr<torch::nn::Module> module() override { return module_.ptr(); }
    torch::Tensor logits(const torch::Tensor &ids, const torch::Tensor &mask) override {
        return module_->forward(ids, mask);
    }
    void setCheckpointEvery(std::int64_t) override {}
    std::int64_t vocabSize() const override { return kVocab; }
    std::string describe() const override { return "tiny MLM"; }

private:
    TinyMlm module_;
};

// Query, then passages (the first one the positive); [CLS] = 1, [SEP] = 2.
data::Example example(std::uint64_t id, const std::vector<std::vector<std::int32_t>> &texts) {
    data::Example e;
    e.id = id;
    for (const std::vector<std::int32_t> &text : texts) {
        e.tokens.push_back(1);
        e.tokens.insert(e.tokens.end(), text.begin(), text.end());
        e.tokens.push_back(2);
        e.segment_lengths.push_back(static_cast<std::int32_t>(text.size() + 2));
    }
    e.positive_passages = 1;
    return e;
}

std::vector<data::Example> sampleStep() {
    return {example(0, {{5, 6}, {5, 7, 8}, {20, 21}}),
            example(1, {{9}, {9, 10, 11, 12}}),
            example(2, {{13, 14, 15}, {13, 3}, {22}}),
            example(3, {{16}, {16, 17}, {23, 24, 25}}),
            example(4, {{18, 19}, {18}}),
            example(5, {{26, 27}, {26, 28, 29}, {4}})};
}

struct StepResult {
    double loss = 0;
    std::vector<torch::Tensor> gradients;
    RetrievalStepMetrics metrics;
};

// One step of the recipe, as the trainer runs it.
StepResult runStep(Recipe &recipe, const std::vector<data::Example> &examples,
                   std::size_t micro_batch, std::int64_t step) {
    const std::uint64_t seed = models::dropoutStepSeed(7, step);
    ExampleBatch all;
    for (const data::Example &e : examples) {
        all.push_back(&e);
    }
    for (torch::Tensor &parameter : recipe.module()->parameters()) {
        parameter.mutable_grad() = torch::Tensor();
    }
    recipe.prepareStep(all, micro_batch, seed, step);
    StepResult result;
    for (std::size_t start = 0; start < all.size(); start += micro_batch) {
        const ExampleBatch batch(
            all.begin() + static_cast<std::ptrdiff_t>(start),
            all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), start + micro_batch)));
        const models::ScopedDropoutKey key(seed, static_cast<std::int64_t>(start),
                                           static_cast<std::int64_t>(batch.size()));
        TrainingLoss terms = recipe.trainingLoss(batch);
        if (!terms.step_total) {
            return {};
        }
        terms.objective.backward();
        result.loss += terms.loss.item<double>() * static_cast<double>(batch.size()) /
                       static_cast<double>(all.size());
        result.metrics = *terms.retrieval;
    }
    for (const torch::Tensor &parameter : recipe.module()->parameters()) {
        result.gradients.push_back(parameter.grad().clone());
    }
    return result;
}

std::unique_ptr<Recipe> makeRecipe(double dropout, double lambda_q, double lambda_d,
                                   std::int64_t warmup = 0) {
    torch::manual_seed(3);
    SpladeSettings settings;
    settings.lambda_q = lambda_q;
    settings.lambda_d = lambda_d;
    settings.warmup_steps = warmup;
    return makeSpladeRecipe(std::make_unique<TinyModel>(TinyMlm(dropout)), settings,
                            torch::Device(torch::kCPU));
}

bool sameGradients(const StepResult &a, const StepResult &b) {
    if (a.gradients.size() != b.gradients.size() || a.gradients.empty()) {
        return false;
    }
    for (std::size_t i = 0; i < a.gradients.size(); ++i) {
        if (!torch::allclose(a.gradients[i], b.gradients[i], 1e-5, 1e-6)) {
            return false;
        }
    }
    return true;
}

SparseVector sparse(std::vector<std::int32_t> terms, std::vector<float> weights) {
    return {std::move(terms), std::move(weights)};
}

} // namespace

class TestSpladeRecipe : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void gradientIsTheWholeBatchGradient();
    void microBatchesDoNotChangeTheStep_data();
    void microBatchesDoNotChangeTheStep();
    void flopsWeightsWarmUpQuadratically();
    void invertedIndexRanksByDotProduct();
    void retrievalMeasures();
};

void TestSpladeRecipe::gradientIsTheWholeBatchGradient() {
    // Without dropout the whole batch can be computed directly: every query against every
    // passage of the step, and both FLOPS terms over the whole step.
    const std::unique_ptr<Recipe> recipe = makeRecipe(0.0, 0.2, 0.1);
    const std::vector<data::Example> examples = sampleStep();
    const StepResult cached = runStep(*recipe, examples, 2, 5);

    auto &model = static_cast<TinyMlmImpl &>(*recipe->module());
    for (torch::Tensor &parameter : model.parameters()) {
        parameter.mutable_grad() = torch::Tensor();
    }
    std::vector<std::vector<std::int32_t>> queries;
    std::vector<std::vector<std::int32_t>> passages;
    std::vector<std::int64_t> positive;
    for (const data::Example &e : examples) {
        std::size_t at = 0;
        for (std::size_t s = 0; s < e.segment_lengths.size(); ++s) {
            const auto length = static_cast<std::size_t>(e.segment_lengths[s]);
            std::vector<std::int32_t> text(e.tokens.begin() + static_cast<std::ptrdiff_t>(at),
                                           e.tokens.begin() +
                                               static_cast<std::ptrdiff_t>(at + length));
            at += length;
            if (s == 0) {
                queries.push_back(text);
            } else {
                if (s == 1) {
                    positive.push_back(static_cast<std::int64_t>(passages.size()));
                }
                passages.push_back(text);
            }
        }
    }
    TinyModel direct(TinyMlm(std::static_pointer_cast<TinyMlmImpl>(recipe->module())));
    const torch::Tensor q = spladeVectors(direct, queries, 0, torch::kCPU);
    const torch::Tensor p = spladeVectors(direct, passages, 0, torch::kCPU);
    const models::SpladeLossTerms terms =
        models::spladeLoss(q, p, torch::tensor(positive), 0.2, 0.1);
    terms.objective.backward();

    QVERIFY(std::abs(cached.loss - terms.contrastive.item<double>()) < 1e-6);
    QVERIFY(std::abs(cached.metrics.flops_q - terms.flops_q.item<double>()) < 1e-6);
    QVERIFY(std::abs(cached.metrics.flops_d - terms.flops_d.item<double>()) < 1e-6);
    QCOMPARE(cached.metrics.query_nonzeros, models::meanNonZeros(q));
    std::size_t i = 0;
    for (const torch::Tensor &parameter : model.parameters()) {
        QVERIFY2(torch::allclose(cached.gradients[i++], parameter.grad(), 1e-5, 1e-6),
                 "a parameter's gradient differs from the whole batch's");
    }
}

void TestSpladeRecipe::microBatchesDoNotChangeTheStep_data() {
    QTest::addColumn<int>("micro_batch");
    QTest::newRow("1") << 1;
    QTest::newRow("2") << 2;
    QTest::newRow("4 (an uneven cut)") << 4;
}

void TestSpladeRecipe::microBatchesDoNotChangeTheStep() {
    // With dropout: the masks are keyed per text, so the cut does not change them either.
    QFETCH(int, micro_batch);
    const std::vector<data::Example> examples = sampleStep();
    const std::unique_ptr<Recipe> whole = makeRecipe(0.3, 0.05, 0.02);
    const StepResult expected = runStep(*whole, examples, examples.size(), 3);
    const std::unique_ptr<Recipe> cut = makeRecipe(0.3, 0.05, 0.02);
    const StepResult actual = runStep(*cut, examples, static_cast<std::size_t>(micro_batch), 3);
    QVERIFY(std::abs(actual.loss - expected.loss) < 1e-6);
    QVERIFY(sameGradients(actual, expected));
    // Another step draws other masks: the comparison above could fail.
    const std::unique_ptr<Recipe> other = makeRecipe(0.3, 0.05, 0.02);
    QVERIFY(!sameGradients(runStep(*other, examples, examples.size(), 4), expected));
}

void TestSpladeRecipe::flopsWeightsWarmUpQuadratically() {
    QCOMPARE(models::flopsWeight(0.4, 5, 10), 0.1);
    QCOMPARE(models::flopsWeight(0.4, 10, 10), 0.4);
    QCOMPARE(models::flopsWeight(0.4, 30, 10), 0.4);
    QCOMPARE(models::flopsWeight(0.4, 1, 0), 0.4);
    const std::unique_ptr<Recipe> recipe = makeRecipe(0.0, 0.4, 0.2, 10);
    const StepResult step = runStep(*recipe, sampleStep(), 3, 5);
    QCOMPARE(step.metrics.lambda_q, 0.1);
    QCOMPARE(step.metrics.lambda_d, 0.05);
}

void TestSpladeRecipe::invertedIndexRanksByDotProduct() {
    InvertedIndex index;
    QCOMPARE(index.add(sparse({1, 4}, {1.0f, 2.0f})), std::int64_t{0});
    index.add(sparse({4}, {0.5f}));
    index.add(sparse({2, 7}, {3.0f, 1.0f}));
    index.add(sparse({}, {}));
    const SparseVector query = sparse({4, 7}, {1.0f, 2.0f});
    // Scores: 2.0, 0.5, 2.0, 0 -> passage 0 and 2 tie (lower number first).
    QCOMPARE(index.top(query, 3), (std::vector<std::int64_t>{0, 2, 1}));
    QCOMPARE(index.top(query, 10).size(), std::size_t{4});
    const std::vector<SparseVector> rows =
        sparseRows(torch::tensor({0.0f, 0.5f, 0.0f, 2.0f}).view({1, 4}), 1);
    QCOMPARE(rows[0].terms, std::vector<std::int32_t>{3});
}

void TestSpladeRecipe::retrievalMeasures() {
    InvertedIndex index;
    for (int i = 0; i < 120; ++i) {
        index.add(sparse({i}, {1.0f + 0.01f * static_cast<float>(i)}));
    }
    // Query 0 finds passage 119 first (relevant: rank 1); query 1's relevant passage 0 scores
    // lowest of the ones it touches; query 2 has two relevant passages, one out of the top 100.
    std::vector<SparseVector> queries;
    std::vector<float> weights(120, 1.0f);
    std::vector<std::int32_t> all(120);
    for (int i = 0; i < 120; ++i) {
        all[static_cast<std::size_t>(i)] = i;
    }
    queries.push_back(sparse({119}, {1.0f}));
    queries.push_back(sparse(all, weights));
    queries.push_back(sparse(all, weights));
    const RetrievalQuality quality = measureRetrieval(index, queries, {{119}, {0}, {117, 5}});
    QCOMPARE(quality.queries, std::int64_t{3});
    // Ranks: query 0 rank 1; query 1 rank 120 (not in the top 100); query 2: 117 is rank 3.
    QVERIFY(std::abs(quality.mrr_at_10 - (1.0 + 0.0 + 1.0 / 3.0) / 3.0) < 1e-12);
    QVERIFY(std::abs(quality.recall_at_100 - (1.0 + 0.0 + 0.5) / 3.0) < 1e-12);
}

QTEST_GUILESS_MAIN(TestSpladeRecipe)
#include "test_splade_recipe.moc"
