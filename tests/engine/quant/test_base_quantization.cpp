// The frozen-base formats (quant/base_quantization.h, models/quantized_linear.h): error bounds
// of dequantize(quantize(W)) for int8 and nf4 on random and real-shaped weights, the bytes per
// weight the issue allows, the vectorized CPU kernels against the tensor-operation path used off
// the CPU, the quantized linear layer's output and input gradient against a plain product with
// the dequantized weight, and a LoRA model on an nf4 base against the same model in fp32.
#include "causal_lm_support.h"
#include "compat/autocast.h"
#include "models/causal_lm.h"
#include "models/quantized_linear.h"
#include "quant/base_quantization.h"

#include <QtTest>

#include <cmath>

using headroom::models::BaseFormat;
using headroom::models::QuantizedWeight;

namespace {

double relativeRmsError(const torch::Tensor &weight, const torch::Tensor &restored) {
    return (weight - restored).pow(2).mean().sqrt().item<double>() /
           weight.pow(2).mean().sqrt().item<double>();
}

headroom::models::CausalLmOptions tinyLlama() {
    return test_support::tinyLlamaOptions();
}

// Fresh weights for `reference` (matrices times `scale`) and a second model holding the same.
headroom::models::CausalLm twinOf(headroom::models::CausalLm &reference, double scale) {
    reference->resetParameters();
    headroom::models::CausalLm twin(tinyLlama());
    torch::NoGradGuard no_grad;
    const auto source = reference->named_parameters();
    for (auto &item : twin->named_parameters()) {
        if (item.value().dim() == 2) {
            source[item.key()].mul_(scale);
        }
        item.value().copy_(source[item.key()]);
    }
    return twin;
}

} // namespace

class TestBaseQuantization : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsesFormats();
    void roundTripWithinBounds_data();
    void roundTripWithinBounds();
    void bytesPerWeight();
    void kernelsMatchTensorOps_data();
    void kernelsMatchTensorOps();
    void refusesBadWeights();
    void linearMatchesDequantizedProduct_data();
    void linearMatchesDequantizedProduct();
    void loraOnQuantizedBase_data();
    void loraOnQuantizedBase();
    void logitsFollowTheBase_data();
    void logitsFollowTheBase();
};

void TestBaseQuantization::parsesFormats() {
    for (const char *name : {"fp32", "bf16", "fp16", "int8", "nf4"}) {
        QCOMPARE(QString::fromStdString(baseFormatName(headroom::models::parseBaseFormat(name))),
                 QString(name));
    }
    try {
        headroom::models::parseBaseFormat("int4");
        QFAIL("int4 was accepted");
    } catch (const std::invalid_argument &error) {
        QVERIFY2(QString(error.what()).contains("int4") && QString(error.what()).contains("nf4"),
                 error.what());
    }
    const std::array<float, 16> &values = headroom::models::nf4Values();
    QCOMPARE(values.front(), -1.0f);
    QCOMPARE(values.back(), 1.0f);
    QCOMPARE(values[7], 0.0f);
    QVERIFY(std::is_sorted(values.begin(), values.end()));
}

void TestBaseQuantization::roundTripWithinBounds_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<int>("out");
    QTest::addColumn<int>("in");
    QTest::addColumn<double>("rms_bound"); // relative RMS error on normal weights
    // int8: half a step of 1/127 of the row's absmax; nf4: QLoRA's ~0.1 on normal weights.
    QTest::newRow("int8 random") << "int8" << 64 << 256 << 0.012;
    QTest::newRow("int8 TinyLlama q_proj") << "int8" << 2048 << 2048 << 0.012;
    QTest::newRow("int8 ragged") << "int8" << 3 << 37 << 0.02;
    QTest::newRow("nf4 random") << "nf4" << 64 << 256 << 0.11;
    QTest::newRow("nf4 TinyLlama down_proj") << "nf4" << 2048 << 5632 << 0.11;
    QTest::newRow("nf4 ragged (padded block)") << "nf4" << 3 << 37 << 0.13;
}

void TestBaseQuantization::roundTripWithinBounds() {
    QFETCH(QString, format);
    QFETCH(int, out);
    QFETCH(int, in);
    QFETCH(double, rms_bound);
    torch::manual_seed(11);
    const torch::Tensor weight = torch::randn({out, in}) * 0.02;
    const BaseFormat base = headroom::models::parseBaseFormat(format.toStdString());
    const QuantizedWeight quantized = headroom::models::quantizeWeight(weight, base);
    const torch::Tensor restored = headroom::models::dequantize(quantized);
    QCOMPARE(restored.sizes(), weight.sizes());
    const double rms = relativeRmsError(weight, restored);
    QVERIFY2(rms < rms_bound, qPrintable(QString("relative RMS error %1").arg(rms)));
    const torch::Tensor error = (weight - restored).abs();
    if (base == BaseFormat::Int8) {
        // Each element within half a step of its row (and float rounding).
        const torch::Tensor half_step = weight.abs().amax(1, true) / 254.0;
        QVERIFY((error <= half_step * 1.0001 + 1e-9).all().item<bool>());
    } else {
        // Each element within half the widest gap between NF4 values times its block's scale,
        // which exceeds the block's absmax by at most one 8-bit step of its group.
        const torch::Tensor flat =
            torch::cat({weight.reshape({-1}), torch::zeros({(64 - weight.numel() % 64) % 64})});
        const torch::Tensor absmax = flat.view({-1, 64}).abs().amax(1);
        const std::array<float, 16> &values = headroom::models::nf4Values();
        double widest_half_gap = 0;
        for (std::size_t index = 0; index + 1 < values.size(); ++index) {
            widest_half_gap = std::max(widest_half_gap, (values[index + 1] - values[index]) / 2.0);
        }
        const double scale_slack = (absmax.max() - absmax.min()).item<double>() / 255.0;
        const torch::Tensor bound =
            (absmax + scale_slack).repeat_interleave(64).narrow(0, 0, weight.numel()) *
                widest_half_gap +
            1e-7;
        QVERIFY((error.reshape({-1}) <= bound).all().item<bool>());
        // The largest element of each block comes back to within its group's scale step.
        QVERIFY(restored.abs().max().item<double>() <=
                weight.abs().max().item<double>() + scale_slack + 1e-7);
    }
}

void TestBaseQuantization::bytesPerWeight() {
    torch::manual_seed(2);
    const torch::Tensor weight = torch::randn({2048, 2048});
    const auto per_weight = [&](BaseFormat format) {
        return static_cast<double>(headroom::models::quantizeWeight(weight, format).bytes()) /
               static_cast<double>(weight.numel());
    };
    const double int8 = per_weight(BaseFormat::Int8);
    const double nf4 = per_weight(BaseFormat::Nf4);
    QVERIFY2(int8 <= 1.07, qPrintable(QString::number(int8)));
    QVERIFY2(nf4 <= 0.53, qPrintable(QString::number(nf4)));
    QVERIFY(std::abs(nf4 - headroom::models::baseBytesPerWeight(BaseFormat::Nf4, 2048)) < 1e-3);
    QVERIFY(std::abs(int8 - headroom::models::baseBytesPerWeight(BaseFormat::Int8, 2048)) < 1e-3);
}

void TestBaseQuantization::kernelsMatchTensorOps_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<int>("out");
    QTest::addColumn<int>("in");
    QTest::newRow("int8") << "int8" << 96 << 200;
    QTest::newRow("int8 short rows") << "int8" << 5 << 7;
    QTest::newRow("nf4") << "nf4" << 300 << 256; // 1200 blocks: several scale groups
    QTest::newRow("nf4 ragged") << "nf4" << 7 << 45;
}

void TestBaseQuantization::kernelsMatchTensorOps() {
    QFETCH(QString, format);
    QFETCH(int, out);
    QFETCH(int, in);
    torch::manual_seed(5);
    // Rows of very different magnitude, so the scale groups differ.
    const torch::Tensor weight = torch::randn({out, in}) * torch::rand({out, 1}) * 3.0;
    const QuantizedWeight quantized = headroom::models::quantizeWeight(
        weight, headroom::models::parseBaseFormat(format.toStdString()));
    for (const torch::ScalarType dtype : {torch::kFloat, torch::kBFloat16, torch::kHalf}) {
        const torch::Tensor kernels = headroom::models::dequantize(quantized, dtype);
        const torch::Tensor ops = headroom::models::dequantizeWithTensorOps(quantized, dtype);
        QCOMPARE(kernels.scalar_type(), dtype);
        QVERIFY2(torch::equal(kernels, ops), c10::toString(dtype));
    }
}

void TestBaseQuantization::refusesBadWeights() {
    torch::Tensor weight = torch::randn({4, 64});
    weight[1][3] = std::nan("");
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             headroom::models::quantizeWeight(weight, BaseFormat::Nf4));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, headroom::models::quantizeWeight(
                                                        torch::randn({64}), BaseFormat::Int8));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, headroom::models::quantizeWeight(
                                                        torch::randn({4, 64}), BaseFormat::Bf16));
}

void TestBaseQuantization::linearMatchesDequantizedProduct_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<bool>("autocast");
    QTest::newRow("int8") << "int8" << false;
    QTest::newRow("nf4") << "nf4" << false;
    QTest::newRow("nf4 under bf16 autocast") << "nf4" << true;
}

void TestBaseQuantization::linearMatchesDequantizedProduct() {
    QFETCH(QString, format);
    QFETCH(bool, autocast);
    torch::manual_seed(8);
    const QuantizedWeight quantized = headroom::models::quantizeWeight(
        torch::randn({48, 80}) * 0.1, headroom::models::parseBaseFormat(format.toStdString()));
    // Rows of a batch, and the single token of generation (a matrix-vector product), flat and
    // as [batch, time, features].
    const std::vector<std::vector<std::int64_t>> shapes{{6, 80}, {1, 80}, {1, 1, 80}};
    for (const std::vector<std::int64_t> &shape : shapes) {
        const torch::Tensor x = torch::randn(shape).requires_grad_(true);
        std::vector<std::int64_t> out_shape = shape;
        out_shape.back() = 48;
        const torch::Tensor grad = torch::randn(out_shape);
        torch::Tensor y;
        {
            const headroom::compat::AutocastGuard guard(torch::kCPU, torch::kBFloat16, autocast);
            y = headroom::models::quantizedLinear(x, quantized);
        }
        QCOMPARE(y.scalar_type(), autocast ? torch::kBFloat16 : torch::kFloat);
        QCOMPARE(y.sizes().vec(), out_shape);
        y.backward(grad.to(y.scalar_type()));
        const torch::ScalarType dtype = y.scalar_type();
        const torch::Tensor weight = headroom::models::dequantize(quantized, dtype);
        const torch::Tensor expected = torch::matmul(x.detach().to(dtype), weight.t());
        const double tolerance = autocast ? 2e-2 : 1e-5;
        QVERIFY(
            torch::allclose(y.to(torch::kFloat), expected.to(torch::kFloat), tolerance, tolerance));
        const torch::Tensor expected_grad = torch::matmul(grad.to(dtype), weight).to(torch::kFloat);
        QVERIFY(x.grad().defined());
        QVERIFY(torch::allclose(x.grad(), expected_grad, tolerance, tolerance));
    }
    QVERIFY(headroom::models::dequantizationBufferBytes() > 0);
}

void TestBaseQuantization::loraOnQuantizedBase_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<double>("loss_tolerance");
    QTest::newRow("bf16") << "bf16" << 1e-3;
    QTest::newRow("int8") << "int8" << 1e-3;
    QTest::newRow("nf4") << "nf4" << 2e-2;
}

void TestBaseQuantization::loraOnQuantizedBase() {
    QFETCH(QString, format);
    QFETCH(double, loss_tolerance);
    const BaseFormat base = headroom::models::parseBaseFormat(format.toStdString());
    torch::manual_seed(4);
    headroom::models::CausalLm reference(tinyLlama());
    headroom::models::CausalLm model = twinOf(reference, 1.0);
    QVERIFY(model->storeBaseWeights(base));
    QCOMPARE(model->baseFormat(), base);
    const headroom::models::LoraOptions lora =
        headroom::models::LoraOptions().rank(4).dropout(0).targets(
            {"q_proj", "v_proj", "down_proj"});
    reference->enableLora(lora);
    model->enableLora(lora);
    const torch::Tensor tokens = torch::randint(0, 48, {2, 12}, torch::kLong);
    const torch::Tensor targets = torch::randint(0, 48, {2, 12}, torch::kLong);
    const torch::Tensor reference_loss = reference->loss(tokens, targets);
    const torch::Tensor loss = model->loss(tokens, targets);
    QVERIFY2(std::abs(loss.item<double>() - reference_loss.item<double>()) < loss_tolerance,
             qPrintable(
                 QString("%1 vs %2").arg(loss.item<double>()).arg(reference_loss.item<double>())));
    loss.backward();
    int adapters = 0;
    for (const auto &item : model->named_parameters()) {
        const bool adapter = item.key().find(".lora_") != std::string::npos;
        QCOMPARE(item.value().requires_grad(), adapter);
        if (adapter) {
            ++adapters;
            QVERIFY2(item.value().grad().defined(), item.key().c_str());
        }
        if (headroom::models::isQuantized(base) &&
            item.key().find("q_proj.weight") != std::string::npos) {
            QCOMPARE(item.value().numel(), 0); // the full-precision weight is gone
        }
    }
    QCOMPARE(adapters, 2 * 3 * 2);
    // Exported weights are float32: the base as held (dequantized) plus the adapter.
    {
        torch::NoGradGuard no_grad;
        for (auto &item : model->named_parameters()) {
            if (item.key().find("lora_") != std::string::npos && item.key().back() == 'b') {
                item.value().normal_(0, 0.1);
            }
        }
    }
    const auto merged = model->mergedState();
    QCOMPARE(merged.size(), reference->mergedState().size());
    for (const auto &[name, tensor] : merged) {
        QCOMPARE(tensor.scalar_type(), torch::kFloat);
        if (name == "model.layers.0.self_attn.q_proj.weight") {
            const torch::Tensor original = reference->named_parameters()[name];
            QCOMPARE(tensor.sizes(), original.sizes());
            QVERIFY(!torch::equal(tensor, original)); // the adapter's update is in
        }
        if (name == "model.layers.1.self_attn.k_proj.weight" && base == BaseFormat::Fp32) {
            QVERIFY(torch::equal(tensor, reference->named_parameters()[name]));
        }
    }
}

void TestBaseQuantization::logitsFollowTheBase_data() {
    QTest::addColumn<QString>("format");
    // Relative RMS error of the logits (measured 0.008, 0.028, 0.43: each 4-bit weight is off
    // by ~10 % of its magnitude, and two random layers compound it) and the share of positions
    // whose most likely token stays the same.
    QTest::addColumn<double>("bound");
    QTest::addColumn<double>("same_top");
    QTest::newRow("bf16") << "bf16" << 0.012 << 0.95;
    QTest::newRow("int8") << "int8" << 0.045 << 0.9;
    // A random model's top logits lie close together: half of them trade places under nf4.
    QTest::newRow("nf4") << "nf4" << 0.6 << 0.4;
}

void TestBaseQuantization::logitsFollowTheBase() {
    // Weights ten times the usual initialisation, so the logits are far from uniform and the
    // quantization error shows in them.
    QFETCH(QString, format);
    QFETCH(double, bound);
    QFETCH(double, same_top);
    torch::manual_seed(21);
    headroom::models::CausalLm reference(tinyLlama());
    headroom::models::CausalLm model = twinOf(reference, 10.0);
    model->storeBaseWeights(headroom::models::parseBaseFormat(format.toStdString()));
    torch::NoGradGuard no_grad;
    const torch::Tensor tokens = torch::randint(0, 48, {3, 16}, torch::kLong);
    const torch::Tensor expected = reference->forward(tokens);
    const torch::Tensor logits = model->forward(tokens);
    const double error = relativeRmsError(expected, logits);
    const double same = torch::argmax(logits, -1)
                            .eq(torch::argmax(expected, -1))
                            .to(torch::kFloat)
                            .mean()
                            .item<double>();
    qInfo("%s base: relative RMS error of the logits %.4f, same top token at %.0f %%",
          qPrintable(format), error, 100 * same);
    QVERIFY2(error < bound, qPrintable(QString::number(error)));
    QVERIFY2(same >= same_top, qPrintable(QString::number(same)));
}

QTEST_GUILESS_MAIN(TestBaseQuantization)
#include "test_base_quantization.moc"
