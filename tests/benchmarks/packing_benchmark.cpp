// Packing benchmark (issue 40): real (non-padding) tokens per second and peak tensor memory of
// training steps on prompt/completion records about 10x shorter than the window, three ways in
// one run: every example padded to model.seq_len (what Headroom did before), each micro-batch
// padded to its longest example, and data.packing=1 (documents side by side, each attending
// only to itself). Same model, same records, same number of examples per step.
//
//   build/release/tests/benchmarks/packing_benchmark [--seq-len 512] [--steps 8] [--batch 8]
//
// Prints a table and one JSON line per mode.
#include "data/example_stream.h"
#include "memory/cpu_allocator.h"
#include "recipes/recipe.h"
#include "tokenizers/tokenizer.h"

#include <headroom/config.h>

#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using namespace headroom;

namespace {

struct Options {
    std::int64_t seq_len = 512;
    std::int64_t steps = 8;
    std::int64_t batch = 8;
    std::int64_t records = 3000;
};

Options parse(int argc, char **argv) {
    Options options;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string name = argv[i];
        const std::int64_t value = std::atoll(argv[i + 1]);
        if (name == "--seq-len") {
            options.seq_len = value;
        } else if (name == "--steps") {
            options.steps = value;
        } else if (name == "--batch") {
            options.batch = value;
        } else if (name == "--records") {
            options.records = value;
        } else {
            std::fprintf(stderr, "unknown option %s\n", name.c_str());
            std::exit(2);
        }
    }
    return options;
}

// Prompts and completions of random words, about seq_len / 10 bytes per record in all.
std::string writeRecords(const Options &options) {
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() / "headroom_packing_benchmark.jsonl";
    std::ofstream out(path);
    std::mt19937 random(7);
    const std::int64_t mean = std::max<std::int64_t>(8, options.seq_len / 10);
    std::uniform_int_distribution<std::int64_t> length(mean / 2, mean * 3 / 2);
    std::uniform_int_distribution<int> letter('a', 'z');
    const auto words = [&](std::int64_t bytes) {
        std::string text;
        while (static_cast<std::int64_t>(text.size()) < bytes) {
            text += static_cast<char>(text.size() % 6 == 5 ? ' ' : letter(random));
        }
        return text;
    };
    for (std::int64_t i = 0; i < options.records; ++i) {
        const std::int64_t total = length(random);
        out << "{\"prompt\": \"" << words(total / 3) << "\", \"completion\": \""
            << words(total - total / 3) << "\"}\n";
    }
    return path.string();
}

struct Result {
    double real_tokens_per_s = 0;
    double padding_fraction = 0;
    std::uint64_t peak_bytes = 0;
    double last_loss = 0;
};

Result measure(const Options &options, const std::string &path, const data::Tokenizer &tokenizer,
               bool packing, bool pad_to_window) {
    data::DataSpec spec;
    spec.path = path;
    spec.format = data::Format::Jsonl;
    spec.validation_fraction = 0;
    spec.shuffle_buffer = 256;
    spec.seq_len = options.seq_len;
    spec.packing = packing;
    data::ExampleStream stream(spec, data::Split::Train, &tokenizer, nullptr);

    Config config;
    config.set("model.seq_len", std::to_string(options.seq_len));
    config.set("model.layers", "4");
    config.set("model.heads", "4");
    config.set("model.dim", "256");
    config.set("model.dropout", "0");
    torch::manual_seed(1);
    std::unique_ptr<train::Recipe> recipe =
        train::makeGptRecipe(config, tokenizer.vocabSize(), torch::Device(torch::kCPU));
    torch::optim::AdamW optimizer(recipe->module()->parameters(), torch::optim::AdamWOptions(1e-3));
    Result result;
    double seconds = 0;
    std::int64_t real = 0;
    std::int64_t computed = 0;
    for (std::int64_t step = -2; step < options.steps; ++step) { // two warm-up steps
        std::vector<data::Example> examples(static_cast<std::size_t>(options.batch));
        for (data::Example &example : examples) {
            stream.next(example);
        }
        const std::int64_t step_real = train::realInputTokens(examples, options.seq_len);
        for (data::Example &example : examples) {
            if (pad_to_window) {
                // As before: the whole window computed, the same targets learned.
                example.trained.assign(example.tokens.size(), 0);
                for (std::int32_t t = example.prompt_tokens; t < example.real_tokens; ++t) {
                    example.trained[static_cast<std::size_t>(t)] = 1;
                }
                example.real_tokens = 0;
            }
        }
        train::ExampleBatch batch;
        for (const data::Example &example : examples) {
            batch.push_back(&example);
        }
        if (step == 0) {
            memory::resetCpuPeak();
        }
        const auto start = std::chrono::steady_clock::now();
        recipe->beginStep(examples);
        optimizer.zero_grad();
        const train::TrainingLoss loss = recipe->trainingLoss(batch);
        loss.objective.backward();
        optimizer.step();
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (step >= 0) {
            seconds += elapsed;
            real += step_real;
            computed += recipe->computedTokensOf(examples);
            result.last_loss = loss.loss.item<double>();
        }
    }
    result.real_tokens_per_s = static_cast<double>(real) / seconds;
    result.padding_fraction = 1.0 - static_cast<double>(real) / static_cast<double>(computed);
    result.peak_bytes = memory::cpuMemoryStats().peak;
    return result;
}

} // namespace

int main(int argc, char **argv) {
    const Options options = parse(argc, argv);
    memory::installCountingCpuAllocator();
    const std::unique_ptr<data::Tokenizer> tokenizer = data::makeByteTokenizer();
    const std::string path = writeRecords(options);
    struct Mode {
        const char *name;
        bool packing;
        bool pad_to_window;
    };
    const Mode modes[] = {{"padded to window", false, true},
                          {"padded to longest", false, false},
                          {"packed", true, false}};
    std::vector<Result> results;
    for (const Mode &mode : modes) {
        results.push_back(measure(options, path, *tokenizer, mode.packing, mode.pad_to_window));
    }
    std::printf("seq_len %lld, %lld examples per step, %lld steps, GPT 4 layers dim 256, "
                "records ~%lld bytes\n\n",
                static_cast<long long>(options.seq_len), static_cast<long long>(options.batch),
                static_cast<long long>(options.steps),
                static_cast<long long>(options.seq_len / 10));
    std::printf("%-18s %14s %8s %10s %12s\n", "mode", "real tok/s", "x", "padding", "peak MiB");
    for (std::size_t i = 0; i < results.size(); ++i) {
        std::printf("%-18s %14.0f %7.2fx %9.1f%% %12.1f\n", modes[i].name,
                    results[i].real_tokens_per_s,
                    results[i].real_tokens_per_s / results[0].real_tokens_per_s,
                    100.0 * results[i].padding_fraction,
                    static_cast<double>(results[i].peak_bytes) / (1024.0 * 1024.0));
    }
    for (std::size_t i = 0; i < results.size(); ++i) {
        std::printf("{\"mode\":\"%s\",\"real_tokens_per_s\":%.1f,\"padding_fraction\":%.4f,"
                    "\"peak_bytes\":%llu}\n",
                    modes[i].name, results[i].real_tokens_per_s, results[i].padding_fraction,
                    static_cast<unsigned long long>(results[i].peak_bytes));
    }
    std::filesystem::remove(path);
    return 0;
}
