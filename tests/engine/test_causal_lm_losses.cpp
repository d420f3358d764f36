// The training loss of the pretrained-layout language model (models/token_losses.h) against
// LibTorch's cross_entropy: the same per-row losses and the same gradients for the hidden
// states and the output head, with ignored targets, in one block of rows and in several.
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

} // namespace

class TestCausalLmLosses : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void matchesCrossEntropy_data();
    void matchesCrossEntropy();
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

QTEST_GUILESS_MAIN(TestCausalLmLosses)
#include "test_causal_lm_losses.moc"
