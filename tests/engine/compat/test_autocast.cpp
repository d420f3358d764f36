#include "compat/autocast.h"
#include "compat/torch_compat.h"

#include <torch/torch.h>

#include <QtTest>

#include <stdexcept>
#include <string>

using headroom::compat::AutocastGuard;
using headroom::compat::AutocastState;
using headroom::compat::autocastUnsupportedReason;
using headroom::compat::currentAutocastState;

Q_DECLARE_METATYPE(c10::ScalarType)
Q_DECLARE_METATYPE(c10::DeviceType)

namespace {

// QCOMPARE on c10::ScalarType would print it through c10::toString (found by ADL), whose
// static string QtTest then frees; compare the names instead.
QString dtypeName(c10::ScalarType dtype) {
    return QString::fromLatin1(c10::toString(dtype));
}

bool sameState(const AutocastState &a, const AutocastState &b) {
    return a.cpu_enabled == b.cpu_enabled && a.cpu_dtype == b.cpu_dtype &&
           a.cuda_enabled == b.cuda_enabled && a.cuda_dtype == b.cuda_dtype &&
           a.cache_enabled == b.cache_enabled;
}

bool contains(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}

} // namespace

class TestAutocast : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() {
        // Every test starts from LibTorch's defaults: autocast off.
        QVERIFY(!currentAutocastState().cpu_enabled);
        QVERIFY(!currentAutocastState().cuda_enabled);
    }

    void linearRunsInBf16UnderTheGuard() {
        torch::manual_seed(1);
        torch::nn::Linear linear(8, 4);
        const torch::Tensor input = torch::randn({3, 8});
        {
            AutocastGuard guard(torch::kCPU, torch::kBFloat16);
            const torch::Tensor output = linear(input);
            QCOMPARE(dtypeName(output.scalar_type()), dtypeName(torch::kBFloat16));
            QVERIFY(linear->weight.scalar_type() == torch::kFloat);
        }
        QCOMPARE(dtypeName(linear(input).scalar_type()), dtypeName(torch::kFloat));
    }

    void guardRestoresThePreviousState() {
        const AutocastState before = currentAutocastState();
        {
            AutocastGuard outer(torch::kCPU, torch::kBFloat16);
            const AutocastState in_outer = currentAutocastState();
            QVERIFY(in_outer.cpu_enabled);
            QCOMPARE(dtypeName(in_outer.cpu_dtype), dtypeName(torch::kBFloat16));
            QCOMPARE(in_outer.cuda_enabled, before.cuda_enabled);
            {
                AutocastGuard inner(torch::kCPU, torch::kBFloat16, /*enabled=*/false);
                QVERIFY(!currentAutocastState().cpu_enabled);
                QCOMPARE(dtypeName(torch::nn::Linear(4, 2)(torch::ones({1, 4})).scalar_type()),
                         dtypeName(torch::kFloat));
            }
            QVERIFY(sameState(currentAutocastState(), in_outer));
            {
                AutocastGuard inner(torch::kCPU, torch::kBFloat16);
                QVERIFY(currentAutocastState().cpu_enabled);
            }
            QVERIFY(sameState(currentAutocastState(), in_outer));
        }
        QVERIFY(sameState(currentAutocastState(), before));
    }

    void applyAndReadBackAState() {
        const AutocastState before = currentAutocastState();
        AutocastState wanted;
        wanted.cpu_enabled = true;
        wanted.cpu_dtype = torch::kBFloat16;
        wanted.cuda_dtype = torch::kBFloat16;
        wanted.cache_enabled = false;
        headroom::compat::applyAutocastState(wanted);
        const AutocastState read = currentAutocastState();
        headroom::compat::applyAutocastState(before);
        QVERIFY(sameState(read, wanted));
        QVERIFY(sameState(currentAutocastState(), before));
    }

    void outermostGuardClearsTheCastCache() {
        // Autocast may cache the bf16 copy of a weight for the region (LibTorch 2.x does on the
        // CPU, 1.13 only on CUDA); an optimizer step changes the fp32 weight in place between
        // regions, so the next region must not reuse it.
        torch::nn::Linear linear(4, 1);
        const torch::Tensor input = torch::ones({1, 4});
        {
            torch::NoGradGuard no_grad;
            linear->weight.fill_(1.0);
            linear->bias.fill_(0.0);
        }
        {
            AutocastGuard guard(torch::kCPU, torch::kBFloat16);
            QCOMPARE(linear(input).item<double>(), 4.0);
        }
        {
            torch::NoGradGuard no_grad;
            linear->weight.fill_(2.0);
        }
        {
            AutocastGuard guard(torch::kCPU, torch::kBFloat16);
            QCOMPARE(linear(input).item<double>(), 8.0);
        }
    }

    void tinyModelLearnsUnderBf16() {
        torch::manual_seed(5);
        torch::nn::Sequential model(torch::nn::Linear(6, 32), torch::nn::ReLU(),
                                    torch::nn::Linear(32, 1));
        const torch::Tensor inputs = torch::randn({128, 6});
        const torch::Tensor targets = inputs.sum(1, true) * 0.5 + 0.1;
        torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-2));
        double first = 0;
        double last = 0;
        for (int step = 0; step < 40; ++step) {
            torch::Tensor loss;
            {
                AutocastGuard guard(torch::kCPU, torch::kBFloat16);
                const torch::Tensor predictions = model->forward(inputs);
                QCOMPARE(dtypeName(predictions.scalar_type()), dtypeName(torch::kBFloat16));
                loss = torch::mse_loss(predictions, targets);
            }
            optimizer.zero_grad();
            loss.backward();
            optimizer.step();
            (step == 0 ? first : last) = loss.item<double>();
        }
        // Master weights stay fp32; the loss falls to well under a quarter of its start.
        for (const torch::Tensor &parameter : model->parameters()) {
            QCOMPARE(dtypeName(parameter.scalar_type()), dtypeName(torch::kFloat));
            QCOMPARE(dtypeName(parameter.grad().scalar_type()), dtypeName(torch::kFloat));
        }
        QVERIFY2(last < 0.25 * first,
                 qPrintable(QStringLiteral("loss %1 -> %2").arg(first).arg(last)));
    }

    void unsupportedCombinations_data() {
        QTest::addColumn<c10::DeviceType>("device");
        QTest::addColumn<c10::ScalarType>("dtype");
        QTest::addColumn<bool>("supported");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("bf16 on cpu") << torch::kCPU << torch::kBFloat16 << true << "";
#if HEADROOM_TORCH_AT_LEAST(2, 2)
        QTest::newRow("fp16 on cpu") << torch::kCPU << torch::kHalf << true << "";
#else
        QTest::newRow("fp16 on cpu") << torch::kCPU << torch::kHalf << false << "bf16";
#endif
        QTest::newRow("fp32 is no autocast") << torch::kCPU << torch::kFloat << false << "fp32";
        QTest::newRow("mps") << torch::kMPS << torch::kBFloat16 << false << "fp32";
        if (!torch::cuda::is_available()) {
            QTest::newRow("cuda without gpu") << torch::kCUDA << torch::kHalf << false << "CUDA";
        } else {
            QTest::newRow("fp16 on cuda") << torch::kCUDA << torch::kHalf << true << "";
        }
    }

    void unsupportedCombinations() {
        QFETCH(c10::DeviceType, device);
        QFETCH(c10::ScalarType, dtype);
        QFETCH(bool, supported);
        QFETCH(QString, mentions);
        const std::string reason = autocastUnsupportedReason(device, dtype);
        QCOMPARE(reason.empty(), supported);
        QVERIFY2(contains(reason, mentions.toStdString()), reason.c_str());
        if (supported) {
            return;
        }
        // The guard refuses the same combinations with the same message, and leaves no trace.
        const AutocastState before = currentAutocastState();
        try {
            AutocastGuard guard(device, dtype);
            QFAIL("the guard accepted an unsupported combination");
        } catch (const std::invalid_argument &error) {
            QCOMPARE(std::string(error.what()), reason);
        }
        QVERIFY(sameState(currentAutocastState(), before));
    }

    void bf16OnCudaFollowsComputeCapability() {
        if (!torch::cuda::is_available()) {
            QSKIP("no CUDA device");
        }
        const std::string reason = autocastUnsupportedReason(torch::kCUDA, torch::kBFloat16);
        const auto devices = headroom::compat::queryCudaDevices();
        QVERIFY(!devices.empty());
        if (devices.front().compute_major >= 8) {
            QVERIFY2(reason.empty(), reason.c_str());
            AutocastGuard guard(torch::kCUDA, torch::kBFloat16);
            torch::nn::Linear linear(torch::nn::LinearOptions(8, 4));
            linear->to(torch::kCUDA);
            QCOMPARE(dtypeName(linear(torch::randn({2, 8}, torch::kCUDA)).scalar_type()),
                     dtypeName(torch::kBFloat16));
        } else {
            QVERIFY2(contains(reason, "fp16"), reason.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestAutocast)
#include "test_autocast.moc"
