// The Mixture-of-Experts layer against an independent Python reference
// (tests/interop/moe/reference_moe.py, Debian's python3-torch, the same LibTorch build): the
// same weights and inputs go to both through a safetensors file, and outputs, losses, routing
// counts and the gradients of the input and of every weight must agree. Without python3-torch
// the test skips and says why.
#include "models/moe.h"
#include "python_reference.h"

#include <torch/torch.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <string>
#include <vector>

using headroom::models::MoeLayer;
using headroom::models::MoeOptions;

using namespace test_support;

namespace {

constexpr std::int64_t kDim = 12;

QString referenceScript() {
    return QStringLiteral(HEADROOM_SOURCE_DIR "/tests/interop/moe/reference_moe.py");
}

bool close(const torch::Tensor &a, const torch::Tensor &b) {
    return a.sizes() == b.sizes() && torch::allclose(a, b, 1e-5, 1e-5);
}

} // namespace

class TestMoeInterop : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void matchesThePythonReference_data();
    void matchesThePythonReference();

private:
    QTemporaryDir dir_;
};

void TestMoeInterop::initTestCase() {
    QVERIFY(dir_.isValid());
    const QString problem = pythonReferenceProblem();
    if (!problem.isEmpty()) {
        QSKIP(qPrintable("no Python reference: " + problem));
    }
}

void TestMoeInterop::matchesThePythonReference_data() {
    QTest::addColumn<int>("experts");
    QTest::addColumn<int>("top_k");
    QTest::addColumn<double>("capacity_factor");
    QTest::newRow("top-1 (Switch), capacity 1.0") << 4 << 1 << 1.0;
    QTest::newRow("top-2, capacity 1.25") << 4 << 2 << 1.25;
    QTest::newRow("top-2, capacity 0.5") << 4 << 2 << 0.5;
    QTest::newRow("top-2, no capacity") << 4 << 2 << 0.0;
    QTest::newRow("top-3 of 6, capacity 0.8") << 6 << 3 << 0.8;
}

void TestMoeInterop::matchesThePythonReference() {
    QFETCH(int, experts);
    QFETCH(int, top_k);
    QFETCH(double, capacity_factor);
    const double aux_weight = 0.25;
    const double z_weight = 0.05;
    torch::manual_seed(experts * 100 + top_k);
    MoeLayer layer(kDim, MoeOptions()
                             .experts(experts)
                             .top_k(top_k)
                             .capacity_factor(capacity_factor)
                             .expert_hidden(20));
    {
        torch::NoGradGuard no_grad;
        for (torch::Tensor &parameter : layer->parameters()) {
            parameter.copy_(torch::randn(parameter.sizes()) * 0.4);
        }
    }
    torch::Tensor x = torch::randn({3, 9, kDim}).requires_grad_(true);
    const torch::Tensor grad_output = torch::randn({3, 9, kDim});

    std::map<std::string, torch::Tensor> inputs = {{"x", x}, {"grad_output", grad_output}};
    for (const auto &item : layer->named_parameters()) {
        inputs[item.key()] = item.value();
    }
    static int counter = 0;
    const QString in = QDir(dir_.path()).filePath(QString("in-%1.safetensors").arg(++counter));
    const QString out = in + ".out";
    writeReferenceTensors(
        in, inputs,
        {{"top_k", std::to_string(top_k)},
         {"capacity_factor", QString::number(capacity_factor, 'g', 17).toStdString()},
         {"aux_weight", "0.25"},
         {"z_weight", "0.05"}});
    const QString problem = runReference(referenceScript(), in, out);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    const std::map<std::string, torch::Tensor> expected = readReferenceTensors(out);

    const headroom::models::MoeOutput actual = layer->forward(x);
    ((actual.output * grad_output).sum() + aux_weight * actual.aux_loss + z_weight * actual.z_loss)
        .backward();

    QVERIFY(close(actual.output, expected.at("output")));
    QVERIFY(close(actual.aux_loss, expected.at("aux_loss")));
    QVERIFY(close(actual.z_loss, expected.at("z_loss")));
    QCOMPARE(actual.dropped.item<std::int64_t>(), expected.at("dropped").item<std::int64_t>());
    QVERIFY(torch::equal(actual.expert_counts, expected.at("expert_counts")));
    if (capacity_factor > 0 && capacity_factor < 1) {
        QVERIFY(actual.dropped.item<std::int64_t>() > 0); // the capacity path was exercised
    }
    QVERIFY2(close(x.grad(), expected.at("grad.x")), "input gradient");
    for (const auto &item : layer->named_parameters()) {
        // An expert no token reached has no gradient here and zeros there.
        const torch::Tensor grad =
            item.value().grad().defined() ? item.value().grad() : torch::zeros_like(item.value());
        QVERIFY2(close(grad, expected.at("grad." + item.key())), item.key().c_str());
    }
}

QTEST_GUILESS_MAIN(TestMoeInterop)
#include "test_moe_interop.moc"
