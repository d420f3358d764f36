#include "compat/autocast.h"
#include "models/activation_checkpoint.h"
#include "models/gpt.h"

#include <torch/torch.h>

#include <QtTest>

#include <memory>
#include <optional>
#include <vector>

using headroom::compat::AutocastGuard;
using headroom::models::checkpointed;
using headroom::models::GptBlock;
using headroom::models::GptOptions;

namespace {

// QCOMPARE on c10::ScalarType would print it through c10::toString (found by ADL), whose
// static string QtTest then frees; compare the names instead.
QString dtypeName(c10::ScalarType dtype) {
    return QString::fromLatin1(c10::toString(dtype));
}

constexpr std::int64_t kBatch = 2;
constexpr std::int64_t kLength = 16;
constexpr std::int64_t kDim = 32;

GptOptions blockOptions() {
    return GptOptions(/*vocab_size=*/64, /*seq_len=*/kLength).dim(kDim).heads(4).dropout(0.2);
}

// Blocks in training mode (dropout active) with fixed initial weights.
std::vector<GptBlock> makeBlocks(int count) {
    torch::manual_seed(42);
    std::vector<GptBlock> blocks;
    for (int index = 0; index < count; ++index) {
        GptBlock block(blockOptions());
        block->train();
        blocks.push_back(block);
    }
    return blocks;
}

std::vector<torch::Tensor> parametersOf(const std::vector<GptBlock> &blocks) {
    std::vector<torch::Tensor> parameters;
    for (const GptBlock &block : blocks) {
        for (const torch::Tensor &parameter : block->parameters()) {
            parameters.push_back(parameter);
        }
    }
    return parameters;
}

struct Result {
    torch::Tensor output;
    torch::Tensor input_gradient;
    std::vector<torch::Tensor> parameter_gradients;
    torch::Tensor random_after; // the next numbers of the outer random stream
    int block_calls = 0;
};

struct RunSettings {
    // checkpoint_every = 0: no checkpointing; k: blocks 0, k, 2k, ... are checkpointed.
    int checkpoint_every = 0;
    bool bf16 = false;
    std::uint64_t seed = 7;
    torch::Device device = torch::kCPU;
};

Result runBlocks(std::vector<GptBlock> &blocks, const RunSettings &settings) {
    for (torch::Tensor &parameter : parametersOf(blocks)) {
        parameter.mutable_grad().reset();
    }
    torch::manual_seed(1234);
    const torch::Tensor input =
        torch::randn({kBatch, kLength, kDim}).to(settings.device).requires_grad_(true);
    const torch::Tensor loss_weights = torch::randn({kBatch, kLength, kDim}).to(settings.device);

    Result result;
    auto calls = std::make_shared<int>(0);
    torch::manual_seed(settings.seed);
    if (settings.device.is_cuda()) {
        torch::cuda::manual_seed(settings.seed);
    }
    torch::Tensor loss;
    {
        std::optional<AutocastGuard> autocast;
        if (settings.bf16) {
            autocast.emplace(torch::kCPU, torch::kBFloat16);
        }
        torch::Tensor hidden = input;
        for (std::size_t index = 0; index < blocks.size(); ++index) {
            GptBlock block = blocks[index];
            auto forward = [block, calls](const torch::Tensor &x) {
                ++*calls;
                return block.ptr()->forward(x);
            };
            const bool checkpoint =
                settings.checkpoint_every > 0 &&
                index % static_cast<std::size_t>(settings.checkpoint_every) == 0;
            hidden = checkpoint ? checkpointed(forward, hidden) : forward(hidden);
        }
        result.output = hidden.detach().clone();
        loss = (hidden.to(torch::kFloat) * loss_weights).sum();
    }
    loss.backward();
    result.random_after = torch::rand({16});
    if (settings.device.is_cuda()) {
        result.random_after =
            torch::cat({result.random_after, torch::rand({16}, settings.device).cpu()});
    }
    result.input_gradient = input.grad();
    for (const torch::Tensor &parameter : parametersOf(blocks)) {
        result.parameter_gradients.push_back(parameter.grad().defined() ? parameter.grad().clone()
                                                                        : torch::Tensor());
    }
    result.block_calls = *calls;
    return result;
}

void compareExactly(const Result &plain, const Result &checkpoint) {
    QVERIFY(torch::equal(plain.output, checkpoint.output));
    QVERIFY(checkpoint.input_gradient.defined());
    QVERIFY(torch::equal(plain.input_gradient, checkpoint.input_gradient));
    QCOMPARE(checkpoint.parameter_gradients.size(), plain.parameter_gradients.size());
    for (std::size_t index = 0; index < plain.parameter_gradients.size(); ++index) {
        QVERIFY2(checkpoint.parameter_gradients[index].defined(),
                 qPrintable(QStringLiteral("parameter %1 got no gradient").arg(index)));
        QVERIFY2(
            torch::equal(plain.parameter_gradients[index], checkpoint.parameter_gradients[index]),
            qPrintable(QStringLiteral("parameter %1 differs").arg(index)));
    }
    QVERIFY(torch::equal(plain.random_after, checkpoint.random_after));
}

} // namespace

class TestActivationCheckpoint : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void dropoutIsActive() {
        // Otherwise "equal gradients" below would not show that the masks are replayed.
        std::vector<GptBlock> blocks = makeBlocks(1);
        const Result first = runBlocks(blocks, {0, false, 7});
        const Result second = runBlocks(blocks, {0, false, 8});
        QVERIFY(!torch::equal(first.output, second.output));
    }

    void gradientsEqualThePlainOnes_data() {
        QTest::addColumn<int>("blocks");
        QTest::addColumn<int>("checkpoint_every");
        QTest::addColumn<bool>("bf16");
        QTest::newRow("one block") << 1 << 1 << false;
        QTest::newRow("chain of three") << 3 << 1 << false;
        QTest::newRow("every other of four") << 4 << 2 << false;
        QTest::newRow("one block, bf16 autocast") << 1 << 1 << true;
        QTest::newRow("chain of three, bf16 autocast") << 3 << 1 << true;
    }

    void gradientsEqualThePlainOnes() {
        QFETCH(int, blocks);
        QFETCH(int, checkpoint_every);
        QFETCH(bool, bf16);
        std::vector<GptBlock> modules = makeBlocks(blocks);
        const Result plain = runBlocks(modules, {0, bf16, 7});
        const Result checkpoint = runBlocks(modules, {checkpoint_every, bf16, 7});
        compareExactly(plain, checkpoint);
        if (bf16) {
            QCOMPARE(dtypeName(checkpoint.output.scalar_type()),
                     dtypeName(plain.output.scalar_type()));
        }
        // Each checkpointed block ran twice: forward, and the recompute in backward.
        const int checkpointed_blocks = (blocks + checkpoint_every - 1) / checkpoint_every;
        QCOMPARE(plain.block_calls, blocks);
        QCOMPARE(checkpoint.block_calls, blocks + checkpointed_blocks);
        QVERIFY(!headroom::compat::currentAutocastState().cpu_enabled);
        QVERIFY(headroom::compat::currentAutocastState().cache_enabled);
    }

    void gradientsEqualThePlainOnesOnCuda() {
        if (!torch::cuda::is_available()) {
            QSKIP("no CUDA device: the CUDA generator state is not checked here");
        }
        std::vector<GptBlock> blocks = makeBlocks(3);
        for (GptBlock &block : blocks) {
            block->to(torch::kCUDA);
        }
        const Result plain = runBlocks(blocks, {0, false, 7, torch::kCUDA});
        const Result checkpoint = runBlocks(blocks, {1, false, 7, torch::kCUDA});
        compareExactly(plain, checkpoint);
    }

    void weightSharedOutsideTheBlockKeepsItsGradient() {
        // Tied weights: the same Linear inside a checkpointed block and after it, in one bf16
        // autocast region. A bf16 cast of the weight cached during the no-grad forward would be
        // reused by the second call without a gradient edge (LibTorch 1.13 caches on CUDA only,
        // so on the CPU this guards the 2.x behaviour).
        torch::manual_seed(21);
        torch::nn::Linear shared(8, 8);
        const torch::Tensor input = torch::randn({4, 8}).requires_grad_(true);
        auto weightGradient = [&](bool checkpoint) {
            shared->weight.mutable_grad().reset();
            torch::Tensor loss;
            {
                AutocastGuard autocast(torch::kCPU, torch::kBFloat16);
                auto block = [&](const torch::Tensor &x) {
                    return torch::relu(shared(x));
                };
                const torch::Tensor hidden = checkpoint ? checkpointed(block, input) : block(input);
                loss = shared(hidden).to(torch::kFloat).pow(2).sum();
            }
            loss.backward();
            return shared->weight.grad().clone();
        };
        const torch::Tensor plain = weightGradient(false);
        const torch::Tensor checkpoint = weightGradient(true);
        QVERIFY(torch::equal(plain, checkpoint));
    }

    void passesThroughWithoutGrad() {
        std::vector<GptBlock> blocks = makeBlocks(1);
        const torch::Tensor input = torch::randn({kBatch, kLength, kDim}).requires_grad_(true);
        int calls = 0;
        auto forward = [&](const torch::Tensor &x) {
            ++calls;
            return blocks[0]->forward(x);
        };
        torch::NoGradGuard no_grad;
        torch::manual_seed(3);
        const torch::Tensor plain = forward(input);
        torch::manual_seed(3);
        const torch::Tensor checkpoint = checkpointed(forward, input);
        QVERIFY(torch::equal(plain, checkpoint));
        QVERIFY(!checkpoint.requires_grad());
        QCOMPARE(calls, 2);
    }

    void inputWithoutGradStillTrainsTheBlock() {
        std::vector<GptBlock> blocks = makeBlocks(1);
        const torch::Tensor input = torch::randn({kBatch, kLength, kDim});
        auto gradients = [&](bool checkpoint) {
            for (torch::Tensor &parameter : parametersOf(blocks)) {
                parameter.mutable_grad().reset();
            }
            torch::manual_seed(9);
            auto forward = [&](const torch::Tensor &x) {
                return blocks[0]->forward(x);
            };
            const torch::Tensor output = checkpoint ? checkpointed(forward, input) : forward(input);
            output.pow(2).sum().backward();
            std::vector<torch::Tensor> result;
            for (const torch::Tensor &parameter : parametersOf(blocks)) {
                result.push_back(parameter.grad().clone());
            }
            return result;
        };
        const std::vector<torch::Tensor> plain = gradients(false);
        const std::vector<torch::Tensor> checkpoint = gradients(true);
        for (std::size_t index = 0; index < plain.size(); ++index) {
            QVERIFY(torch::equal(plain[index], checkpoint[index]));
        }
    }

    void autogradGradSeesTheInput() {
        // The documented limit: autograd::grad(inputs=) gets the input's gradient right, while
        // the block's parameter gradients go to .grad through the nested backward.
        std::vector<GptBlock> blocks = makeBlocks(1);
        const torch::Tensor input = torch::randn({kBatch, kLength, kDim}).requires_grad_(true);
        auto forward = [&](const torch::Tensor &x) {
            return blocks[0]->forward(x);
        };
        torch::manual_seed(5);
        const torch::Tensor plain =
            torch::autograd::grad({forward(input).pow(2).sum()}, {input})[0];
        torch::manual_seed(5);
        const torch::Tensor checkpoint =
            torch::autograd::grad({checkpointed(forward, input).pow(2).sum()}, {input})[0];
        QVERIFY(torch::equal(plain, checkpoint));
        QVERIFY(blocks[0]->parameters().front().grad().defined());
    }

    void inPlaceChangeOfTheInputIsReported() {
        std::vector<GptBlock> blocks = makeBlocks(1);
        const torch::Tensor leaf = torch::randn({kBatch, kLength, kDim}).requires_grad_(true);
        torch::Tensor input = leaf * 1.0;
        const torch::Tensor output =
            checkpointed([&](const torch::Tensor &x) { return blocks[0]->forward(x); }, input);
        input.add_(1.0);
        QVERIFY_THROWS_EXCEPTION(c10::Error, output.sum().backward());
    }

    void failingBlockLeavesAutocastAlone() {
        const torch::Tensor input = torch::randn({2, 3}).requires_grad_(true);
        AutocastGuard guard(torch::kCPU, torch::kBFloat16);
        const auto before = headroom::compat::currentAutocastState();
        QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                                 checkpointed(
                                     [](const torch::Tensor &) -> torch::Tensor {
                                         throw std::runtime_error("block failed");
                                     },
                                     input));
        const auto after = headroom::compat::currentAutocastState();
        QCOMPARE(after.cache_enabled, before.cache_enabled);
        QCOMPARE(after.cpu_enabled, before.cpu_enabled);
    }
};

QTEST_GUILESS_MAIN(TestActivationCheckpoint)
#include "test_activation_checkpoint.moc"
