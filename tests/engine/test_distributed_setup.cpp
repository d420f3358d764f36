#include "distributed/data_parallel.h"
#include "distributed/launch_environment.h"
#include "train/failpoints.h"

#include <headroom/config.h>

#include <QtTest>

#include <map>
#include <string>

// The torchrun environment, the ranks' shares of a step and the rank filter of failpoints:
// everything of distributed training that needs no second process.
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

QTEST_GUILESS_MAIN(TestDistributedSetup)
#include "test_distributed_setup.moc"
