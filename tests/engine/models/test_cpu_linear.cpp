// models/cpu_linear: the GPT's Linear layers through oneDNN's sgemm agree with torch::linear in
// value and gradients, skip the gradients nobody needs, and leave what they cannot take
// (other dtypes, autocast) to torch::linear.
#include "compat/autocast.h"
#include "compat/cpu_gemm.h"
#include "models/cpu_linear.h"

#include <torch/torch.h>

#include <QtTest>

using headroom::models::cpuLinear;

namespace {

double maxDifference(const torch::Tensor &a, const torch::Tensor &b) {
    return (a - b).abs().max().item<double>();
}

} // namespace

class TestCpuLinear : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void choosesTheGemmByTheBlasKernels();
    void matchesTorchLinear_data();
    void matchesTorchLinear();
    void frozenWeightGetsNoGradient();
    void otherDtypesAndAutocastTakeTorchLinear();
    void takesOneDnnWhereExported();
};

void TestCpuLinear::initTestCase() {
    // The oneDNN path is what these tests check, whichever GEMM this machine's BLAS would get.
    qputenv("HEADROOM_GEMM", "onednn");
}

void TestCpuLinear::choosesTheGemmByTheBlasKernels() {
    using headroom::compat::chooseCpuGemm;
    using headroom::compat::CpuGemm;
    constexpr unsigned avx2 = 0x7, avx512_bf16 = 0xe7, avx2_vnni = 0x407;
    // oneDNN only where it runs wider kernels than OpenBLAS: AVX-512 against the AVX2 kernels
    // (an AVX-512 machine with OPENBLAS_CORETYPE=Haswell). Same width: BLAS.
    QCOMPARE(chooseCpuGemm("", avx512_bf16, "Haswell"), CpuGemm::OneDnn);
    QCOMPARE(chooseCpuGemm("", avx512_bf16, "Zen"), CpuGemm::OneDnn);
    QCOMPARE(chooseCpuGemm("", avx512_bf16, "Cooperlake"), CpuGemm::Blas);
    QCOMPARE(chooseCpuGemm("", avx512_bf16, "SkylakeX"), CpuGemm::Blas);
    QCOMPARE(chooseCpuGemm("", avx512_bf16, "sapphirerapids"), CpuGemm::Blas);
    QCOMPARE(chooseCpuGemm("", avx2, "Haswell"), CpuGemm::Blas);
    QCOMPARE(chooseCpuGemm("", avx2_vnni, "Haswell"), CpuGemm::Blas);
    // Another BLAS (MKL, Accelerate): ATen's path.
    QCOMPARE(chooseCpuGemm("", avx512_bf16, ""), CpuGemm::Blas);
    // The setting overrides the rule; without oneDNN there is only BLAS.
    QCOMPARE(chooseCpuGemm("onednn", avx2, "Cooperlake"), CpuGemm::OneDnn);
    QCOMPARE(chooseCpuGemm("blas", avx512_bf16, "Haswell"), CpuGemm::Blas);
    QCOMPARE(chooseCpuGemm("onednn", 0, "Haswell"), CpuGemm::Blas);
    QCOMPARE(chooseCpuGemm("", 0, ""), CpuGemm::Blas);
}

void TestCpuLinear::matchesTorchLinear_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("in");
    QTest::addColumn<int>("out");
    QTest::addColumn<bool>("bias");
    QTest::newRow("block shape, bias") << 96 << 64 << 192 << true;
    QTest::newRow("odd sizes, bias") << 37 << 13 << 29 << true;
    QTest::newRow("tied head, no bias") << 50 << 32 << 257 << false;
    QTest::newRow("one row") << 1 << 8 << 5 << true;
}

void TestCpuLinear::matchesTorchLinear() {
    QFETCH(int, rows);
    QFETCH(int, in);
    QFETCH(int, out);
    QFETCH(bool, bias);
    torch::manual_seed(11);
    const torch::Tensor x = torch::randn({rows, in}).requires_grad_();
    const torch::Tensor weight = torch::randn({out, in}).requires_grad_();
    const torch::Tensor b = bias ? torch::randn({out}).requires_grad_() : torch::Tensor();
    const torch::Tensor upstream = torch::randn({rows, out});

    const torch::Tensor bias_before = bias ? b.detach().clone() : torch::Tensor();
    const torch::Tensor y = cpuLinear(x, weight, b);
    if (bias) {
        // One row once made the output a view of the bias and the GEMM wrote into it.
        QVERIFY(torch::equal(b.detach(), bias_before));
    }
    y.backward(upstream);
    const torch::Tensor grad_x = x.grad().clone();
    const torch::Tensor grad_weight = weight.grad().clone();
    const torch::Tensor grad_bias = bias ? b.grad().clone() : torch::Tensor();
    x.mutable_grad().reset();
    weight.mutable_grad().reset();
    if (bias) {
        b.mutable_grad().reset();
    }
    const torch::Tensor reference = torch::linear(x, weight, b);
    reference.backward(upstream);

    QCOMPARE(y.sizes(), reference.sizes());
    // Two GEMM libraries round differently in the last bits; sums over `in` or `rows` terms of
    // order one.
    QVERIFY2(maxDifference(y, reference) < 1e-4, "forward");
    QVERIFY2(maxDifference(grad_x, x.grad()) < 1e-4, "input gradient");
    QVERIFY2(maxDifference(grad_weight, weight.grad()) < 1e-4, "weight gradient");
    if (bias) {
        QVERIFY2(maxDifference(grad_bias, b.grad()) < 1e-5, "bias gradient");
    }
}

void TestCpuLinear::frozenWeightGetsNoGradient() {
    torch::manual_seed(12);
    const torch::Tensor x = torch::randn({6, 4}).requires_grad_();
    const torch::Tensor weight = torch::randn({3, 4});
    const torch::Tensor bias = torch::randn({3});
    cpuLinear(x, weight, bias).sum().backward();
    QVERIFY(x.grad().defined());
    QVERIFY(!weight.grad().defined());
    QVERIFY(!bias.grad().defined());
    QVERIFY(maxDifference(x.grad(), weight.sum(0).expand({6, 4})) < 1e-5);
    // Without grad mode (generation, evaluation) nothing is recorded.
    torch::NoGradGuard no_grad;
    QVERIFY(!cpuLinear(x, weight, bias).requires_grad());
}

void TestCpuLinear::otherDtypesAndAutocastTakeTorchLinear() {
    torch::manual_seed(13);
    const torch::Tensor x = torch::randn({5, 4}, torch::kDouble);
    const torch::Tensor weight = torch::randn({3, 4}, torch::kDouble);
    QVERIFY(!headroom::models::cpuGemmLinearApplies(x, weight));
    QVERIFY(torch::equal(cpuLinear(x, weight), torch::linear(x, weight)));

    const torch::Tensor xf = x.to(torch::kFloat);
    const torch::Tensor wf = weight.to(torch::kFloat);
    const headroom::compat::AutocastGuard autocast(torch::kCPU, torch::kBFloat16);
    QVERIFY(!headroom::models::cpuGemmLinearApplies(xf, wf));
    QCOMPARE(cpuLinear(xf, wf).scalar_type(), torch::kBFloat16);

    // Mismatched shapes get torch::linear's own error, not a GEMM on the wrong sizes.
    bool threw = false;
    try {
        (void)cpuLinear(torch::randn({5, 4}), torch::randn({3, 6}));
    } catch (const c10::Error &) {
        threw = true;
    }
    QVERIFY(threw);
}

void TestCpuLinear::takesOneDnnWhereExported() {
    // The Debian LibTorch exports oneDNN; initTestCase asked for it.
    if (!headroom::compat::dnnlSgemmAvailable()) {
        QSKIP("no oneDNN sgemm in this LibTorch, or HEADROOM_GEMM=blas");
    }
    const torch::Tensor x = torch::randn({2, 3}).requires_grad_();
    const torch::Tensor weight = torch::randn({4, 3});
    QVERIFY(headroom::models::cpuGemmLinearApplies(x, weight));
    const std::string node = cpuLinear(x, weight).grad_fn()->name();
    QVERIFY2(node.find("GemmLinear") != std::string::npos, node.c_str());
}

QTEST_GUILESS_MAIN(TestCpuLinear)
#include "test_cpu_linear.moc"
