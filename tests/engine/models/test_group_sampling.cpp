// Sampling a group of continuations in lockstep through one KV cache (GRPO's rollouts): each
// row's tokens come from its own keyed draws, so they do not depend on how many rows run
// together; greedy rows equal generate's; the filters keep what sampleToken keeps; rows stop
// at an end-of-sequence id.
#include "causal_lm_support.h"
#include "models/generation.h"
#include "models/group_sampling.h"

#include <QtTest>

#include <cmath>
#include <map>
#include <vector>

using namespace headroom;

namespace {

models::CausalLm tinyModel() {
    torch::manual_seed(3);
    models::CausalLm model(test_support::tinyLlamaOptions());
    model->resetParameters();
    model->eval();
    return model;
}

const std::vector<std::int64_t> kPrompt = {5, 9, 2, 17, 30};

} // namespace

class TestGroupSampling : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void rowsDoNotDependOnTheirCompany();
    void greedyRowsEqualGenerate();
    void topKOfOneIsGreedy();
    void rowsStopAtTheEndOfSequence();
    void drawsFollowTheFilteredDistribution();
    void keyedDrawsDifferByKeyAndIndex();
};

void TestGroupSampling::rowsDoNotDependOnTheirCompany() {
    models::CausalLm model = tinyModel();
    models::SamplingOptions options;
    options.max_new_tokens = 12;
    options.temperature = 1.0;
    const std::vector<std::uint64_t> keys = {11, 22, 33, 44};
    const auto together = models::sampleContinuations(*model, kPrompt, keys, options, torch::kCPU);
    QCOMPARE(together.size(), keys.size());
    bool rows_differ = false;
    for (std::size_t row = 0; row < keys.size(); ++row) {
        const auto alone =
            models::sampleContinuations(*model, kPrompt, {keys[row]}, options, torch::kCPU);
        QCOMPARE(alone.front(), together[row]);
        QCOMPARE(together[row].size(), std::size_t{12});
        rows_differ = rows_differ || together[row] != together.front();
    }
    QVERIFY(rows_differ); // different keys draw different completions
}

void TestGroupSampling::greedyRowsEqualGenerate() {
    models::CausalLm model = tinyModel();
    models::SamplingOptions options;
    options.max_new_tokens = 10;
    options.temperature = 0;
    const auto rows = models::sampleContinuations(*model, kPrompt, {1, 2, 3}, options, torch::kCPU);
    const auto logits = models::causalLmLogits(*model, torch::kCPU);
    const std::vector<std::int64_t> expected = models::generateTokens(*logits, kPrompt, options);
    for (const auto &row : rows) {
        QCOMPARE(row, expected);
    }
}

void TestGroupSampling::topKOfOneIsGreedy() {
    models::CausalLm model = tinyModel();
    models::SamplingOptions options;
    options.max_new_tokens = 8;
    options.temperature = 0;
    const auto greedy = models::sampleContinuations(*model, kPrompt, {1}, options, torch::kCPU);
    options.temperature = 1.5;
    options.top_k = 1;
    const auto top_one = models::sampleContinuations(*model, kPrompt, {7, 8}, options, torch::kCPU);
    QCOMPARE(top_one[0], greedy[0]);
    QCOMPARE(top_one[1], greedy[0]);
}

void TestGroupSampling::rowsStopAtTheEndOfSequence() {
    models::CausalLm model = tinyModel();
    models::SamplingOptions options;
    options.max_new_tokens = 20;
    options.temperature = 1.0;
    const std::vector<std::uint64_t> keys = {1, 2, 3, 4, 5, 6};
    const auto free_rows = models::sampleContinuations(*model, kPrompt, keys, options, torch::kCPU);
    // The third token of the first row ends every row that draws it; the others go on.
    options.eos_ids = {free_rows[0][2]};
    const auto rows = models::sampleContinuations(*model, kPrompt, keys, options, torch::kCPU);
    QCOMPARE(rows[0].size(), std::size_t{3});
    for (std::size_t row = 0; row < rows.size(); ++row) {
        const auto stop =
            std::find(free_rows[row].begin(), free_rows[row].end(), options.eos_ids.front());
        const std::vector<std::int64_t> expected(
            free_rows[row].begin(),
            stop == free_rows[row].end() ? stop : stop + 1); // the end-of-sequence id is kept
        QCOMPARE(rows[row], expected);
    }
    // The context bounds the rows too (max_positions 32).
    options.eos_ids.clear();
    options.max_new_tokens = 100;
    const auto long_rows = models::sampleContinuations(*model, kPrompt, {9}, options, torch::kCPU);
    QCOMPARE(long_rows[0].size(), std::size_t{32 - kPrompt.size()});
}

void TestGroupSampling::drawsFollowTheFilteredDistribution() {
    const torch::Tensor logits = torch::tensor({{2.0f, 1.0f, 0.0f, -1.0f, -3.0f}});
    const torch::Tensor probabilities = logits.softmax(1)[0];
    models::SamplingOptions options;
    options.temperature = 1.0;
    constexpr int kDraws = 4000;
    std::map<std::int64_t, int> counts;
    for (int i = 0; i < kDraws; ++i) {
        const double uniform = (i + 0.5) / kDraws; // an even grid: the CDF's inverse exactly
        counts[models::sampleRows(logits, options, {uniform}).front()] += 1;
    }
    for (std::int64_t token = 0; token < 5; ++token) {
        QVERIFY(std::abs(counts[token] / double(kDraws) - probabilities[token].item<double>()) <
                1e-3);
    }
    // top_p 0.8: the nucleus is tokens 0 and 1 (0.64 + 0.24 >= 0.8); the rest is never drawn.
    options.top_p = 0.8;
    counts.clear();
    for (int i = 0; i < kDraws; ++i) {
        counts[models::sampleRows(logits, options, {(i + 0.5) / kDraws}).front()] += 1;
    }
    QCOMPARE(counts.size(), std::size_t{2});
    QVERIFY(counts.count(0) == 1 && counts.count(1) == 1);
    // top_k 3 at temperature 0.5: three tokens, renormalised.
    options.top_p = 1.0;
    options.top_k = 3;
    options.temperature = 0.5;
    counts.clear();
    for (int i = 0; i < kDraws; ++i) {
        counts[models::sampleRows(logits, options, {(i + 0.5) / kDraws}).front()] += 1;
    }
    const torch::Tensor kept = (logits[0].narrow(0, 0, 3) / 0.5).softmax(0);
    QCOMPARE(counts.size(), std::size_t{3});
    for (std::int64_t token = 0; token < 3; ++token) {
        QVERIFY(std::abs(counts[token] / double(kDraws) - kept[token].item<double>()) < 1e-3);
    }
}

void TestGroupSampling::keyedDrawsDifferByKeyAndIndex() {
    double sum = 0;
    for (std::int64_t index = 0; index < 1000; ++index) {
        const double draw = models::keyedUniform(42, index);
        QVERIFY(draw > 0 && draw < 1);
        sum += draw;
    }
    QVERIFY(std::abs(sum / 1000 - 0.5) < 0.05);
    QVERIFY(models::keyedUniform(42, 0) != models::keyedUniform(43, 0));
    QCOMPARE(models::keyedUniform(42, 7), models::keyedUniform(42, 7));
}

QTEST_GUILESS_MAIN(TestGroupSampling)
#include "test_group_sampling.moc"
