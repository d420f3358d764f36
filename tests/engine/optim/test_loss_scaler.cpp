#include "optim/loss_scaler.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using headroom::train::DynamicLossScaler;
using headroom::train::LossScalerOptions;

namespace {

// QCOMPARE on c10::ScalarType would print it through c10::toString (found by ADL), whose
// static string QtTest then frees; compare the names instead.
QString dtypeName(c10::ScalarType dtype) {
    return QString::fromLatin1(c10::toString(dtype));
}

// Parameters whose gradients are known values times `scale`.
std::vector<torch::Tensor> parametersWithScaledGradients(double scale) {
    torch::manual_seed(3);
    std::vector<torch::Tensor> parameters;
    for (const std::int64_t size : {5, 17, 300}) {
        torch::Tensor parameter = torch::randn({size}).requires_grad_(true);
        parameter.mutable_grad() = torch::randn({size}) * scale;
        parameters.push_back(parameter);
    }
    return parameters;
}

std::vector<torch::Tensor> gradientCopies(const std::vector<torch::Tensor> &parameters) {
    std::vector<torch::Tensor> copies;
    for (const torch::Tensor &parameter : parameters) {
        copies.push_back(parameter.grad().clone());
    }
    return copies;
}

std::string invalidOptionMessage(const LossScalerOptions &options) {
    try {
        DynamicLossScaler scaler(options);
    } catch (const std::invalid_argument &error) {
        return error.what();
    }
    return "";
}

} // namespace

class TestLossScaler : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void scalesTheLossInFp32() {
        DynamicLossScaler scaler;
        QCOMPARE(scaler.currentScale(), 65536.0);
        const torch::Tensor loss = torch::tensor(1.5f);
        QCOMPARE(scaler.scale(loss).item<double>(), 1.5 * 65536.0);
        // fp16 ends at 65504: a scaled fp16 loss must come back wider, not as inf.
        const torch::Tensor scaled_half = scaler.scale(loss.to(torch::kHalf));
        QCOMPARE(dtypeName(scaled_half.scalar_type()), dtypeName(torch::kFloat));
        QCOMPARE(scaled_half.item<double>(), 1.5 * 65536.0);
    }

    void unscalesGradientsInPlace() {
        DynamicLossScaler scaler;
        std::vector<torch::Tensor> parameters = parametersWithScaledGradients(1.0);
        const std::vector<torch::Tensor> expected = gradientCopies(parameters);
        for (torch::Tensor &parameter : parameters) {
            parameter.mutable_grad().mul_(scaler.currentScale());
        }
        torch::Tensor without_gradient = torch::ones({3}).requires_grad_(true);
        parameters.push_back(without_gradient);

        QVERIFY(scaler.unscaleAndCheck(parameters));
        for (std::size_t index = 0; index < expected.size(); ++index) {
            // A power-of-two scale makes the round trip exact.
            QVERIFY(torch::equal(parameters[index].grad(), expected[index]));
        }
        QVERIFY(!without_gradient.grad().defined());
    }

    void detectsNonFiniteGradient_data() {
        QTest::addColumn<double>("injected");
        QTest::addColumn<int>("where");
        QTest::newRow("+inf in the first") << std::numeric_limits<double>::infinity() << 0;
        QTest::newRow("-inf in the last") << -std::numeric_limits<double>::infinity() << 2;
        QTest::newRow("nan in the middle") << std::numeric_limits<double>::quiet_NaN() << 1;
    }

    void detectsNonFiniteGradient() {
        QFETCH(double, injected);
        QFETCH(int, where);
        DynamicLossScaler scaler(LossScalerOptions().growth_interval(3));
        std::vector<torch::Tensor> parameters = parametersWithScaledGradients(65536.0);
        // Two clean steps first: the back-off must also restart the growth count.
        for (int step = 0; step < 2; ++step) {
            QVERIFY(scaler.unscaleAndCheck(parameters));
            scaler.update(false);
        }
        QCOMPARE(scaler.growthTracker(), std::int64_t{2});

        parameters[static_cast<std::size_t>(where)].mutable_grad()[4] = injected;
        const bool finite = scaler.unscaleAndCheck(parameters);
        QVERIFY(!finite);
        scaler.update(!finite);
        QCOMPARE(scaler.currentScale(), 32768.0);
        QCOMPARE(scaler.skippedSteps(), std::int64_t{1});
        QCOMPARE(scaler.growthTracker(), std::int64_t{0});
    }

    void growsAfterTheIntervalOfCleanSteps() {
        DynamicLossScaler scaler(
            LossScalerOptions().init_scale(1024).growth_interval(3).growth_factor(4));
        scaler.update(false);
        scaler.update(false);
        QCOMPARE(scaler.currentScale(), 1024.0);
        scaler.update(false);
        QCOMPARE(scaler.currentScale(), 4096.0);
        QCOMPARE(scaler.growthTracker(), std::int64_t{0});
        // An overflow in between restarts the count.
        scaler.update(false);
        scaler.update(true);
        QCOMPARE(scaler.currentScale(), 2048.0);
        scaler.update(false);
        scaler.update(false);
        QCOMPARE(scaler.currentScale(), 2048.0);
        scaler.update(false);
        QCOMPARE(scaler.currentScale(), 8192.0);
        QCOMPARE(scaler.skippedSteps(), std::int64_t{1});
    }

    void neverGrowsPastFp32() {
        DynamicLossScaler scaler(LossScalerOptions().init_scale(3e38).growth_interval(1));
        scaler.update(false);
        QCOMPARE(scaler.currentScale(), 3e38);
        QVERIFY(std::isfinite(static_cast<float>(scaler.currentScale())));
    }

    void refusesUnscalingTwicePerStep() {
        DynamicLossScaler scaler;
        std::vector<torch::Tensor> parameters = parametersWithScaledGradients(65536.0);
        QVERIFY(scaler.unscaleAndCheck(parameters));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, scaler.unscaleAndCheck(parameters));
        scaler.update(false);
        QVERIFY(scaler.unscaleAndCheck(parameters));
    }

    void roundTripsItsState() {
        DynamicLossScaler scaler(LossScalerOptions().growth_interval(5));
        scaler.update(true);
        scaler.update(true);
        scaler.update(false);
        scaler.update(false);
        std::stringstream stream;
        {
            torch::serialize::OutputArchive archive;
            scaler.save(archive);
            archive.save_to(stream);
        }
        DynamicLossScaler restored(LossScalerOptions().growth_interval(5));
        torch::serialize::InputArchive archive;
        archive.load_from(stream);
        restored.load(archive);
        QCOMPARE(restored.currentScale(), 16384.0);
        QCOMPARE(restored.skippedSteps(), std::int64_t{2});
        QCOMPARE(restored.growthTracker(), std::int64_t{2});
        // The restored scaler continues where the saved one stopped.
        for (int step = 0; step < 3; ++step) {
            restored.update(false);
        }
        QCOMPARE(restored.currentScale(), 32768.0);
    }

    void loadNamesAMissingKey() {
        std::stringstream stream;
        {
            torch::serialize::OutputArchive archive;
            archive.write("loss_scaler.scale", torch::scalar_tensor(8.0, torch::kDouble));
            archive.save_to(stream);
        }
        torch::serialize::InputArchive archive;
        archive.load_from(stream);
        DynamicLossScaler scaler;
        try {
            scaler.load(archive);
            QFAIL("load accepted a state without growth tracker");
        } catch (const std::runtime_error &error) {
            QVERIFY2(std::string(error.what()).find("loss_scaler.growth_tracker") !=
                         std::string::npos,
                     error.what());
        }
        QCOMPARE(scaler.currentScale(), 65536.0);
    }

    void disabledPassesEverythingThrough() {
        DynamicLossScaler scaler(LossScalerOptions().enabled(false));
        const torch::Tensor loss = torch::tensor(2.5f);
        QVERIFY(scaler.scale(loss).is_same(loss));
        std::vector<torch::Tensor> parameters = parametersWithScaledGradients(7.0);
        parameters[1].mutable_grad()[0] = std::numeric_limits<float>::infinity();
        const std::vector<torch::Tensor> before = gradientCopies(parameters);
        QVERIFY(scaler.unscaleAndCheck(parameters));
        QVERIFY(scaler.unscaleAndCheck(parameters));
        for (std::size_t index = 0; index < before.size(); ++index) {
            QVERIFY(torch::equal(parameters[index].grad(), before[index]));
        }
        scaler.update(true);
        QCOMPARE(scaler.currentScale(), 65536.0);
        QCOMPARE(scaler.skippedSteps(), std::int64_t{0});
    }

    void refusesBadOptions_data() {
        QTest::addColumn<double>("init_scale");
        QTest::addColumn<double>("growth_factor");
        QTest::addColumn<double>("backoff_factor");
        QTest::addColumn<qint64>("growth_interval");
        QTest::addColumn<QString>("named");
        QTest::newRow("zero scale") << 0.0 << 2.0 << 0.5 << qint64{10} << "init_scale";
        QTest::newRow("inf scale")
            << std::numeric_limits<double>::infinity() << 2.0 << 0.5 << qint64{10} << "init_scale";
        QTest::newRow("growth 1") << 8.0 << 1.0 << 0.5 << qint64{10} << "growth_factor";
        QTest::newRow("backoff 1") << 8.0 << 2.0 << 1.0 << qint64{10} << "backoff_factor";
        QTest::newRow("backoff 0") << 8.0 << 2.0 << 0.0 << qint64{10} << "backoff_factor";
        QTest::newRow("interval 0") << 8.0 << 2.0 << 0.5 << qint64{0} << "growth_interval";
    }

    void refusesBadOptions() {
        QFETCH(double, init_scale);
        QFETCH(double, growth_factor);
        QFETCH(double, backoff_factor);
        QFETCH(qint64, growth_interval);
        QFETCH(QString, named);
        const std::string message = invalidOptionMessage(LossScalerOptions()
                                                             .init_scale(init_scale)
                                                             .growth_factor(growth_factor)
                                                             .backoff_factor(backoff_factor)
                                                             .growth_interval(growth_interval));
        QVERIFY2(message.find(named.toStdString()) != std::string::npos, message.c_str());
    }

    void unscalesOnCudaWithTheFusedKernel() {
        if (!torch::cuda::is_available()) {
            QSKIP("no CUDA device");
        }
        DynamicLossScaler scaler;
        std::vector<torch::Tensor> parameters = parametersWithScaledGradients(1.0);
        std::vector<torch::Tensor> expected = gradientCopies(parameters);
        for (torch::Tensor &parameter : parameters) {
            parameter = parameter.detach().to(torch::kCUDA).requires_grad_(true);
        }
        for (std::size_t index = 0; index < parameters.size(); ++index) {
            parameters[index].mutable_grad() = (expected[index] * 65536.0).to(torch::kCUDA);
        }
        QVERIFY(scaler.unscaleAndCheck(parameters));
        for (std::size_t index = 0; index < expected.size(); ++index) {
            QVERIFY(torch::equal(parameters[index].grad().cpu(), expected[index]));
        }
        scaler.update(false);
        parameters[2].mutable_grad()[1] = std::numeric_limits<float>::quiet_NaN();
        QVERIFY(!scaler.unscaleAndCheck(parameters));
    }
};

QTEST_GUILESS_MAIN(TestLossScaler)
#include "test_loss_scaler.moc"
