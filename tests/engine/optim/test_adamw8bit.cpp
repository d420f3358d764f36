#include "optim/adamw8bit.h"
#include "optim/fused_adamw.h"
#include "optimizer_test_support.h"
#include "quant/blockwise_quantization.h"

#include <torch/torch.h>

#include <QtTest>

#include <cfloat>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using headroom::train::AdamW8bit;
using headroom::train::AdamWOptions;
using headroom::train::DynamicCodeMap;
using headroom::train::FusedAdamW;
using headroom::train::Optimizer;

Q_DECLARE_METATYPE(c10::ScalarType)

namespace {

const DynamicCodeMap &mapNamed(bool is_signed) {
    return is_signed ? DynamicCodeMap::signedMap() : DynamicCodeMap::unsignedMap();
}

// The distance from x (clamped to the map's range) to the nearest code value, by brute force.
float nearestDistance(const DynamicCodeMap &map, float x) {
    const float clamped = std::max(map.isSigned() ? -1.0f : 0.0f, std::min(1.0f, x));
    float best = 2.0f;
    for (const float value : map.values()) {
        best = std::min(best, std::abs(value - clamped));
    }
    return best;
}

// Moment-like test values: random signs, magnitudes spread log-uniformly over six decades,
// so every part of the code map is exercised.
torch::Tensor spreadValues(std::int64_t count, bool is_signed, std::uint64_t seed) {
    torch::manual_seed(seed);
    torch::Tensor magnitude = torch::pow(10.0, torch::rand({count}) * 6.0 - 6.0);
    if (!is_signed) {
        return magnitude;
    }
    return magnitude * torch::where(torch::rand({count}) < 0.5, -1.0, 1.0);
}

// A small regression problem: 64 noisy linear targets (noise variance 0.25) of 64 inputs,
// fitted by a linear layer whose weight (4096 elements) is quantized and whose bias is not.
// The problem is convex: both optimizers head for the same minimum, so their losses can be
// compared (on an over-parameterized MLP the loss after memorizing noise depends chaotically
// on every rounding, fp32 runs with and without clipping differ by 30 %).
struct Regression {
    torch::Tensor x;
    torch::Tensor y;
};

Regression makeRegression(c10::ScalarType dtype) {
    torch::manual_seed(11);
    Regression data;
    data.x = torch::randn({1024, 64});
    data.y = data.x.matmul(torch::randn({64, 64}) / 8.0) + 1.0 + 0.5 * torch::randn({1024, 64});
    data.x = data.x.to(dtype);
    data.y = data.y.to(dtype);
    return data;
}

torch::nn::Sequential makeModel(c10::ScalarType dtype) {
    torch::manual_seed(5);
    torch::nn::Sequential model(torch::nn::Linear(64, 64));
    model->to(dtype);
    return model;
}

double loss(torch::nn::Sequential &model, const Regression &data) {
    torch::NoGradGuard no_grad;
    return torch::mse_loss(model->forward(data.x), data.y).item<double>();
}

// Returns the mean training loss of the last ten steps (single steps are noisy).
double trainSteps(torch::nn::Sequential &model, Optimizer &optimizer, const Regression &data,
                  int steps, double max_norm) {
    double recent = 0;
    for (int step = 0; step < steps; ++step) {
        torch::Tensor value = torch::mse_loss(model->forward(data.x), data.y);
        value.backward();
        if (step >= steps - 10) {
            recent += value.item<double>() / 10.0;
        }
        if (max_norm > 0) {
            optimizer.clipGradNorm(max_norm);
        }
        optimizer.step();
        optimizer.zeroGrad();
    }
    return recent;
}

// Quantized and small parameters, one not a multiple of the block size.
std::vector<torch::Tensor> makeParameters(c10::ScalarType dtype) {
    torch::manual_seed(7);
    const std::vector<std::vector<std::int64_t>> shapes = {{7}, {80, 70}, {33, 17}, {4096}};
    std::vector<torch::Tensor> parameters;
    for (const auto &shape : shapes) {
        parameters.push_back(torch::randn(shape, torch::dtype(dtype)).requires_grad_(true));
    }
    return parameters;
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

class TestAdamW8bit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void codeMapsAreDynamic();
    void encodeFindsTheNearestCode_data();
    void encodeFindsTheNearestCode();
    void roundTripErrorIsBounded_data();
    void roundTripErrorIsBounded();
    void tracksFusedAdamW_data();
    void tracksFusedAdamW();
    void stateIsAboutTwoBytesPerParameter();
    void smallTensorsKeepFp32Moments();
    void clipFactorIsApplied_data();
    void clipFactorIsApplied();
    void checkpointResumesBitIdentically_data();
    void checkpointResumesBitIdentically();
    void loadStateNamesWhatDiffers();
    void fromFusedAdamWContinuesTheRun();
};

void TestAdamW8bit::codeMapsAreDynamic() {
    const DynamicCodeMap &signed_map = DynamicCodeMap::signedMap();
    const DynamicCodeMap &unsigned_map = DynamicCodeMap::unsignedMap();
    QCOMPARE(signed_map.decode(signed_map.zeroCode()), 0.0f);
    QCOMPARE(signed_map.decode(0), -1.0f);
    QCOMPARE(signed_map.decode(254), 1.0f);
    for (int code = 1; code < 255; ++code) {
        QVERIFY(signed_map.decode(static_cast<std::uint8_t>(code - 1)) <
                signed_map.decode(static_cast<std::uint8_t>(code)));
        QCOMPARE(signed_map.decode(static_cast<std::uint8_t>(code)),
                 -signed_map.decode(static_cast<std::uint8_t>(254 - code)));
    }
    QCOMPARE(unsigned_map.decode(0), 0.0f);
    QCOMPARE(unsigned_map.decode(255), 1.0f);
    for (int code = 1; code < 256; ++code) {
        QVERIFY(unsigned_map.decode(static_cast<std::uint8_t>(code - 1)) <
                unsigned_map.decode(static_cast<std::uint8_t>(code)));
    }
    // Dynamic, not linear: tiny magnitudes are representable, and the upper decade holds
    // most codes.
    QVERIFY(std::abs(signed_map.decode(128) - 1e-6f) < 1e-9f);
    QVERIFY(std::abs(unsigned_map.decode(1) - 1e-7f) < 1e-10f);
    int signed_top_decade = 0;
    int unsigned_top_decade = 0;
    for (int code = 0; code < 256; ++code) {
        signed_top_decade += signed_map.decode(static_cast<std::uint8_t>(code)) > 0.1f;
        unsigned_top_decade += unsigned_map.decode(static_cast<std::uint8_t>(code)) > 0.1f;
    }
    QCOMPARE(signed_top_decade, 64 + 1); // 64, and the unused code 255 decoding as 1
    QCOMPARE(unsigned_top_decade, 128);
}

void TestAdamW8bit::encodeFindsTheNearestCode_data() {
    QTest::addColumn<bool>("is_signed");
    QTest::newRow("signed") << true;
    QTest::newRow("unsigned") << false;
}

void TestAdamW8bit::encodeFindsTheNearestCode() {
    QFETCH(bool, is_signed);
    const DynamicCodeMap &map = mapNamed(is_signed);
    std::vector<float> samples = {0.0f, 1.0f, -1.0f, 1.5f, -3.0f, 1e-9f, -1e-9f, 5e-8f};
    // Every code value and every midpoint between neighbours (the tie cases).
    for (int code = 0; code < 255; ++code) {
        const float low = map.decode(static_cast<std::uint8_t>(code));
        const float high = map.decode(static_cast<std::uint8_t>(code + 1));
        samples.push_back(low);
        samples.push_back((low + high) / 2.0f);
        samples.push_back(std::nextafter((low + high) / 2.0f, 2.0f));
    }
    const torch::Tensor spread = spreadValues(20000, is_signed, 3);
    for (std::int64_t i = 0; i < spread.numel(); ++i) {
        samples.push_back(spread[i].item<float>());
    }
    const torch::Tensor sample_tensor = torch::tensor(samples);
    const torch::Tensor tensor_codes = map.encodeTensor(sample_tensor);
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const float x = samples[i];
        const float clamped = std::max(map.isSigned() ? -1.0f : 0.0f, std::min(1.0f, x));
        const int code = map.encode(x);
        // Nearest up to the rounding of the distances (a few ulp of x).
        const float distance = std::abs(map.decode(static_cast<std::uint8_t>(code)) - clamped);
        const float best = nearestDistance(map, x);
        QVERIFY2(distance <= best + 4 * FLT_EPSILON * std::abs(clamped) + 1e-12f,
                 qPrintable(QString("%1 encoded as %2 (value %3): %4 away, the nearest %5")
                                .arg(double(x), 0, 'g', 9)
                                .arg(code)
                                .arg(double(map.decode(static_cast<std::uint8_t>(code))))
                                .arg(double(distance))
                                .arg(double(best))));
        QCOMPARE(int(tensor_codes[static_cast<std::int64_t>(i)].item<std::uint8_t>()), code);
    }
    QCOMPARE(int(map.encode(0.0f)), int(map.zeroCode()));
    QCOMPARE(map.decode(map.encode(1.0f)), 1.0f);
}

void TestAdamW8bit::roundTripErrorIsBounded_data() {
    QTest::addColumn<bool>("is_signed");
    QTest::addColumn<double>("mean_relative_bound"); // mean |error| / mean |value|
    // For values in the top decade of their block: the half gap of 64 (128) codes over
    // [0.1, 1], relative to 0.1.
    QTest::addColumn<double>("top_decade_relative_bound");
    QTest::newRow("signed (first moment)") << true << 0.02 << 0.5 * 0.9 / 64 / 0.1;
    QTest::newRow("unsigned (second moment)") << false << 0.01 << 0.5 * 0.9 / 128 / 0.1;
}

void TestAdamW8bit::roundTripErrorIsBounded() {
    QFETCH(bool, is_signed);
    QFETCH(double, mean_relative_bound);
    QFETCH(double, top_decade_relative_bound);
    const DynamicCodeMap &map = mapNamed(is_signed);
    // Gaussian values (as moments mostly are), 40 blocks and a partial one; one block of
    // zeros.
    torch::manual_seed(9);
    torch::Tensor values = torch::randn({41 * 256 + 77});
    if (!is_signed) {
        values = values.square();
    }
    values.narrow(0, 256, 256).zero_();
    const auto quantized = headroom::train::quantizeBlockwise(values, map);
    QCOMPARE(quantized.codes.numel(), std::int64_t{42 * 256});
    QCOMPARE(quantized.absmax.numel(), std::int64_t{42});
    const torch::Tensor restored = headroom::train::dequantizeBlockwise(
        quantized.codes, quantized.absmax, values.numel(), map);
    QCOMPARE(restored.sizes(), values.sizes());
    QVERIFY(torch::equal(restored.narrow(0, 256, 256), torch::zeros({256})));

    const torch::Tensor error = (restored - values).abs();
    const double mean_relative = (error.mean() / values.abs().mean()).item<double>();
    QVERIFY2(mean_relative <= mean_relative_bound,
             qPrintable(QString("mean relative error %1").arg(mean_relative)));
    // Each block's largest element is stored exactly.
    const torch::Tensor padded = torch::constant_pad_nd(values, {0, 42 * 256 - values.numel()});
    const torch::Tensor block_absmax = std::get<0>(padded.view({42, 256}).abs().max(1));
    QVERIFY(torch::equal(quantized.absmax, block_absmax));
    // Values in the top decade of their block keep a bounded relative error.
    const torch::Tensor scale =
        block_absmax.repeat_interleave(256).narrow(0, 0, values.numel()).clamp_min(1e-30);
    const torch::Tensor top = values.abs() >= 0.1 * scale;
    const double worst_top =
        (error.masked_select(top) / values.abs().masked_select(top)).max().item<double>();
    QVERIFY2(worst_top <= top_decade_relative_bound * 1.001,
             qPrintable(QString("top decade relative error %1").arg(worst_top)));
    // Tiny values are not flushed to zero: a block with one value of 1 keeps 1e-4 within 10 %.
    torch::Tensor spread = torch::full({256}, 1e-4);
    spread[0] = 1.0;
    const auto spread_quantized = headroom::train::quantizeBlockwise(spread, map);
    const double kept = headroom::train::dequantizeBlockwise(spread_quantized.codes,
                                                             spread_quantized.absmax, 256, map)[5]
                            .item<double>();
    QVERIFY2(std::abs(kept - 1e-4) <= 1e-5, qPrintable(QString("1e-4 became %1").arg(kept)));

    // The tensor-operation path (what CUDA takes) gives the same codes and values.
    torch::Tensor generic_codes = torch::empty_like(quantized.codes);
    torch::Tensor generic_absmax = torch::empty_like(quantized.absmax);
    headroom::train::quantizeWithTensorOps(values, map, generic_codes, generic_absmax);
    const double same = generic_codes.eq(quantized.codes).to(torch::kDouble).mean().item<double>();
    QVERIFY2(same >= 0.999, qPrintable(QString("only %1 of the codes agree").arg(same)));
    QVERIFY(torch::equal(generic_absmax, quantized.absmax));
    QVERIFY(torch::equal(headroom::train::dequantizeWithTensorOps(quantized.codes, quantized.absmax,
                                                                  values.numel(), map),
                         restored));
}

void TestAdamW8bit::tracksFusedAdamW_data() {
    QTest::addColumn<c10::ScalarType>("dtype");
    QTest::addColumn<double>("max_norm");
    QTest::newRow("float, fused CPU pass") << c10::kFloat << 0.0;
    QTest::newRow("float, fused CPU pass, clipped") << c10::kFloat << 0.02;
    QTest::newRow("double, tensor operations") << c10::kDouble << 0.0;
}

void TestAdamW8bit::tracksFusedAdamW() {
    QFETCH(c10::ScalarType, dtype);
    QFETCH(double, max_norm);
    const Regression data = makeRegression(dtype);
    torch::nn::Sequential reference_model = makeModel(dtype);
    torch::nn::Sequential quantized_model = makeModel(dtype);
    const AdamWOptions options = AdamWOptions().lr(1e-2).weight_decay(1e-2);
    FusedAdamW reference(reference_model->parameters(), options);
    AdamW8bit quantized(quantized_model->parameters(), options);
    QVERIFY(quantized.isQuantized(0));  // the weight
    QVERIFY(!quantized.isQuantized(1)); // the bias

    const double initial = loss(quantized_model, data);
    // On the way down (where a wrong step size shows) and at the end.
    for (const int steps : {30, 170}) {
        const double expected = trainSteps(reference_model, reference, data, steps, max_norm);
        const double actual = trainSteps(quantized_model, quantized, data, steps, max_norm);
        qInfo("loss %.4f -> fp32 AdamW %.4f, 8-bit %.4f", initial, expected, actual);
        QVERIFY2(std::abs(actual - expected) <= 0.03 * expected,
                 qPrintable(QString("8-bit loss %1, fp32 loss %2").arg(actual).arg(expected)));
    }
    const double final_loss = loss(quantized_model, data);
    QVERIFY2(final_loss < 0.15 * initial,
             qPrintable(QString("loss %1 -> %2: did not fall").arg(initial).arg(final_loss)));
    QCOMPARE(quantized.stepCounts()[0], std::int64_t{200});
}

void TestAdamW8bit::stateIsAboutTwoBytesPerParameter() {
    const torch::Tensor weight = torch::randn({1000, 1000}).requires_grad_(true);
    AdamW8bit optimizer({weight});
    QCOMPARE(optimizer.parameterCount(), std::int64_t{1000000});
    const double bytes_per_parameter = double(optimizer.stateBytes()) / 1e6;
    QVERIFY2(bytes_per_parameter <= 2.1, qPrintable(QString::number(bytes_per_parameter)));
    QVERIFY(bytes_per_parameter >= 2.0);
    // The first step fills the state without changing its size.
    weight.mutable_grad() = torch::randn_like(weight);
    optimizer.step();
    QCOMPARE(double(optimizer.stateBytes()) / 1e6, bytes_per_parameter);
}

void TestAdamW8bit::smallTensorsKeepFp32Moments() {
    torch::manual_seed(1);
    std::vector<torch::Tensor> parameters = {torch::randn({4095}).requires_grad_(true),
                                             torch::randn({12, 5}).requires_grad_(true),
                                             torch::randn({64, 64}).requires_grad_(true)};
    std::vector<torch::Tensor> reference_parameters = test_support::cloneParameters(parameters);
    AdamW8bit optimizer(parameters, AdamWOptions().lr(1e-2));
    FusedAdamW reference(reference_parameters, AdamWOptions().lr(1e-2));
    QVERIFY(!optimizer.isQuantized(0));
    QVERIFY(!optimizer.isQuantized(1));
    QVERIFY(optimizer.isQuantized(2)); // exactly 4096 elements
    QCOMPARE(optimizer.stateBytes(), std::uint64_t{8 * (4095 + 60) + 2 * 4096 + 2 * 4 * 16});
    for (int step = 1; step <= 5; ++step) {
        test_support::setGradients(parameters, step, 1.0, 2);
        test_support::setGradients(reference_parameters, step, 1.0, 2);
        optimizer.step();
        reference.step();
    }
    // The small ones follow fp32 AdamW to rounding.
    for (std::size_t index = 0; index < 2; ++index) {
        QVERIFY(torch::allclose(parameters[index], reference_parameters[index], 0, 1e-6));
        QVERIFY(torch::allclose(optimizer.expAvgOf(index), reference.expAvgOf(index), 0, 1e-7));
        QVERIFY(torch::allclose(optimizer.expAvgSqOf(index), reference.expAvgSqOf(index), 0, 1e-7));
    }
    // The quantized one does not (its moments are rounded), but stays close.
    QVERIFY(!torch::equal(optimizer.expAvgOf(2), reference.expAvgOf(2)));
    QVERIFY(torch::allclose(parameters[2], reference_parameters[2], 0, 1e-2));
}

void TestAdamW8bit::clipFactorIsApplied_data() {
    QTest::addColumn<c10::ScalarType>("dtype");
    QTest::newRow("float, fused CPU pass") << c10::kFloat;
    QTest::newRow("double, tensor operations") << c10::kDouble;
}

void TestAdamW8bit::clipFactorIsApplied() {
    QFETCH(c10::ScalarType, dtype);
    std::vector<torch::Tensor> parameters = makeParameters(dtype);
    std::vector<torch::Tensor> expected = test_support::cloneParameters(parameters);
    AdamW8bit optimizer(parameters);
    test_support::setGradients(parameters, 1, 5.0, 2);
    test_support::setGradients(expected, 1, 5.0, 2);
    const double expected_norm = torch::nn::utils::clip_grad_norm_(expected, 2.0);
    const double norm = optimizer.clipGradNorm(2.0);
    QVERIFY2(std::abs(norm - expected_norm) <= 1e-6 * expected_norm,
             qPrintable(QString("norm %1, torch %2").arg(norm).arg(expected_norm)));
    optimizer.step();
    // After one step from zero the first moment is (1 - beta1) x the clipped gradient: exact
    // for the fp32 moments, exact at each block's largest element for the quantized ones.
    for (std::size_t index = 0; index < parameters.size(); ++index) {
        const torch::Tensor expected_moment = 0.1 * expected[index].grad().to(torch::kFloat);
        const torch::Tensor moment = optimizer.expAvgOf(index);
        if (optimizer.isQuantized(index)) {
            QVERIFY(torch::allclose(moment.abs().max(), expected_moment.abs().max(), 1e-5));
            QVERIFY(torch::allclose(moment, expected_moment, 0.08, 1e-5));
        } else {
            QVERIFY(torch::allclose(moment, expected_moment, 1e-5, 1e-7));
        }
    }
    // The factor is used once.
    test_support::setGradients(parameters, 3, 5.0, 2);
    const torch::Tensor moment_before = optimizer.expAvgOf(0).clone();
    optimizer.step();
    const torch::Tensor unclipped = 0.9 * moment_before + 0.1 * parameters[0].grad().to(at::kFloat);
    QVERIFY(torch::allclose(optimizer.expAvgOf(0), unclipped, 1e-5, 1e-6));
    // zeroGrad drops a pending factor.
    QVERIFY(optimizer.clipGradNorm(1e-3) > 1.0);
    optimizer.zeroGrad();
    QVERIFY(!parameters[0].grad().defined());
}

void TestAdamW8bit::checkpointResumesBitIdentically_data() {
    QTest::addColumn<c10::ScalarType>("dtype");
    QTest::newRow("float, fused CPU pass") << c10::kFloat;
    QTest::newRow("double, tensor operations") << c10::kDouble;
}

void TestAdamW8bit::checkpointResumesBitIdentically() {
    QFETCH(c10::ScalarType, dtype);
    std::vector<torch::Tensor> uninterrupted = makeParameters(dtype);
    AdamW8bit first(uninterrupted, AdamWOptions().lr(1e-2));
    for (int step = 1; step <= 3; ++step) {
        test_support::setGradients(uninterrupted, step, 1.0, 2);
        first.step();
    }
    const std::string saved = saveToString(first);
    std::vector<torch::Tensor> resumed = test_support::cloneParameters(uninterrupted);
    AdamW8bit second(resumed, AdamWOptions().lr(1e-2));
    loadFromString(second, saved);
    QCOMPARE(second.stepCounts(), first.stepCounts());
    for (int step = 4; step <= 8; ++step) {
        test_support::setGradients(uninterrupted, step, 1.0, 2);
        test_support::setGradients(resumed, step, 1.0, 2);
        first.clipGradNorm(10.0);
        second.clipGradNorm(10.0);
        first.step();
        second.step();
    }
    for (std::size_t index = 0; index < uninterrupted.size(); ++index) {
        QVERIFY2(torch::equal(uninterrupted[index], resumed[index]),
                 qPrintable(QString("parameter %1 differs").arg(index)));
        QVERIFY(torch::equal(first.expAvgSqOf(index), second.expAvgSqOf(index)));
    }
}

void TestAdamW8bit::loadStateNamesWhatDiffers() {
    const torch::Tensor large = torch::randn({5000}).requires_grad_(true);
    const torch::Tensor small = torch::randn({10}).requires_grad_(true);
    AdamW8bit saved_optimizer({large, small});
    const std::string saved = saveToString(saved_optimizer);

    const auto messageOf = [&](std::vector<torch::Tensor> parameters) {
        AdamW8bit optimizer(parameters);
        try {
            loadFromString(optimizer, saved);
        } catch (const std::runtime_error &error) {
            return std::string(error.what());
        }
        return std::string("no error");
    };
    const std::string other_shape =
        messageOf({torch::randn({6000}).requires_grad_(true), small.detach().clone()});
    QVERIFY2(other_shape.find("parameter 0 has 5000 elements") != std::string::npos &&
                 other_shape.find("6000 in this model") != std::string::npos,
             other_shape.c_str());
    const std::string other_count = messageOf({large.detach().clone()});
    QVERIFY2(other_count.find("covers 2 parameters, this model has 1") != std::string::npos,
             other_count.c_str());
    // A state written by another optimizer.
    FusedAdamW fused({large.detach().clone()});
    const std::string fused_state = saveToString(fused);
    AdamW8bit optimizer({large.detach().clone()});
    try {
        loadFromString(optimizer, fused_state);
        QFAIL("a FusedAdamW state was accepted");
    } catch (const std::runtime_error &error) {
        QVERIFY2(std::string(error.what()).find("no 'layout' entry") != std::string::npos,
                 error.what());
    }
}

void TestAdamW8bit::fromFusedAdamWContinuesTheRun() {
    const Regression data = makeRegression(c10::kFloat);
    torch::nn::Sequential reference_model = makeModel(c10::kFloat);
    torch::nn::Sequential switched_model = makeModel(c10::kFloat);
    const AdamWOptions options = AdamWOptions().lr(1e-2);
    FusedAdamW reference(reference_model->parameters(), options);
    auto before_switch = std::make_unique<FusedAdamW>(switched_model->parameters(), options);
    trainSteps(reference_model, reference, data, 60, 0.0);
    trainSteps(switched_model, *before_switch, data, 60, 0.0);

    std::unique_ptr<AdamW8bit> switched = AdamW8bit::fromFusedAdamW(*before_switch);
    QCOMPARE(switched->stepCounts(), before_switch->stepCounts());
    QCOMPARE(switched->options().lr(), 1e-2);
    for (std::size_t index = 0; index < switched->parameters().size(); ++index) {
        QVERIFY(switched->parameters()[index].is_same(before_switch->parameters()[index]));
        const torch::Tensor expected = before_switch->expAvgSqOf(index);
        const double relative =
            ((switched->expAvgSqOf(index) - expected).abs().sum() / expected.abs().sum())
                .item<double>();
        QVERIFY2(relative < 0.02, qPrintable(QString("moment error %1").arg(relative)));
    }
    before_switch.reset(); // its moments are freed; the parameters stay with the model

    const double expected = trainSteps(reference_model, reference, data, 140, 0.0);
    const double actual = trainSteps(switched_model, *switched, data, 140, 0.0);
    QCOMPARE(switched->stepCounts()[0], std::int64_t{200});
    qInfo("loss: fp32 AdamW %.4f, switched to 8-bit at step 60 %.4f", expected, actual);
    QVERIFY2(std::abs(actual - expected) <= 0.05 * expected,
             qPrintable(QString("switched loss %1, fp32 loss %2").arg(actual).arg(expected)));
}

QTEST_GUILESS_MAIN(TestAdamW8bit)
#include "test_adamw8bit.moc"
