// SPLADE pooling and loss against an independent Python reference
// (tests/interop/splade/reference_splade.py, Debian's python3-torch): the same MLM logits go to
// both through a safetensors file; the pooled vectors, the loss terms and the gradients of the
// objective with respect to the logits must agree within 1e-5. Without python3-torch the test
// skips and says why.
#include "models/splade.h"
#include "python_reference.h"

#include <torch/torch.h>

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace test_support;

namespace {

bool close(const torch::Tensor &a, const torch::Tensor &b) {
    return a.sizes() == b.sizes() && torch::allclose(a, b, 1e-5, 1e-5);
}

// 1 for the first `lengths[i]` tokens of row i.
torch::Tensor maskOf(const std::vector<std::int64_t> &lengths, std::int64_t width) {
    torch::Tensor mask = torch::zeros({static_cast<std::int64_t>(lengths.size()), width});
    for (std::size_t i = 0; i < lengths.size(); ++i) {
        mask[static_cast<std::int64_t>(i)].narrow(0, 0, lengths[i]).fill_(1);
    }
    return mask;
}

} // namespace

class TestSpladeInterop : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void matchesThePythonReference_data();
    void matchesThePythonReference();

private:
    QTemporaryDir dir_;
};

void TestSpladeInterop::initTestCase() {
    QVERIFY(dir_.isValid());
    const QString problem = pythonReferenceProblem();
    if (!problem.isEmpty()) {
        QSKIP(qPrintable("no Python reference: " + problem));
    }
}

void TestSpladeInterop::matchesThePythonReference_data() {
    QTest::addColumn<double>("lambda_q");
    QTest::addColumn<double>("lambda_d");
    QTest::addColumn<int>("hard_negatives");
    QTest::newRow("contrastive only, in-batch negatives") << 0.0 << 0.0 << 0;
    QTest::newRow("FLOPS weights, two hard negatives") << 0.3 << 0.1 << 2;
    QTest::newRow("large query weight") << 2.0 << 0.01 << 1;
}

void TestSpladeInterop::matchesThePythonReference() {
    QFETCH(double, lambda_q);
    QFETCH(double, lambda_d);
    QFETCH(int, hard_negatives);
    torch::manual_seed(17 + hard_negatives);
    constexpr std::int64_t kVocab = 40;
    const std::vector<std::int64_t> query_lengths = {5, 2, 4};
    std::vector<std::int64_t> passage_lengths = {7, 3, 6};
    for (int i = 0; i < hard_negatives; ++i) {
        passage_lengths.push_back(2 + 2 * i);
    }
    const auto queries = static_cast<std::int64_t>(query_lengths.size());
    const auto passages = static_cast<std::int64_t>(passage_lengths.size());
    // Logits around zero so that relu cuts some and the max moves between tokens.
    torch::Tensor query_logits = (torch::randn({queries, 5, kVocab}) * 2).requires_grad_(true);
    torch::Tensor passage_logits = (torch::randn({passages, 7, kVocab}) * 2).requires_grad_(true);
    const torch::Tensor query_mask = maskOf(query_lengths, 5);
    const torch::Tensor passage_mask = maskOf(passage_lengths, 7);
    const torch::Tensor positive = torch::tensor({2, 0, 1}, torch::kLong);

    static int counter = 0;
    const QString in = QDir(dir_.path()).filePath(QString("in-%1.safetensors").arg(++counter));
    const QString out = in + ".out";
    writeReferenceTensors(in,
                          {{"query_logits", query_logits},
                           {"query_mask", query_mask},
                           {"passage_logits", passage_logits},
                           {"passage_mask", passage_mask},
                           {"positive", positive}},
                          {{"lambda_q", QString::number(lambda_q, 'g', 17).toStdString()},
                           {"lambda_d", QString::number(lambda_d, 'g', 17).toStdString()}});
    const QString problem = runReference(
        QStringLiteral(HEADROOM_SOURCE_DIR "/tests/interop/splade/reference_splade.py"), in, out);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    const std::map<std::string, torch::Tensor> expected = readReferenceTensors(out);

    const torch::Tensor pooled_queries = headroom::models::spladePool(query_logits, query_mask);
    const torch::Tensor pooled_passages =
        headroom::models::spladePool(passage_logits, passage_mask);
    const headroom::models::SpladeLossTerms terms =
        headroom::models::spladeLoss(pooled_queries, pooled_passages, positive, lambda_q, lambda_d);
    terms.objective.backward();

    QVERIFY(close(pooled_queries, expected.at("queries")));
    QVERIFY(close(pooled_passages, expected.at("passages")));
    QVERIFY(close(terms.contrastive.reshape({1}), expected.at("contrastive")));
    QVERIFY(close(terms.flops_q.reshape({1}), expected.at("flops_q")));
    QVERIFY(close(terms.flops_d.reshape({1}), expected.at("flops_d")));
    QVERIFY(close(terms.objective.reshape({1}), expected.at("objective")));
    QVERIFY2(close(query_logits.grad(), expected.at("grad.query_logits")), "query gradient");
    QVERIFY2(close(passage_logits.grad(), expected.at("grad.passage_logits")), "passage gradient");
    // Some weights were cut to zero: the vectors are sparse, as SPLADE's should be.
    QVERIFY(pooled_queries.eq(0).any().item<bool>());
}

QTEST_GUILESS_MAIN(TestSpladeInterop)
#include "test_splade_interop.moc"
