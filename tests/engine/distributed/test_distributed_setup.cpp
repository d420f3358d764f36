#include "compat/process_group.h"
#include "distributed/data_parallel.h"
#include "distributed/launch_environment.h"
#include "distributed/sharded_optimizer.h"
#include "optim/adamw8bit.h"
#include "optim/fused_adamw.h"
#include "optim/offloaded_adamw.h"
#include "train/failpoints.h"

#include <headroom/config.h>

#include <QtTest>

#include <functional>
#include <map>
#include <memory>
#include <string>

// The torchrun environment, the ranks' shares of a step and the rank filter of failpoints:
// everything of distributed training that needs no second process.
using OptimizerFactory =
    std::function<std::unique_ptr<headroom::train::Optimizer>(const std::vector<torch::Tensor> &)>;
Q_DECLARE_METATYPE(OptimizerFactory)
Q_DECLARE_METATYPE(std::vector<std::int64_t>)
Q_DECLARE_METATYPE(std::vector<std::size_t>)
Q_DECLARE_METATYPE(headroom::distributed::Backend)

class TestDistributedSetup : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void noVariablesIsASingleProcess();
    void readsAValidEnvironment();
    void worldSizeOneIsASingleProcess();
    void badVariablesAreNamed_data();
    void badVariablesAreNamed();
    void sharesCoverTheStepOnceInOrder_data();
    void sharesCoverTheStepOnceInOrder();
    void failpointsFilterByRank();
    void backendFollowsDeviceAndBuild_data();
    void backendFollowsDeviceAndBuild();
    void ncclIsRefusedByThisBuild();
    void shardsAreContiguousAndBalanced_data();
    void shardsAreContiguousAndBalanced();
    void stateMovesParameterByParameter_data();
    void stateMovesParameterByParameter();
};

namespace {

using Variables = std::map<std::string, std::string>;

headroom::distributed::EnvironmentLookup lookupIn(const Variables &variables) {
    return [&variables](const char *name) -> const char * {
        const auto found = variables.find(name);
        return found == variables.end() ? nullptr : found->second.c_str();
    };
}

const Variables kTwoRanks = {{"RANK", "1"},
                             {"WORLD_SIZE", "2"},
                             {"LOCAL_RANK", "1"},
                             {"MASTER_ADDR", "127.0.0.1"},
                             {"MASTER_PORT", "29500"}};

} // namespace

void TestDistributedSetup::noVariablesIsASingleProcess() {
    const Variables none;
    QVERIFY(!headroom::distributed::readLaunchEnvironment(lookupIn(none)));
}

void TestDistributedSetup::readsAValidEnvironment() {
    const auto environment = headroom::distributed::readLaunchEnvironment(lookupIn(kTwoRanks));
    QVERIFY(environment);
    QCOMPARE(environment->rank, 1);
    QCOMPARE(environment->world_size, 2);
    QCOMPARE(environment->local_rank, 1);
    QCOMPARE(environment->master_addr, std::string("127.0.0.1"));
    QCOMPARE(environment->master_port, std::uint16_t{29500});
}

void TestDistributedSetup::worldSizeOneIsASingleProcess() {
    const Variables one = {{"RANK", "0"}, {"WORLD_SIZE", "1"}};
    QVERIFY(!headroom::distributed::readLaunchEnvironment(lookupIn(one)));
}

void TestDistributedSetup::badVariablesAreNamed_data() {
    QTest::addColumn<QString>("variable");
    QTest::addColumn<QString>("value"); // empty: unset
    QTest::newRow("rank not a number") << "RANK"
                                       << "one";
    QTest::newRow("rank not below world size") << "RANK"
                                               << "2";
    QTest::newRow("rank unset") << "RANK"
                                << "";
    QTest::newRow("world size zero") << "WORLD_SIZE"
                                     << "0";
    QTest::newRow("world size unset") << "WORLD_SIZE"
                                      << "";
    QTest::newRow("local rank negative") << "LOCAL_RANK"
                                         << "-1";
    QTest::newRow("master address unset") << "MASTER_ADDR"
                                          << "";
    QTest::newRow("master port too large") << "MASTER_PORT"
                                           << "70000";
    QTest::newRow("master port unset") << "MASTER_PORT"
                                       << "";
}

void TestDistributedSetup::badVariablesAreNamed() {
    QFETCH(QString, variable);
    QFETCH(QString, value);
    Variables variables = kTwoRanks;
    if (value.isEmpty()) {
        variables.erase(variable.toStdString());
    } else {
        variables[variable.toStdString()] = value.toStdString();
    }
    try {
        headroom::distributed::readLaunchEnvironment(lookupIn(variables));
        QFAIL("accepted");
    } catch (const headroom::ConfigError &error) {
        QVERIFY2(QString(error.what()).startsWith(variable), error.what());
    }
}

void TestDistributedSetup::sharesCoverTheStepOnceInOrder_data() {
    QTest::addColumn<int>("total");
    QTest::addColumn<int>("ranks");
    QTest::newRow("even") << 12 << 2;
    QTest::newRow("uneven") << 7 << 3;
    QTest::newRow("fewer examples than ranks") << 2 << 4;
}

void TestDistributedSetup::sharesCoverTheStepOnceInOrder() {
    QFETCH(int, total);
    QFETCH(int, ranks);
    std::size_t next = 0;
    std::size_t smallest = static_cast<std::size_t>(total);
    std::size_t largest = 0;
    for (int rank = 0; rank < ranks; ++rank) {
        const auto share =
            headroom::distributed::rankShare(static_cast<std::size_t>(total), rank, ranks);
        QCOMPARE(share.first, next);
        next += share.count;
        smallest = std::min(smallest, share.count);
        largest = std::max(largest, share.count);
    }
    QCOMPARE(next, static_cast<std::size_t>(total));
    QVERIFY(largest - smallest <= 1);
}

void TestDistributedSetup::backendFollowsDeviceAndBuild_data() {
    using headroom::distributed::Backend;
    QTest::addColumn<QString>("requested");
    QTest::addColumn<bool>("cuda");
    QTest::addColumn<bool>("nccl_built");
    QTest::addColumn<bool>("gloo_built");
    QTest::addColumn<Backend>("expected");
    QTest::addColumn<QString>("refusal"); // empty: accepted
    QTest::newRow("auto, cpu") << "auto" << false << false << true << Backend::Gloo << "";
    QTest::newRow("auto, cpu, nccl built")
        << "auto" << false << true << true << Backend::Gloo << "";
    QTest::newRow("auto, cuda, nccl built")
        << "auto" << true << true << true << Backend::Nccl << "";
    QTest::newRow("auto, cuda, no nccl") << "auto" << true << false << true << Backend::Gloo << "";
    QTest::newRow("gloo, cuda, nccl built")
        << "gloo" << true << true << true << Backend::Gloo << "";
    QTest::newRow("nccl, cuda") << "nccl" << true << true << false << Backend::Nccl << "";
    QTest::newRow("nccl, no nccl") << "nccl" << true << false << true << Backend::Gloo
                                   << "this build of LibTorch has no NCCL backend; use "
                                      "distributed.backend=gloo";
    QTest::newRow("nccl, cpu") << "nccl" << false << true << true << Backend::Gloo
                               << "the run's device is cpu";
    QTest::newRow("auto, no gloo")
        << "auto" << false << false << false << Backend::Gloo << "has no Gloo backend";
}

void TestDistributedSetup::backendFollowsDeviceAndBuild() {
    QFETCH(QString, requested);
    QFETCH(bool, cuda);
    QFETCH(bool, nccl_built);
    QFETCH(bool, gloo_built);
    QFETCH(headroom::distributed::Backend, expected);
    QFETCH(QString, refusal);
    // A device value needs no GPU.
    const torch::Device device = cuda ? torch::Device(torch::kCUDA, 1) : torch::Device(torch::kCPU);
    try {
        const auto backend = headroom::distributed::chooseBackend(requested.toStdString(), device,
                                                                  nccl_built, gloo_built);
        QVERIFY2(refusal.isEmpty(), "accepted what should be refused");
        QCOMPARE(backend, expected);
    } catch (const headroom::ConfigError &error) {
        QVERIFY2(!refusal.isEmpty(), error.what());
        QVERIFY2(QString::fromStdString(error.what()).contains(refusal), error.what());
    }
}

// What this build says (Debian 12's LibTorch has no CUDA, so no NCCL): nccl is refused naming
// the build, auto on the CPU is Gloo.
void TestDistributedSetup::ncclIsRefusedByThisBuild() {
    const torch::Device cpu(torch::kCPU);
    if (headroom::compat::ncclAvailable()) {
        QSKIP("this build has NCCL");
    }
    try {
        headroom::distributed::chooseBackend("nccl", cpu, headroom::compat::ncclAvailable(),
                                             headroom::compat::glooAvailable());
        QFAIL("distributed.backend=nccl was accepted by a build without NCCL");
    } catch (const headroom::ConfigError &error) {
        QVERIFY2(QString::fromStdString(error.what())
                     .contains("this build of LibTorch has no NCCL backend; use "
                               "distributed.backend=gloo"),
                 error.what());
    }
    if (headroom::compat::glooAvailable()) {
        QCOMPARE(headroom::distributed::chooseBackend("auto", cpu,
                                                      headroom::compat::ncclAvailable(), true),
                 headroom::distributed::Backend::Gloo);
    }
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, headroom::compat::connectNccl(
                                                     headroom::compat::ProcessGroupAddress{}, 0));
}

void TestDistributedSetup::failpointsFilterByRank() {
    const auto rank0 = headroom::train::Failpoints::parse("kill@step:3@rank:1,error@step:2", 0);
    const auto rank1 = headroom::train::Failpoints::parse("kill@step:3@rank:1,error@step:2", 1);
    QVERIFY(!rank0.at("kill", 3));
    QVERIFY(rank1.at("kill", 3));
    QVERIFY(rank0.at("error", 2));
    QVERIFY(rank1.at("error", 2));
    QVERIFY_EXCEPTION_THROWN(headroom::train::Failpoints::parse("kill@step:3@rank:x"),
                             std::invalid_argument);
}

void TestDistributedSetup::shardsAreContiguousAndBalanced_data() {
    QTest::addColumn<std::vector<std::int64_t>>("sizes");
    QTest::addColumn<int>("ranks");
    QTest::addColumn<std::vector<std::size_t>>("expected");
    QTest::newRow("even") << std::vector<std::int64_t>{10, 10, 10, 10} << 2
                          << std::vector<std::size_t>{0, 2, 4};
    QTest::newRow("one large") << std::vector<std::int64_t>{100, 1, 1, 1, 1} << 2
                               << std::vector<std::size_t>{0, 1, 5};
    QTest::newRow("more ranks than parameters")
        << std::vector<std::int64_t>{5, 5} << 4 << std::vector<std::size_t>{0, 1, 1, 2, 2};
    QTest::newRow("one rank") << std::vector<std::int64_t>{3, 4} << 1
                              << std::vector<std::size_t>{0, 2};
}

void TestDistributedSetup::shardsAreContiguousAndBalanced() {
    QFETCH(std::vector<std::int64_t>, sizes);
    QFETCH(int, ranks);
    QFETCH(std::vector<std::size_t>, expected);
    QCOMPARE(headroom::distributed::shardBoundaries(sizes, ranks), expected);
}

namespace {

std::vector<torch::Tensor> trainableCopies(const std::vector<torch::Tensor> &values) {
    std::vector<torch::Tensor> copies;
    for (const torch::Tensor &value : values) {
        copies.push_back(value.clone().set_requires_grad(true));
    }
    return copies;
}

void stepWith(headroom::train::Optimizer &optimizer, const std::vector<torch::Tensor> &grads) {
    for (std::size_t i = 0; i < grads.size(); ++i) {
        optimizer.parameters()[i].mutable_grad() = grads[i].clone();
    }
    optimizer.clipGradNorm(0.5);
    optimizer.step();
}

} // namespace

void TestDistributedSetup::stateMovesParameterByParameter_data() {
    QTest::addColumn<OptimizerFactory>("make");
    QTest::newRow("fused AdamW") << OptimizerFactory([](const std::vector<torch::Tensor> &p) {
        return std::make_unique<headroom::train::FusedAdamW>(p);
    });
    // A 64x80 weight is quantized (codes and block scales), the bias keeps fp32 moments.
    QTest::newRow("8-bit AdamW") << OptimizerFactory([](const std::vector<torch::Tensor> &p) {
        return std::make_unique<headroom::train::AdamW8bit>(p);
    });
    QTest::newRow("offloaded AdamW") << OptimizerFactory([](const std::vector<torch::Tensor> &p) {
        return std::make_unique<headroom::train::OffloadedAdamW>(p);
    });
}

void TestDistributedSetup::stateMovesParameterByParameter() {
    // An optimizer after two steps, its state copied parameter by parameter into a fresh one
    // over the same values: the next step of both gives the same parameters, bit for bit.
    QFETCH(OptimizerFactory, make);
    torch::manual_seed(7);
    const std::vector<torch::Tensor> initial = {torch::randn({64, 80}), torch::randn({80})};
    std::vector<std::vector<torch::Tensor>> grads;
    for (int step = 0; step < 3; ++step) {
        grads.push_back({torch::randn({64, 80}), torch::randn({80})});
    }
    const std::vector<torch::Tensor> first = trainableCopies(initial);
    std::unique_ptr<headroom::train::Optimizer> trained = make(first);
    stepWith(*trained, grads[0]);
    stepWith(*trained, grads[1]);

    std::vector<torch::Tensor> values;
    for (const torch::Tensor &parameter : trained->parameters()) {
        values.push_back(parameter.detach());
    }
    const std::vector<torch::Tensor> second = trainableCopies(values);
    std::unique_ptr<headroom::train::Optimizer> copied = make(second);
    for (std::size_t i = 0; i < initial.size(); ++i) {
        std::vector<torch::Tensor> state;
        for (const torch::Tensor &part : trained->parameterState(i)) {
            state.push_back(part.clone());
        }
        copied->setParameterState(i, state);
    }
    stepWith(*trained, grads[2]);
    stepWith(*copied, grads[2]);
    for (std::size_t i = 0; i < initial.size(); ++i) {
        QVERIFY(torch::equal(trained->parameters()[i], copied->parameters()[i]));
    }
    // A state of another parameter's size is refused, naming the parameter.
    try {
        copied->setParameterState(1, trained->parameterState(0));
        QFAIL("a state of the wrong size was accepted");
    } catch (const std::runtime_error &error) {
        QVERIFY2(std::string(error.what()).find("parameter 1") != std::string::npos, error.what());
    }
}

QTEST_GUILESS_MAIN(TestDistributedSetup)
#include "test_distributed_setup.moc"
