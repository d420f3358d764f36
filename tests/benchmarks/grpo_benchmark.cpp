// GRPO's sampling against `generate` on one pretrained folder (docs/BENCHMARKS.md, "GRPO"):
// a group of G completions of one prompt sampled in lockstep through one KV cache (what a GRPO
// step does, models::sampleContinuations) against the same G completions generated one after
// the other with the KV cache (what `generate` does for one, models::generateTokens), the two
// taking turns so background load hits them alike:
//
//   grpo_benchmark DIR [--group 8] [--prompt 32] [--new-tokens 64] [--repeats 3]
//                      [--base-dtype fp32] [--threads N]
//
// Sampling at temperature 1 with no end-of-sequence id, so every completion has new-tokens
// tokens. Prints a Markdown table: new tokens per second of each way, median of the repeats,
// and the ratio.
#include "hf/pretrained_model.h"
#include "models/causal_lm.h"
#include "models/generation.h"
#include "models/group_sampling.h"
#include "quant/base_quantization.h"

#include <headroom/engine.h>

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
    std::string folder;
    std::string base_dtype = "fp32";
    std::int64_t group = 8, prompt = 32, new_tokens = 64, repeats = 3, threads = 0;
};

Options parse(int argc, char **argv) {
    if (argc < 2 || (argc - 2) % 2 != 0) {
        throw std::invalid_argument("usage: grpo_benchmark DIR [--group N] [--prompt N] "
                                    "[--new-tokens N] [--repeats N] [--base-dtype F] "
                                    "[--threads N]");
    }
    Options options;
    options.folder = argv[1];
    for (int index = 2; index + 1 < argc; index += 2) {
        const std::string key = argv[index];
        const std::string value = argv[index + 1];
        if (key == "--base-dtype") {
            options.base_dtype = value;
            continue;
        }
        std::int64_t *target = key == "--group"        ? &options.group
                               : key == "--prompt"     ? &options.prompt
                               : key == "--new-tokens" ? &options.new_tokens
                               : key == "--repeats"    ? &options.repeats
                               : key == "--threads"    ? &options.threads
                                                       : nullptr;
        if (target == nullptr) {
            throw std::invalid_argument("unknown option " + key);
        }
        *target = std::stoll(value);
    }
    return options;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

int run(const Options &options) {
    if (options.threads > 0) {
        at::set_num_threads(static_cast<int>(options.threads));
    }
    headroom::models::CausalLm model =
        headroom::hf::loadPretrainedModel(headroom::hf::locateModelFolder(options.folder), {},
                                          headroom::models::parseBaseFormat(options.base_dtype));
    model->eval();
    torch::manual_seed(0);
    const torch::Tensor ids =
        torch::randint(model->options().vocab_size, {options.prompt}, torch::kLong);
    const std::vector<std::int64_t> prompt(ids.data_ptr<std::int64_t>(),
                                           ids.data_ptr<std::int64_t>() + options.prompt);
    headroom::models::SamplingOptions sampling;
    sampling.max_new_tokens = options.new_tokens;
    sampling.temperature = 1.0;
    std::vector<std::uint64_t> keys;
    for (std::int64_t row = 0; row < options.group; ++row) {
        keys.push_back(static_cast<std::uint64_t>(row + 1));
    }
    const torch::Device cpu(torch::kCPU);
    torch::NoGradGuard no_grad;
    std::vector<double> lockstep, one_by_one;
    double tokens = 0;
    for (std::int64_t repeat = 0; repeat <= options.repeats; ++repeat) { // the first warms up
        Clock::time_point start = Clock::now();
        const auto rows =
            headroom::models::sampleContinuations(*model, prompt, keys, sampling, cpu);
        const double group_seconds = std::chrono::duration<double>(Clock::now() - start).count();
        tokens = 0;
        for (const auto &row : rows) {
            tokens += static_cast<double>(row.size());
        }
        start = Clock::now();
        double single_tokens = 0;
        for (std::int64_t row = 0; row < options.group; ++row) {
            const auto logits = headroom::models::causalLmLogits(*model, cpu, true);
            sampling.seed = static_cast<std::uint64_t>(row);
            single_tokens += static_cast<double>(
                headroom::models::generateTokens(*logits, prompt, sampling).size());
        }
        const double single_seconds = std::chrono::duration<double>(Clock::now() - start).count();
        if (repeat > 0) {
            lockstep.push_back(tokens / group_seconds);
            one_by_one.push_back(single_tokens / single_seconds);
        }
    }
    const double group_rate = median(lockstep);
    const double single_rate = median(one_by_one);
    std::printf("| way (group %lld, prompt %lld, %lld new tokens, %s, %d threads) | new tokens/s "
                "| vs generate |\n|---|---:|---:|\n",
                static_cast<long long>(options.group), static_cast<long long>(options.prompt),
                static_cast<long long>(options.new_tokens), options.base_dtype.c_str(),
                at::get_num_threads());
    std::printf("| generate, one completion after the other | %.1f | 1.00x |\n", single_rate);
    std::printf("| GRPO sampling, the group in lockstep | %.1f | %.2fx |\n", group_rate,
                group_rate / single_rate);
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    headroom::relaunchWithTunedRuntime(argc, argv);
    try {
        return run(parse(argc, argv));
    } catch (const std::exception &error) {
        std::fprintf(stderr, "grpo_benchmark: %s\n", error.what());
        return 1;
    }
}
