// The training loss of the pretrained-layout language model (models/token_losses.h) against
// LibTorch's cross_entropy: the same per-row losses and the same gradients for the hidden
// states and the output head, with ignored targets, in one block of rows and in several, in
// fp32 and under bf16 autocast, where the head is cast to bf16 once for all the blocks.
#include "compat/autocast.h"
#include "memory/cpu_allocator.h"
#include "models/token_losses.h"

#include <QtTest>

namespace {

struct Case {
    torch::Tensor h;
    torch::Tensor head;
    torch::Tensor targets;
    torch::Tensor weights; // upstream gradient of each row's loss
};

Case makeCase(std::int64_t rows, std::int64_t vocab, std::int64_t dim) {
    torch::manual_seed(7);
    Case c;
    c.h = torch::randn({rows, dim}).requires_grad_(true);
    c.head = (torch::randn({vocab, dim}) * 2.0).requires_grad_(true);
    c.targets = torch::randint(0, vocab, {rows}, torch::kLong);
    c.targets.index_put_({torch::randperm(rows).narrow(0, 0, rows / 4)}, -100);
    c.weights = torch::rand({rows});
    return c;
}

double maxDifference(const torch::Tensor &a, const torch::Tensor &b) {
    return (a - b).abs().max().item<double>();
}

double relativeDifference(const torch::Tensor &a, const torch::Tensor &b) {
    return maxDifference(a.to(torch::kFloat), b.to(torch::kFloat)) / b.abs().max().item<double>();
}

// The counting allocator's peak over a bf16 loss forward and backward, beyond what was live
// before it.
std::uint64_t autocastPeak(const torch::Tensor &head, std::int64_t rows, std::int64_t dim) {
    Case c = makeCase(rows, head.size(0), dim);
    const std::uint64_t before = headroom::memory::cpuMemoryStats().live;
    headroom::memory::resetCpuPeak();
    torch::Tensor losses;
    {
        const headroom::compat::AutocastGuard autocast(torch::kCPU, torch::kBFloat16);
        losses = headroom::models::tokenLosses(c.h, head, c.targets);
    }
    losses.sum().backward();
    return headroom::memory::cpuMemoryStats().peak - before;
}

} // namespace

class TestCausalLmLosses : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void matchesCrossEntropy_data();
    void matchesCrossEntropy();
    void matchesUnderAutocast_data();
    void matchesUnderAutocast();
    void castsAFrozenHeadOnce();
};

void TestCausalLmLosses::matchesCrossEntropy_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("vocab");
    // 16 MiB of logits per block: 512 rows of 8192 in a block, 1300 rows take three.
    QTest::newRow("one block") << 37 << 50;
    QTest::newRow("three blocks") << 1300 << 8192;
}

void TestCausalLmLosses::matchesCrossEntropy() {
    QFETCH(int, rows);
    QFETCH(int, vocab);
    Case fused = makeCase(rows, vocab, 16);
    Case plain = makeCase(rows, vocab, 16);

    const torch::Tensor losses = headroom::models::tokenLosses(fused.h, fused.head, fused.targets);
    const torch::Tensor expected = torch::nn::functional::cross_entropy(
        torch::linear(plain.h, plain.head), plain.targets,
        torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100).reduction(
            torch::kNone));
    QCOMPARE(losses.sizes(), expected.sizes());
    QVERIFY2(maxDifference(losses, expected) < 1e-4,
             qPrintable(QString::number(maxDifference(losses, expected))));
    QCOMPARE(losses.masked_select(fused.targets.eq(-100)).abs().sum().item<double>(), 0.0);

    (losses * fused.weights).sum().backward();
    (expected * plain.weights).sum().backward();
    QVERIFY2(maxDifference(fused.h.grad(), plain.h.grad()) < 1e-5,
             qPrintable(QString::number(maxDifference(fused.h.grad(), plain.h.grad()))));
    QVERIFY2(maxDifference(fused.head.grad(), plain.head.grad()) < 1e-5,
             qPrintable(QString::number(maxDifference(fused.head.grad(), plain.head.grad()))));
}

void TestCausalLmLosses::matchesUnderAutocast_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("vocab");
    QTest::addColumn<bool>("trains");
    QTest::newRow("frozen, one block") << 37 << 50 << false;
    QTest::newRow("frozen, three blocks") << 1300 << 8192 << false;
    QTest::newRow("trained, one block") << 37 << 50 << true;
    QTest::newRow("trained, three blocks") << 1300 << 8192 << true;
}

// The products in bf16 as autocast makes them, the cross-entropy from their fp32 copy; the head's
// gradient fp32.
void TestCausalLmLosses::matchesUnderAutocast() {
    QFETCH(int, rows);
    QFETCH(int, vocab);
    QFETCH(bool, trains);
    Case fused = makeCase(rows, vocab, 16);
    Case plain = makeCase(rows, vocab, 16);
    fused.head.requires_grad_(trains);
    plain.head.requires_grad_(trains);
    torch::Tensor losses;
    torch::Tensor expected;
    {
        const headroom::compat::AutocastGuard autocast(torch::kCPU, torch::kBFloat16);
        losses = headroom::models::tokenLosses(fused.h, fused.head, fused.targets);
        const torch::Tensor logits = torch::linear(plain.h, plain.head);
        QCOMPARE(logits.scalar_type(), torch::kBFloat16);
        expected = torch::nn::functional::cross_entropy(
            logits.to(torch::kFloat), plain.targets,
            torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100).reduction(
                torch::kNone));
    }
    QVERIFY2(maxDifference(losses, expected) < 1e-4,
             qPrintable(QString::number(maxDifference(losses, expected))));
    (losses * fused.weights).sum().backward();
    (expected * plain.weights).sum().backward();
    QCOMPARE(fused.h.grad().scalar_type(), torch::kFloat);
    QVERIFY2(relativeDifference(fused.h.grad(), plain.h.grad()) < 1e-2,
             qPrintable(QString::number(relativeDifference(fused.h.grad(), plain.h.grad()))));
    QCOMPARE(fused.head.grad().defined(), trains);
    if (trains) {
        QCOMPARE(fused.head.grad().scalar_type(), torch::kFloat);
        QVERIFY2(
            relativeDifference(fused.head.grad(), plain.head.grad()) < 1e-2,
            qPrintable(QString::number(relativeDifference(fused.head.grad(), plain.head.grad()))));
    }
}

// Autocast caches no cast of a frozen weight: cast for each of the three blocks, each copy kept
// for the gradient of h, the loss peaked 2.4 copies above a head that is bf16 already. Cast once,
// it peaks one copy above.
void TestCausalLmLosses::castsAFrozenHeadOnce() {
    headroom::memory::installCountingCpuAllocator();
    const std::int64_t rows = 1300;
    const std::int64_t dim = 256;
    const torch::Tensor head = torch::randn({8192, dim});
    const torch::Tensor cast = head.to(torch::kBFloat16);
    const auto copy = static_cast<double>(cast.nbytes());
    const auto extra = static_cast<double>(autocastPeak(head, rows, dim)) -
                       static_cast<double>(autocastPeak(cast, rows, dim));
    QVERIFY2(
        std::abs(extra - copy) < copy / 4,
        qPrintable(QString("%1 bytes above a bf16 head, one copy is %2").arg(extra).arg(copy)));
}

QTEST_GUILESS_MAIN(TestCausalLmLosses)
#include "test_causal_lm_losses.moc"
