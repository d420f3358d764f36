// Causal self-attention, forward + backward, through compat::causalSelfAttention with each
// path forced: LibTorch 2.x's scaled_dot_product_attention ("sdpa") and the explicit
// baddbmm + softmax + bmm ("explicit"). For each shape it prints the median time of a
// forward + backward, the bytes the forward leaves saved for backward (its output included)
// and the peak above the inputs, counted by Headroom's CPU allocator, and the path
// model.attention=auto takes. attention_memory.sh builds and runs it.
//
//   attention_benchmark [--sweep] [--reps N]
//     default: B=1, H=8, D=64, T = 512, 1024, 2048, 4096 (the memory-vs-length table)
//     --sweep: T 64..2048, D 32..128, B*H 8 and 96 (the shapes behind the auto rule)
#include "compat/attention.h"
#include "compat/attention_path.h"
#include "compat/torch_compat.h"
#include "memory/cpu_allocator.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace headroom;

struct Shape {
    std::int64_t batch, heads, length, head_dim;
};

struct Measure {
    double ms = 0;
    double saved_mib = 0;
    double peak_mib = 0;
};

constexpr double kMiB = 1024.0 * 1024.0;

Measure measure(const Shape &shape, compat::AttentionPath path, int reps) {
    torch::manual_seed(1);
    const torch::Tensor qkv =
        torch::randn({shape.batch, shape.length, 3 * shape.heads * shape.head_dim})
            .requires_grad_(true);
    const torch::Tensor grad =
        torch::randn({shape.batch * shape.length, shape.heads * shape.head_dim});
    Measure result;
    std::vector<double> times;
    for (int rep = 0; rep <= reps; ++rep) { // rep 0 warms up
        qkv.mutable_grad() = torch::Tensor();
        const std::uint64_t base = memory::cpuMemoryStats().live;
        memory::resetCpuPeak();
        const auto start = std::chrono::steady_clock::now();
        torch::Tensor out = compat::causalSelfAttention(qkv, shape.heads, 0, {}, path);
        const std::uint64_t saved = memory::cpuMemoryStats().live - base;
        out.backward(grad);
        const auto stop = std::chrono::steady_clock::now();
        // The gradient of qkv stays; what is above it and the inputs is attention's own.
        const std::uint64_t peak = memory::cpuMemoryStats().peak - base;
        out = torch::Tensor();
        if (rep > 0) {
            times.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
            result.saved_mib = static_cast<double>(saved) / kMiB;
            result.peak_mib = static_cast<double>(peak) / kMiB;
        }
    }
    std::sort(times.begin(), times.end());
    result.ms = times[times.size() / 2];
    return result;
}

void printRow(const Shape &shape, const Measure &sdpa, const Measure &expl) {
    compat::AttentionShape query;
    query.batch = shape.batch;
    query.heads = shape.heads;
    query.length = shape.length;
    query.head_dim = shape.head_dim;
    const compat::AttentionPath chosen =
        compat::chooseAttentionPath(compat::AttentionPath::Auto, query);
    std::printf("| %s | %lld | %lld | %lld | %.1f | %.1f | %.2fx | %.1f | %.1f | %.1f | %.1f | "
                "%s |\n",
                compat::torchVersion().c_str(), static_cast<long long>(shape.batch * shape.heads),
                static_cast<long long>(shape.length), static_cast<long long>(shape.head_dim),
                expl.ms, sdpa.ms, expl.ms / sdpa.ms, expl.saved_mib, sdpa.saved_mib, expl.peak_mib,
                sdpa.peak_mib, compat::attentionPathName(chosen));
    std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
    bool sweep = false;
    int reps = 3;
    for (int index = 1; index < argc; ++index) {
        const std::string arg = argv[index];
        if (arg == "--sweep") {
            sweep = true;
        } else if (arg == "--reps" && index + 1 < argc) {
            reps = std::max(1, std::atoi(argv[++index]));
        } else {
            std::fprintf(stderr, "usage: %s [--sweep] [--reps N]\n", argv[0]);
            return 2;
        }
    }
    memory::installCountingCpuAllocator();
    std::vector<Shape> shapes;
    if (sweep) {
        for (const std::int64_t length : {64, 128, 256, 512, 1024, 2048}) {
            for (const std::int64_t head_dim : {32, 64, 128}) {
                for (const std::int64_t batch_heads : {8, 96}) {
                    // Keep one shape under about 35 GFLOP of forward work on 2 cores.
                    if (batch_heads * length * length * head_dim > (std::int64_t{1} << 33)) {
                        continue;
                    }
                    shapes.push_back({batch_heads / 8, 8, length, head_dim});
                }
            }
        }
    } else {
        for (const std::int64_t length : {512, 1024, 2048, 4096}) {
            shapes.push_back({1, 8, length, 64});
        }
    }
    const bool fused = compat::sdpaAvailable();
    std::printf("| LibTorch | B*H | T | D | explicit ms | sdpa ms | explicit/sdpa time | "
                "explicit saved MiB | sdpa saved MiB | explicit peak MiB | sdpa peak MiB | "
                "auto |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const Shape &shape : shapes) {
        const Measure expl = measure(shape, compat::AttentionPath::Explicit, reps);
        // 1.13 has no fused path: its sdpa column repeats the explicit one.
        const Measure sdpa = fused ? measure(shape, compat::AttentionPath::Sdpa, reps) : expl;
        printRow(shape, sdpa, expl);
    }
    return 0;
}
