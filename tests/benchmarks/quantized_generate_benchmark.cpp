// Greedy generation with the KV cache from one pretrained folder held in several base formats
// (model.base_dtype), the formats taking turns run by run so background load hits them alike:
//
//   quantized_generate_benchmark DIR [--formats fp32,bf16,int8,nf4] [--prompt 16]
//                                    [--new-tokens 128] [--repeats 3] [--threads N]
//
// Prints one JSON line per format: tokens/s (median of the repeats), the ratio to the first
// format, and how many greedy tokens agree with the first format's continuation. Runs under the
// runtime tuning headroom-cli applies (passive OpenMP waits: without it OpenMP's spinning
// threads and OpenBLAS's fight over the cores around every one-row product).
#include "hf/pretrained_model.h"
#include "models/causal_lm.h"
#include "models/generation.h"
#include "quant/base_quantization.h"

#include <headroom/engine.h>

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
    std::string folder;
    std::vector<std::string> formats{"fp32", "bf16", "int8", "nf4"};
    std::int64_t prompt = 16, new_tokens = 128, repeats = 3, threads = 0;
};

Options parse(int argc, char **argv) {
    if (argc < 2) {
        throw std::invalid_argument("usage: quantized_generate_benchmark DIR [--formats "
                                    "fp32,bf16,int8,nf4] [--prompt N] [--new-tokens N] "
                                    "[--repeats N] [--threads N]");
    }
    Options options;
    options.folder = argv[1];
    for (int index = 2; index + 1 < argc; index += 2) {
        const std::string key = argv[index];
        const std::string value = argv[index + 1];
        if (key == "--formats") {
            options.formats.clear();
            std::stringstream list(value);
            for (std::string name; std::getline(list, name, ',');) {
                options.formats.push_back(name);
            }
        } else if (key == "--prompt") {
            options.prompt = std::stoll(value);
        } else if (key == "--new-tokens") {
            options.new_tokens = std::stoll(value);
        } else if (key == "--repeats") {
            options.repeats = std::stoll(value);
        } else if (key == "--threads") {
            options.threads = std::stoll(value);
        } else {
            throw std::invalid_argument("unknown option " + key);
        }
    }
    if ((argc - 2) % 2 != 0) {
        throw std::invalid_argument(std::string("missing value after ") + argv[argc - 1]);
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
    struct Side {
        std::string format;
        headroom::models::CausalLm model{nullptr};
        std::vector<double> seconds;
        std::vector<std::int64_t> tokens;
    };
    std::vector<Side> sides;
    for (const std::string &format : options.formats) {
        Side side;
        side.format = format;
        side.model =
            headroom::hf::loadPretrainedModel(headroom::hf::locateModelFolder(options.folder), {},
                                              headroom::models::parseBaseFormat(format));
        side.model->eval();
        sides.push_back(std::move(side));
    }
    torch::manual_seed(0);
    const torch::Tensor ids =
        torch::randint(sides.front().model->options().vocab_size, {options.prompt}, torch::kLong);
    const std::vector<std::int64_t> prompt(ids.data_ptr<std::int64_t>(),
                                           ids.data_ptr<std::int64_t>() + options.prompt);
    headroom::models::SamplingOptions greedy;
    greedy.max_new_tokens = options.new_tokens;
    const torch::Device cpu(torch::kCPU);
    torch::NoGradGuard no_grad;
    for (std::int64_t repeat = 0; repeat <= options.repeats; ++repeat) { // the first warms up
        for (Side &side : sides) {
            const auto logits = headroom::models::causalLmLogits(*side.model, cpu, true);
            const Clock::time_point start = Clock::now();
            side.tokens = headroom::models::generateTokens(*logits, prompt, greedy);
            const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
            if (repeat > 0) {
                side.seconds.push_back(seconds);
            }
        }
    }
    const double first = median(sides.front().seconds);
    for (const Side &side : sides) {
        std::size_t agree = 0;
        while (agree < side.tokens.size() && agree < sides.front().tokens.size() &&
               side.tokens[agree] == sides.front().tokens[agree]) {
            ++agree;
        }
        const double seconds = median(side.seconds);
        std::printf("{\"format\":\"%s\",\"new_tokens\":%zu,\"tokens_per_s\":%.1f,"
                    "\"speed_vs_first\":%.2f,\"greedy_tokens_agreeing_with_first\":%zu,"
                    "\"threads\":%d}\n",
                    side.format.c_str(), side.tokens.size(),
                    static_cast<double>(side.tokens.size()) / seconds, first / seconds, agree,
                    at::get_num_threads());
    }
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    headroom::relaunchWithTunedRuntime(argc, argv);
    try {
        return run(parse(argc, argv));
    } catch (const std::exception &failure) {
        std::fprintf(stderr, "quantized_generate_benchmark: %s\n", failure.what());
        return 2;
    }
}
