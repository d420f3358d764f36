#include "optim/fused_adamw.h"
#include "optim/offloaded_adamw.h"
#include "optimizer_test_support.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using headroom::train::AdamWOptions;
using headroom::train::FusedAdamW;
using headroom::train::OffloadedAdamW;
using headroom::train::Optimizer;

namespace {

std::vector<torch::Tensor> makeParameters(c10::ScalarType dtype = c10::kFloat) {
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
            worst, (a[index].detach().to(torch::kDouble) - b[index].detach().to(torch::kDouble))
                       .abs()
                       .max()
                       .item<double>());
    }
    return worst;
}

std::string saveToString(Optimizer &optimizer) {
    torch::serialize::OutputArchive archive;
    optimizer.saveState(archive);
    std::ostringstream stream;
    archive.save_to(stream);
    return stream.str();
}

void loadFromString(Optimizer &optimizer, const std::string &bytes) {
    std::istringstream stream(bytes);
    torch::serialize::InputArchive archive;
    archive.load_from(stream);
    optimizer.loadState(archive);
}

} // namespace

class TestOffloadedAdamW : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void equalsFusedAdamW_data();
    void equalsFusedAdamW();
    void parametersStayWhereTheyAre();
    void stateLivesOnTheHost();
    void halfPrecisionParametersKeepAnFp32Master();
    void zeroGradClearsGradientsAndClipFactor();
    void checkpointResumesBitIdentically();
    void loadStateNamesWhatDiffers();
    void fromFusedAdamWContinuesExactly();
};

void TestOffloadedAdamW::equalsFusedAdamW_data() {
    QTest::addColumn<double>("weight_decay");
    QTest::addColumn<double>("max_norm"); // 0: no clipping
    QTest::addColumn<double>("grad_magnitude");
    QTest::addColumn<double>("tolerance");
    QTest::newRow("plain") << 0.01 << 0.0 << 1.0 << 0.0;
    // The clip factor comes from a norm measured differently (device tensor ops here, a
    // fused reduction there): equal to rounding.
    QTest::newRow("clipped") << 0.01 << 1.0 << 3.0 << 1e-6;
    QTest::newRow("no decay, clip inactive") << 0.0 << 1e3 << 0.01 << 0.0;
}

void TestOffloadedAdamW::equalsFusedAdamW() {
    QFETCH(double, weight_decay);
    QFETCH(double, max_norm);
    QFETCH(double, grad_magnitude);
    QFETCH(double, tolerance);
    std::vector<torch::Tensor> expected = makeParameters();
    std::vector<torch::Tensor> actual = test_support::cloneParameters(expected);
    const AdamWOptions options = AdamWOptions().lr(1e-2).weight_decay(weight_decay);
    FusedAdamW fused(expected, options);
    OffloadedAdamW offloaded(actual, options);
    for (int step = 1; step <= 6; ++step) {
        test_support::setGradients(expected, step, grad_magnitude, 1);
        test_support::setGradients(actual, step, grad_magnitude, 1);
        if (max_norm > 0) {
            const double expected_norm = fused.clipGradNorm(max_norm);
            const double actual_norm = offloaded.clipGradNorm(max_norm);
            QVERIFY2(std::abs(expected_norm - actual_norm) <= 1e-6 * expected_norm,
                     qPrintable(QString("norm %1 vs %2").arg(actual_norm).arg(expected_norm)));
        }
        fused.step();
        offloaded.step();
        const double difference = maxDifference(expected, actual);
        QVERIFY2(difference <= tolerance,
                 qPrintable(QString("step %1: max difference %2").arg(step).arg(difference)));
    }
    QCOMPARE(offloaded.stepCounts(), fused.stepCounts());
    QCOMPARE(offloaded.stepCounts()[1], std::int64_t{3});
    for (std::size_t index = 0; index < expected.size(); ++index) {
        QVERIFY(torch::allclose(offloaded.hostOptimizer().expAvgOf(index), fused.expAvgOf(index), 0,
                                tolerance + 1e-12));
        QVERIFY(torch::allclose(offloaded.hostOptimizer().expAvgSqOf(index),
                                fused.expAvgSqOf(index), 0, tolerance + 1e-12));
    }
}

void TestOffloadedAdamW::parametersStayWhereTheyAre() {
    torch::manual_seed(3);
    torch::nn::Linear layer(4, 2);
    const void *weight_data = layer->weight.data_ptr();
    const torch::Tensor x = torch::randn({16, 4});
    const torch::Tensor y = torch::randn({16, 2});
    OffloadedAdamW offloaded(layer->parameters(), AdamWOptions().lr(0.05));
    // Unlike FusedAdamW it does not move the parameters: the host copy is separate memory.
    QCOMPARE(layer->weight.data_ptr(), weight_data);
    QVERIFY(offloaded.hostOptimizer().parameters()[0].data_ptr() != weight_data);
    const auto loss = [&] {
        return torch::mse_loss(layer(x), y);
    };
    const double initial = loss().item<double>();
    for (int step = 0; step < 50; ++step) {
        loss().backward();
        offloaded.clipGradNorm(1.0);
        offloaded.step();
        offloaded.zeroGrad();
    }
    QVERIFY2(loss().item<double>() < 0.7 * initial, "the module's parameters did not move");
    QVERIFY(torch::equal(layer->weight, offloaded.hostOptimizer().parameters()[0]));
}

void TestOffloadedAdamW::stateLivesOnTheHost() {
    std::vector<torch::Tensor> parameters = makeParameters();
    OffloadedAdamW offloaded({parameters[4], parameters[0], parameters[4]});
    QCOMPARE(offloaded.kind(), std::string("offloaded_adamw"));
    QCOMPARE(offloaded.parameters().size(), std::size_t{2}); // the duplicate is kept once
    QCOMPARE(offloaded.parameterCount(), std::int64_t{100007});
    QVERIFY(!offloaded.pinned()); // CPU parameters: nothing to pin for
    QCOMPARE(offloaded.deviceStateBytes(), std::uint64_t{0});
    // Moments and master copy (FusedAdamW layout: 100000 + 7 rounded up to 16) and the
    // gradient staging buffer.
    QCOMPARE(offloaded.stateBytes(), std::uint64_t{3 * 4 * (100000 + 16) + 4 * 100007});
    QVERIFY(offloaded.hostOptimizer().flatParameters().device().is_cpu());
}

void TestOffloadedAdamW::halfPrecisionParametersKeepAnFp32Master() {
    std::vector<torch::Tensor> parameters = makeParameters(c10::kBFloat16);
    OffloadedAdamW offloaded(parameters, AdamWOptions().lr(1e-3));
    for (int step = 1; step <= 3; ++step) {
        test_support::setGradients(parameters, step, 1.0, 1);
        offloaded.step();
    }
    const torch::Tensor &master = offloaded.hostOptimizer().parameters()[4];
    QCOMPARE(master.scalar_type(), c10::kFloat);
    QCOMPARE(parameters[4].scalar_type(), c10::kBFloat16);
    QVERIFY(torch::equal(parameters[4], master.to(c10::kBFloat16)));
    // Updates of 1e-3 on values around 1 are below bf16's resolution: only the master
    // copy keeps them.
    QVERIFY(!torch::equal(master, parameters[4].to(c10::kFloat)));
}

void TestOffloadedAdamW::zeroGradClearsGradientsAndClipFactor() {
    std::vector<torch::Tensor> parameters = makeParameters();
    std::vector<torch::Tensor> expected = test_support::cloneParameters(parameters);
    OffloadedAdamW offloaded(parameters);
    FusedAdamW fused(expected);
    test_support::setGradients(parameters, 1, 1.0, 1);
    test_support::setGradients(expected, 1, 1.0, 1);
    double sum_squares = 0;
    for (const torch::Tensor &parameter : expected) {
        sum_squares += parameter.grad().to(torch::kDouble).square().sum().item<double>();
    }
    const double norm = offloaded.clipGradNorm(1e-3);
    QVERIFY(std::abs(norm - std::sqrt(sum_squares)) < 1e-6 * norm);
    offloaded.zeroGrad();
    for (const torch::Tensor &parameter : parameters) {
        QVERIFY(!parameter.grad().defined());
    }
    // The next step is unclipped: the same as FusedAdamW's without clipping.
    test_support::setGradients(parameters, 2, 1.0, 1);
    test_support::setGradients(expected, 2, 1.0, 1);
    offloaded.step();
    fused.step();
    QCOMPARE(maxDifference(parameters, expected), 0.0);
    for (const torch::Tensor &master : offloaded.hostOptimizer().parameters()) {
        QVERIFY(!master.grad().defined()); // no staging views left behind
    }
}

void TestOffloadedAdamW::checkpointResumesBitIdentically() {
    std::vector<torch::Tensor> uninterrupted = makeParameters();
    OffloadedAdamW first(uninterrupted, AdamWOptions().lr(1e-2));
    for (int step = 1; step <= 3; ++step) {
        test_support::setGradients(uninterrupted, step, 1.0, 1);
        first.step();
    }
    const std::string saved = saveToString(first);
    std::vector<torch::Tensor> resumed = test_support::cloneParameters(uninterrupted);
    OffloadedAdamW second(resumed, AdamWOptions().lr(1e-2));
    loadFromString(second, saved);
    for (int step = 4; step <= 7; ++step) {
        test_support::setGradients(uninterrupted, step, 1.0, 1);
        test_support::setGradients(resumed, step, 1.0, 1);
        first.clipGradNorm(20.0);
        second.clipGradNorm(20.0);
        first.step();
        second.step();
    }
    QCOMPARE(maxDifference(uninterrupted, resumed), 0.0);
    QCOMPARE(second.stepCounts(), first.stepCounts());
}

void TestOffloadedAdamW::loadStateNamesWhatDiffers() {
    std::vector<torch::Tensor> parameters = makeParameters();
    OffloadedAdamW saved_optimizer(parameters);
    const std::string saved = saveToString(saved_optimizer);
    std::vector<torch::Tensor> other = test_support::cloneParameters(parameters);
    other[2] = torch::randn({33, 18}).requires_grad_(true);
    OffloadedAdamW optimizer(other);
    try {
        loadFromString(optimizer, saved);
        QFAIL("a state for other shapes was accepted");
    } catch (const std::runtime_error &error) {
        QVERIFY2(std::string(error.what()).find("parameter 2 has 561 elements") !=
                     std::string::npos,
                 error.what());
    }
}

void TestOffloadedAdamW::fromFusedAdamWContinuesExactly() {
    std::vector<torch::Tensor> expected = makeParameters();
    std::vector<torch::Tensor> actual = test_support::cloneParameters(expected);
    FusedAdamW reference(expected, AdamWOptions().lr(1e-2));
    auto before_switch = std::make_unique<FusedAdamW>(actual, AdamWOptions().lr(1e-2));
    for (int step = 1; step <= 3; ++step) {
        test_support::setGradients(expected, step, 1.0, 1);
        test_support::setGradients(actual, step, 1.0, 1);
        reference.step();
        before_switch->step();
    }
    std::unique_ptr<OffloadedAdamW> switched = OffloadedAdamW::fromFusedAdamW(*before_switch);
    QCOMPARE(switched->stepCounts(), before_switch->stepCounts());
    before_switch.reset();
    for (int step = 4; step <= 7; ++step) {
        test_support::setGradients(expected, step, 1.0, 1);
        test_support::setGradients(actual, step, 1.0, 1);
        reference.step();
        switched->step();
    }
    QCOMPARE(maxDifference(expected, actual), 0.0);
}

QTEST_GUILESS_MAIN(TestOffloadedAdamW)
#include "test_offloaded_adamw.moc"
