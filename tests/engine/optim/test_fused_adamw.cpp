#include "optim/fused_adamw.h"
#include "optimizer_test_support.h"

#include <torch/torch.h>

#include <QtTest>

#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

using headroom::train::FusedAdamW;
using headroom::train::FusedAdamWOptions;

Q_DECLARE_METATYPE(c10::ScalarType)

namespace {

// Odd sizes exercise the SIMD tails; the large one spans several parallel chunks.
std::vector<torch::Tensor> makeParameters(c10::ScalarType dtype) {
    torch::manual_seed(7);
    const std::vector<std::vector<std::int64_t>> shapes = {{7}, {3, 5}, {33, 17}, {1}, {400, 250}};
    std::vector<torch::Tensor> parameters;
    for (const auto &shape : shapes) {
        parameters.push_back(torch::randn(shape, torch::dtype(dtype)).requires_grad_(true));
    }
    return parameters;
}

double maxDifference(const std::vector<torch::Tensor> &a, const std::vector<torch::Tensor> &b) {
    double worst = 0;
    for (std::size_t index = 0; index < a.size(); ++index) {
        worst = std::max(
            worst,
            (a[index].detach() - b[index].detach()).abs().max().to(torch::kDouble).item<double>());
    }
    return worst;
}

// LibTorch 1.13 keys optimizer state by the printed TensorImpl address, 2.x by the pointer.
template <typename StateMap>
const torch::optim::AdamWParamState &adamwState(const StateMap &state,
                                                const torch::Tensor &parameter) {
    using Key = typename StateMap::key_type;
    if constexpr (std::is_same_v<Key, std::string>) {
        std::ostringstream key; // how 1.13 prints it (c10::guts::to_string, gone in 2.x)
        key << parameter.unsafeGetTensorImpl();
        return static_cast<const torch::optim::AdamWParamState &>(*state.at(key.str()));
    } else {
        return static_cast<const torch::optim::AdamWParamState &>(
            *state.at(parameter.unsafeGetTensorImpl()));
    }
}

} // namespace

class TestFusedAdamW : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void matchesTorchAdamW_data();
    void matchesTorchAdamW();
    void parametersBecomeViewsOfOneBuffer();
    void moduleTrainsThroughTheBuffer();
    void duplicatesAreKeptOnce();
    void zeroGradSetsGradientsToNone();
    void rejectsMixedDtypes();
};

void TestFusedAdamW::matchesTorchAdamW_data() {
    QTest::addColumn<c10::ScalarType>("dtype");
    QTest::addColumn<double>("weight_decay");
    QTest::addColumn<double>("max_norm");       // 0: no clipping
    QTest::addColumn<double>("grad_magnitude"); // large gradients make clipping bite
    QTest::addColumn<double>("tolerance");
    QTest::newRow("float fused") << c10::kFloat << 0.01 << 0.0 << 1.0 << 2e-6;
    QTest::newRow("float fused, clipped") << c10::kFloat << 0.01 << 1.0 << 3.0 << 2e-6;
    QTest::newRow("float fused, no decay") << c10::kFloat << 0.0 << 1.0 << 0.01 << 2e-6;
    QTest::newRow("double generic") << c10::kDouble << 0.1 << 0.0 << 1.0 << 1e-12;
    QTest::newRow("double generic, clipped") << c10::kDouble << 0.01 << 1.0 << 3.0 << 1e-12;
}

void TestFusedAdamW::matchesTorchAdamW() {
    QFETCH(c10::ScalarType, dtype);
    QFETCH(double, weight_decay);
    QFETCH(double, max_norm);
    QFETCH(double, grad_magnitude);
    QFETCH(double, tolerance);

    std::vector<torch::Tensor> expected = makeParameters(dtype);
    std::vector<torch::Tensor> actual = test_support::cloneParameters(expected);
    torch::optim::AdamW reference(
        expected, torch::optim::AdamWOptions(1e-2).weight_decay(weight_decay).eps(1e-8));
    FusedAdamW fused(actual, FusedAdamWOptions().lr(1e-2).weight_decay(weight_decay));

    for (int step = 1; step <= 6; ++step) {
        test_support::setGradients(expected, step, grad_magnitude, 1);
        test_support::setGradients(actual, step, grad_magnitude, 1);
        if (max_norm > 0) {
            const double expected_norm = torch::nn::utils::clip_grad_norm_(expected, max_norm);
            const double actual_norm = fused.clipGradNorm(max_norm);
            QVERIFY2(std::abs(expected_norm - actual_norm) <= 1e-5 * expected_norm,
                     qPrintable(QString("norm %1 vs %2").arg(actual_norm).arg(expected_norm)));
        }
        reference.step();
        fused.step();
        const double difference = maxDifference(expected, actual);
        QVERIFY2(difference <= tolerance,
                 qPrintable(QString("step %1: max difference %2").arg(step).arg(difference)));
    }
    // Parameter 1 had gradients on odd steps only: three updates, as in torch.
    QCOMPARE(fused.stepCounts()[1], std::int64_t{3});
    QCOMPARE(fused.stepCounts()[0], std::int64_t{6});
    // The moments match too (checkpoints rely on them).
    for (std::size_t index = 0; index < expected.size(); ++index) {
        const auto &state = adamwState(reference.state(), expected[index]);
        QVERIFY(torch::allclose(fused.expAvgOf(index), state.exp_avg(), 1e-5, tolerance));
        QVERIFY(torch::allclose(fused.expAvgSqOf(index), state.exp_avg_sq(), 1e-5, tolerance));
    }
}

void TestFusedAdamW::parametersBecomeViewsOfOneBuffer() {
    std::vector<torch::Tensor> parameters = makeParameters(c10::kFloat);
    std::vector<torch::Tensor> before = test_support::cloneParameters(parameters);
    FusedAdamW fused(parameters);
    const auto *buffer_begin = static_cast<const char *>(fused.flatParameters().data_ptr());
    const auto *buffer_end = buffer_begin + fused.flatParameters().nbytes();
    for (std::size_t index = 0; index < parameters.size(); ++index) {
        const auto *data = static_cast<const char *>(parameters[index].data_ptr());
        QVERIFY(data >= buffer_begin && data + parameters[index].nbytes() <= buffer_end);
        // 64-byte aligned starts.
        QCOMPARE(reinterpret_cast<std::uintptr_t>(data) % 64, std::uintptr_t{0});
        QVERIFY(torch::equal(parameters[index], before[index]));
        QVERIFY(parameters[index].requires_grad());
    }
}

void TestFusedAdamW::moduleTrainsThroughTheBuffer() {
    torch::manual_seed(3);
    torch::nn::Linear layer(4, 2);
    const torch::Tensor x = torch::randn({16, 4});
    const torch::Tensor y = torch::randn({16, 2});
    FusedAdamW fused(layer->parameters(), FusedAdamWOptions().lr(0.05));
    const auto loss = [&] {
        return torch::mse_loss(layer(x), y);
    };
    const double initial = loss().item<double>();
    for (int step = 0; step < 50; ++step) {
        torch::Tensor value = loss();
        value.backward();
        fused.clipGradNorm(1.0);
        fused.step();
        fused.zeroGrad();
    }
    QVERIFY2(loss().item<double>() < 0.7 * initial, "the module's own parameters did not move");
}

void TestFusedAdamW::duplicatesAreKeptOnce() {
    const torch::Tensor shared = torch::randn({10}).requires_grad_(true);
    FusedAdamW fused({shared, shared});
    QCOMPARE(fused.parameters().size(), std::size_t{1});
    QCOMPARE(fused.parameterCount(), std::int64_t{16}); // 10 rounded up to the alignment
}

void TestFusedAdamW::zeroGradSetsGradientsToNone() {
    std::vector<torch::Tensor> parameters = makeParameters(c10::kFloat);
    FusedAdamW fused(parameters);
    test_support::setGradients(parameters, 1, 1.0, 1);
    QVERIFY(parameters[0].grad().defined());
    QVERIFY(fused.clipGradNorm(1e-3) > 1.0); // a pending clip factor of about 1e-5
    fused.zeroGrad();
    for (const torch::Tensor &parameter : parameters) {
        QVERIFY(!parameter.grad().defined());
    }
    // The abandoned step's clip factor does not scale the next gradients: after one update
    // from zero, the first moment is exactly (1 - beta1) * gradient.
    test_support::setGradients(parameters, 2, 1.0, 1);
    fused.step();
    QVERIFY(torch::allclose(fused.expAvgOf(0), 0.1 * parameters[0].grad()));
}

void TestFusedAdamW::rejectsMixedDtypes() {
    const torch::Tensor a = torch::randn({3}).requires_grad_(true);
    const torch::Tensor b = torch::randn({3}, torch::kDouble).requires_grad_(true);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, FusedAdamW({a, b}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, FusedAdamW(std::vector<torch::Tensor>{}));
}

QTEST_GUILESS_MAIN(TestFusedAdamW)
#include "test_fused_adamw.moc"
