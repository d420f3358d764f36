#include "compat/process_group.h"
#include "distributed/gradient_buckets.h"

#include <QtTest>

#include <exception>
#include <stdexcept>
#include <thread>
#include <vector>

#if HEADROOM_GLOO_BUILT
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#endif

// The overlapped gradient exchange: the bucket layout, and two ranks (threads of this process
// over loopback) whose gradients, sent while backward runs, sum to the reference.
Q_DECLARE_METATYPE(std::vector<std::int64_t>)
Q_DECLARE_METATYPE(std::vector<bool>)
using Grouping = std::vector<std::vector<std::size_t>>;
Q_DECLARE_METATYPE(Grouping)

using headroom::distributed::BucketLayout;
using headroom::distributed::OverlappedReducer;

class TestGradientBuckets : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void layoutIsReverseWholeAndBounded_data();
    void layoutIsReverseWholeAndBounded();
    void twoRanksSumWhileBackwardRuns();
};

void TestGradientBuckets::layoutIsReverseWholeAndBounded_data() {
    QTest::addColumn<std::vector<std::int64_t>>("numels");
    QTest::addColumn<std::vector<bool>>("trainable");
    QTest::addColumn<Grouping>("expected");
    // Capacity 20: the last parameters first, a parameter of 20 or more alone.
    QTest::newRow("mixed") << std::vector<std::int64_t>{10, 300, 5, 5, 1000, 7}
                           << std::vector<bool>(6, true) << Grouping{{5}, {4}, {3, 2}, {1}, {0}};
    QTest::newRow("frozen left out") << std::vector<std::int64_t>{10, 300, 5, 5, 1000, 7}
                                     << std::vector<bool>{true, true, true, false, true, true}
                                     << Grouping{{5}, {4}, {2}, {1}, {0}};
    QTest::newRow("filled exactly") << std::vector<std::int64_t>{4, 8, 12, 20}
                                    << std::vector<bool>(4, true) << Grouping{{3}, {2, 1}, {0}};
}

void TestGradientBuckets::layoutIsReverseWholeAndBounded() {
    QFETCH(std::vector<std::int64_t>, numels);
    QFETCH(std::vector<bool>, trainable);
    QFETCH(Grouping, expected);
    const BucketLayout layout = headroom::distributed::layoutBuckets(numels, trainable, 20);
    QCOMPARE(layout.buckets.size(), expected.size());
    for (std::size_t b = 0; b < expected.size(); ++b) {
        const BucketLayout::Bucket &bucket = layout.buckets[b];
        QCOMPARE(bucket.parameters, expected[b]);
        std::int64_t offset = 0;
        for (std::size_t k = 0; k < bucket.parameters.size(); ++k) {
            QCOMPARE(bucket.offsets[k], offset);
            QCOMPARE(layout.bucket_of[bucket.parameters[k]], static_cast<std::int64_t>(b));
            offset += numels[bucket.parameters[k]];
        }
        QCOMPARE(bucket.numel, offset);
        QCOMPARE(bucket.alone, bucket.parameters.size() == 1 && offset >= 20);
        QVERIFY(bucket.alone || offset <= 20);
    }
    for (std::size_t i = 0; i < numels.size(); ++i) {
        QCOMPARE(layout.bucket_of[i] < 0, !trainable[i]);
    }
}

namespace {

#if HEADROOM_GLOO_BUILT
std::uint16_t freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof(address));
    ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length);
    ::close(fd);
    return ntohs(address.sin_port);
}
#endif

// [unused, one_rank, w1, b1, w2, frozen]: with 16-float buckets (w2, b1), (w1) alone and
// (one_rank, unused) in that order. `unused` never gets a gradient, `one_rank` only on rank 1,
// `frozen` needs none.
// The same values on both rank threads: a private generator (the global one, seeded and drawn
// from by two threads at once, would interleave their draws).
std::vector<torch::Tensor> makeParameters() {
    torch::Generator generator = at::detail::createCPUGenerator(7);
    const auto normal = [&generator](std::vector<std::int64_t> shape) {
        return at::normal(0, 1, shape, generator);
    };
    std::vector<torch::Tensor> parameters = {normal({3}),    normal({5}),
                                             normal({8, 4}), normal({8}),
                                             normal({1, 8}), at::rand({4}, generator) + 0.5};
    for (std::size_t i = 0; i + 1 < parameters.size(); ++i) {
        parameters[i].set_requires_grad(true);
    }
    return parameters;
}

torch::Tensor lossOf(const std::vector<torch::Tensor> &p, int rank, int step, int micro) {
    const torch::Tensor x =
        torch::linspace(-1, 1, 4) * static_cast<double>(1 + rank + 2 * step + 5 * micro);
    const torch::Tensor h = torch::tanh(p[2].matmul(x * p[5]) + p[3]);
    torch::Tensor loss = p[4].matmul(h).pow(2).sum();
    if (rank == 1) {
        loss = loss + (p[1] * h.narrow(0, 0, 5)).sum();
    }
    return loss;
}

// Both ranks' gradients of a step (two micro-batches each, summed per rank), summed, on copies.
std::vector<torch::Tensor> referenceSum(const std::vector<torch::Tensor> &parameters, int step) {
    std::vector<torch::Tensor> sums(parameters.size());
    for (int rank = 0; rank < 2; ++rank) {
        std::vector<torch::Tensor> copies;
        for (const torch::Tensor &parameter : parameters) {
            copies.push_back(parameter.detach().clone().requires_grad_(parameter.requires_grad()));
        }
        for (int micro = 0; micro < 2; ++micro) {
            lossOf(copies, rank, step, micro).backward();
        }
        for (std::size_t i = 0; i < copies.size(); ++i) {
            const torch::Tensor &grad = copies[i].grad();
            if (grad.defined()) {
                sums[i] = sums[i].defined() ? sums[i] + grad : grad;
            }
        }
    }
    return sums;
}

struct RankResult {
    std::string error;
    std::vector<std::size_t> launched_early; // by step
    std::vector<bool> matches;               // by step
    std::vector<std::vector<bool>> produced; // by step
};

void zeroGrads(const std::vector<torch::Tensor> &parameters) {
    for (torch::Tensor parameter : parameters) {
        parameter.mutable_grad() = torch::Tensor();
    }
}

void runRank(int rank, std::uint16_t port, RankResult &result) {
    try {
        headroom::compat::ProcessGroupAddress address;
        address.master_addr = "127.0.0.1";
        address.master_port = port;
        address.rank = rank;
        address.world_size = 2;
        address.timeout = std::chrono::seconds(30);
        auto group = headroom::compat::connectGloo(address);
        OverlappedReducer reducer(
            *group, 64, [] {},
            [](const std::exception &error) { throw std::runtime_error(error.what()); });
        const std::vector<torch::Tensor> parameters = makeParameters();
        for (int step = 0; step < 3; ++step) {
            const std::vector<torch::Tensor> expected = referenceSum(parameters, step);
            reducer.beginStep(parameters);
            // Step 2: rank 1 runs out of memory right after its first bucket went out, and
            // replays both micro-batches.
            const bool interrupt = step == 2 && rank == 1;
            for (int attempt = 0; attempt < (interrupt ? 2 : 1); ++attempt) {
                zeroGrads(parameters);
                lossOf(parameters, rank, step, 0).backward();
                if (interrupt && attempt == 0) {
                    reducer.setAfterEarlyLaunch(
                        [](std::size_t) { throw std::runtime_error("injected"); });
                }
                reducer.arm();
                try {
                    lossOf(parameters, rank, step, 1).backward();
                    reducer.disarm(true);
                } catch (const std::exception &error) {
                    reducer.disarm(false);
                    reducer.setAfterEarlyLaunch(nullptr);
                    if (std::string(error.what()).find("injected") == std::string::npos) {
                        throw;
                    }
                }
            }
            const std::vector<bool> produced = reducer.finish(parameters);
            result.produced.push_back(produced);
            result.launched_early.push_back(reducer.launchedEarly());
            bool matches = true;
            for (std::size_t i = 0; i < parameters.size(); ++i) {
                const torch::Tensor &grad = parameters[i].grad();
                if (expected[i].defined()) {
                    matches = matches && grad.defined() && torch::equal(grad, expected[i]);
                } else if (i == 0) {
                    // Nobody produced it: zeros here, left for the exchange to undefine.
                    matches = matches && grad.defined() && grad.abs().sum().item<float>() == 0;
                } else {
                    matches = matches && !grad.defined();
                }
            }
            result.matches.push_back(matches);
        }
    } catch (const std::exception &error) {
        result.error = error.what();
    }
}

} // namespace

void TestGradientBuckets::twoRanksSumWhileBackwardRuns() {
#if !HEADROOM_GLOO_BUILT
    QSKIP("this build has no Gloo backend");
#else
    const std::uint16_t port = freePort();
    RankResult results[2];
    std::thread other(runRank, 1, port, std::ref(results[1]));
    runRank(0, port, results[0]);
    other.join();
    for (int rank = 0; rank < 2; ++rank) {
        const RankResult &result = results[rank];
        QVERIFY2(result.error.empty(), result.error.c_str());
        QCOMPARE(result.matches, std::vector<bool>(3, true));
        // Step 0 learns how often each gradient arrives; then (w2, b1) and (w1) go out during
        // backward, (one_rank, unused) after it: one_rank never arrives on rank 0.
        QCOMPARE(result.launched_early[0], std::size_t{0});
        QCOMPARE(result.launched_early[1], std::size_t{2});
        // Rank 1's interrupted step sent the first bucket before the error, the second in
        // its replay's backward.
        QCOMPARE(result.launched_early[2], std::size_t{2});
        const std::vector<bool> produced = {false, rank == 1, true, true, true, false};
        for (const std::vector<bool> &step : result.produced) {
            QCOMPARE(step, produced);
        }
    }
#endif
}

QTEST_GUILESS_MAIN(TestGradientBuckets)
#include "test_gradient_buckets.moc"
