// The pretrained-models benchmarks (tests/benchmarks/pretrained.sh runs them and prints the
// table). One mode per process, one JSON line on stdout:
//
//   pretrained_benchmark read FILE [--cold]        read(2) the whole file, 16 MiB at a time
//   pretrained_benchmark touch BYTES               allocate BYTES of float32 and write them once
//   pretrained_benchmark import DIR [--cold]       hf::loadPretrainedModel into fp32
//   pretrained_benchmark lora DIR [--rank 8 --alpha 16 --targets q_proj,v_proj --batch 4
//                        --seq 128 --warmup 2 --steps 10 --lr 1e-4 --clip 1 --profile TRACE
//                        --turn-in FIFO --turn-out FIFO --turn-steps 1]
//   pretrained_benchmark generate DIR [--prompt 16 --new-tokens 256 --repeats 3 --cached-only]
//   pretrained_benchmark quant-size DIR --format fp32|bf16|fp16|int8|nf4
//   pretrained_benchmark quant-steps DIR [--formats fp32,bf16,nf4 --rank 8 --targets all-linear
//                        --batch 1 --seq 256 --checkpoint 1 --warmup 1 --steps 5]
//
// Every mode takes --threads N (at::set_num_threads; 0 leaves LibTorch's default). --cold
// evicts the file's pages from the page cache first (posix_fadvise DONTNEED: only this
// file, nothing else on the machine). "lora" is lora_reference.py's step in Headroom: the
// folder imported, LoRA on the named projections (no LoRA dropout), random tokens, the
// model's loss, backward, the gradient norm clipped, FusedAdamW on the adapters (what the
// trainer uses), zero_grad. "generate" times greedy decoding with the KV cache against
// recomputing the whole prefix for every token (causalLmLogits with use_cache true and
// false): whole generateTokens runs taking turns (median), and token by token in turns.
// "quant-size" imports the folder with the projections held in one base format
// (model.base_dtype) under the counting CPU allocator the trainer uses, and reports the bytes of
// the projections (their tensors' distinct storages), the allocator's bytes for the whole model
// and one pass dequantizing every projection. "quant-steps" loads one model per format and
// times LoRA steps on them in turns (A B C A B C ..., the same tokens for all in a step).
#include "benchmark_turns.h"
#include "hf/model_folder.h"
#include "hf/pretrained_model.h"
#include "memory/cpu_allocator.h"
#include "models/causal_lm.h"
#include "models/generation.h"
#include "models/lora.h"
#include "models/quantized_linear.h"
#include "optim/fused_adamw.h"
#include "quant/base_quantization.h"

#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using LL = long long; // printf's %lld and %llu
using ULL = unsigned long long;
using headroom::hf::ModelFolder;
using headroom::models::CausalLm;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 == 1 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

// VmHWM (peak) or VmRSS (now) from /proc/self/status, in KiB.
long statusKib(const std::string &field) {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind(field + ":", 0) == 0) {
            return std::stol(line.substr(field.size() + 1));
        }
    }
    return -1;
}

class Arguments {
public:
    Arguments(int argc, char **argv, int first) {
        for (int index = first; index < argc; ++index) {
            const std::string key = argv[index];
            if (key == "--cold" || key == "--cached-only") {
                values_[key.substr(2)] = "1";
            } else if (key.rfind("--", 0) == 0 && index + 1 < argc) {
                values_[key.substr(2)] = argv[++index];
            } else {
                throw std::invalid_argument("expected --key value, got '" + key + "'");
            }
        }
    }
    std::int64_t integer(const std::string &key, std::int64_t fallback) {
        const std::string text = take(key);
        return text.empty() ? fallback : std::stoll(text);
    }
    double real(const std::string &key, double fallback) {
        const std::string text = take(key);
        return text.empty() ? fallback : std::stod(text);
    }
    std::string text(const std::string &key, const std::string &fallback) {
        const std::string text = take(key);
        return text.empty() ? fallback : text;
    }
    bool flag(const std::string &key) { return !take(key).empty(); }
    void requireAllUsed() const {
        if (!values_.empty()) {
            throw std::invalid_argument("unknown option --" + values_.begin()->first);
        }
    }

private:
    std::string take(const std::string &key) {
        const auto found = values_.find(key);
        if (found == values_.end()) {
            return {};
        }
        std::string value = found->second;
        values_.erase(found);
        return value;
    }
    std::map<std::string, std::string> values_;
};

void evictFromPageCache(const std::string &path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) {
        throw std::runtime_error("cannot open " + path);
    }
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
}

int readFile(const std::string &path, bool cold) {
    if (cold) {
        evictFromPageCache(path);
    }
    const Clock::time_point start = Clock::now();
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) {
        throw std::runtime_error("cannot open " + path);
    }
    std::vector<char> buffer(16u << 20);
    std::uint64_t total = 0;
    for (;;) {
        const ssize_t got = ::read(fd, buffer.data(), buffer.size());
        if (got < 0) {
            ::close(fd);
            throw std::runtime_error("read failed on " + path);
        }
        if (got == 0) {
            break;
        }
        total += static_cast<std::uint64_t>(got);
    }
    ::close(fd);
    const double seconds = secondsSince(start);
    std::printf("{\"mode\":\"read\",\"cold\":%s,\"bytes\":%llu,\"seconds\":%.4f,\"gb_per_s\":%.3f,"
                "\"peak_rss_kib\":%ld}\n",
                cold ? "true" : "false", static_cast<unsigned long long>(total), seconds,
                static_cast<double>(total) / seconds / 1e9, statusKib("VmHWM"));
    return 0;
}

// What any import into float32 must at least do: allocate the model's bytes and write them
// once, on ordinary pages like the imported parameters (no huge-page advice for them).
int touchMemory(std::uint64_t bytes) {
    const Clock::time_point start = Clock::now();
    torch::Tensor block = torch::empty({static_cast<std::int64_t>(bytes / sizeof(float))});
    block.fill_(0.0);
    const double seconds = secondsSince(start);
    std::printf("{\"mode\":\"touch\",\"bytes\":%llu,\"seconds\":%.4f,\"gb_per_s\":%.3f,"
                "\"threads\":%d}\n",
                static_cast<unsigned long long>(block.nbytes()), seconds,
                static_cast<double>(block.nbytes()) / seconds / 1e9, at::get_num_threads());
    return 0;
}

int importModel(const ModelFolder &folder, bool cold) {
    if (cold) {
        for (const std::string &path : folder.weight_files) {
            evictFromPageCache(path);
        }
    }
    const long rss_before = statusKib("VmRSS");
    const Clock::time_point start = Clock::now();
    const CausalLm model = headroom::hf::loadPretrainedModel(folder);
    const double seconds = secondsSince(start);
    std::uint64_t bytes = 0;
    std::int64_t params = 0;
    for (const torch::Tensor &parameter : model->parameters()) {
        bytes += parameter.nbytes();
        params += parameter.numel();
    }
    std::printf("{\"mode\":\"import\",\"cold\":%s,\"params\":%lld,\"model_bytes\":%llu,"
                "\"seconds\":%.4f,\"rss_before_kib\":%ld,\"rss_after_kib\":%ld,"
                "\"peak_rss_kib\":%ld,\"threads\":%d}\n",
                cold ? "true" : "false", static_cast<long long>(params),
                static_cast<unsigned long long>(bytes), seconds, rss_before, statusKib("VmRSS"),
                statusKib("VmHWM"), at::get_num_threads());
    return 0;
}

std::set<std::string> parseTargets(const std::string &list) {
    std::set<std::string> targets;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        if (comma > start) {
            targets.insert(list.substr(start, comma - start));
        }
        start = comma + 1;
    }
    return targets;
}

int loraSteps(const ModelFolder &folder, Arguments &args) {
    const std::int64_t rank = args.integer("rank", 8);
    const double alpha = args.real("alpha", 16.0);
    const std::string targets = args.text("targets", "q_proj,v_proj");
    const std::int64_t batch = args.integer("batch", 4);
    const std::int64_t seq = args.integer("seq", 128);
    const std::int64_t warmup = args.integer("warmup", 2);
    const std::int64_t steps = args.integer("steps", 10);
    const double lr = args.real("lr", 1e-4);
    const double clip = args.real("clip", 1.0);
    torch::manual_seed(static_cast<std::uint64_t>(args.integer("seed", 0)));
    const std::string profile = args.text("profile", "");
    headroom::benchmarks::Turns turns(args.text("turn-in", ""), args.text("turn-out", ""),
                                      args.integer("turn-steps", 1));
    args.requireAllUsed();

    const Clock::time_point loading = Clock::now();
    CausalLm model = headroom::hf::loadPretrainedModel(folder);
    model->enableLora(headroom::models::LoraOptions().rank(rank).alpha(alpha).dropout(0).targets(
        parseTargets(targets)));
    model->train();
    const double load_s = secondsSince(loading);
    headroom::train::FusedAdamW optimizer(
        headroom::models::trainableParameters(*model),
        headroom::train::FusedAdamWOptions().lr(lr).weight_decay(0.0));
    const std::int64_t vocab = model->options().vocab_size;
    std::int64_t params = 0;
    for (const torch::Tensor &parameter : model->parameters()) {
        params += parameter.numel();
    }

    std::vector<double> step_s;
    double first_loss = 0;
    double last_loss = 0;
    std::unique_ptr<torch::autograd::profiler::RecordProfile> profiling;
    for (std::int64_t step = 0; step < warmup + steps; ++step) {
        turns.beforeStep(step);
        if (step == warmup && !profile.empty()) {
            profiling = std::make_unique<torch::autograd::profiler::RecordProfile>(profile);
        }
        const Clock::time_point start = Clock::now();
        const torch::Tensor tokens = torch::randint(vocab, {batch, seq + 1}, torch::kLong);
        const torch::Tensor loss = model->loss(tokens.narrow(1, 0, seq), tokens.narrow(1, 1, seq));
        loss.backward();
        if (clip > 0) {
            optimizer.clipGradNorm(clip);
        }
        optimizer.step();
        optimizer.zeroGrad();
        const double value = loss.item<double>();
        if (step >= warmup) {
            step_s.push_back(secondsSince(start));
            first_loss = step == warmup ? value : first_loss;
            last_loss = value;
        }
        turns.afterStep(step, step + 1 == warmup + steps);
    }
    profiling.reset();
    double total = 0;
    for (const double seconds : step_s) {
        total += seconds;
    }
    std::printf("{\"mode\":\"lora\",\"params\":%lld,\"trainable\":%lld,\"batch\":%lld,\"seq\":%lld,"
                "\"steps\":%zu,\"seconds\":%.4f,\"ms_per_step\":%.2f,\"median_step_ms\":%.2f,"
                "\"tokens_per_s\":%.1f,\"loss_first\":%.4f,\"loss_last\":%.4f,\"load_s\":%.2f,"
                "\"peak_rss_kib\":%ld,\"threads\":%d}\n",
                static_cast<long long>(params), static_cast<long long>(optimizer.parameterCount()),
                static_cast<long long>(batch), static_cast<long long>(seq), step_s.size(), total,
                1000 * total / static_cast<double>(step_s.size()), 1000 * median(step_s),
                static_cast<double>(batch * seq * static_cast<std::int64_t>(step_s.size())) / total,
                first_loss, last_loss, load_s, statusKib("VmHWM"), at::get_num_threads());
    return 0;
}

int generate(const ModelFolder &folder, Arguments &args) {
    const std::int64_t prompt_length = args.integer("prompt", 16);
    const std::int64_t new_tokens = args.integer("new-tokens", 256);
    const std::int64_t repeats = args.integer("repeats", 3);
    const bool cached_only = args.flag("cached-only");
    torch::manual_seed(static_cast<std::uint64_t>(args.integer("seed", 0)));
    args.requireAllUsed();

    CausalLm model = headroom::hf::loadPretrainedModel(folder);
    model->eval();
    const torch::Tensor ids =
        torch::randint(model->options().vocab_size, {prompt_length}, torch::kLong);
    const std::vector<std::int64_t> prompt(ids.data_ptr<std::int64_t>(),
                                           ids.data_ptr<std::int64_t>() + prompt_length);
    headroom::models::SamplingOptions greedy;
    greedy.max_new_tokens = new_tokens;
    const torch::Device cpu(torch::kCPU);
    torch::Generator generator = at::detail::createCPUGenerator(0);

    // Token by token, the cached and the recomputing model take turns (each goes first every
    // other token), so load from other processes hits both alike. The sequence is the cached
    // model's greedy one; the other must pick the same tokens.
    double cached_s = 0;
    double recomputed_s = 0;
    bool same_tokens = true;
    {
        torch::NoGradGuard no_grad;
        const auto cached = headroom::models::causalLmLogits(*model, cpu, true);
        const auto recomputed = headroom::models::causalLmLogits(*model, cpu, false);
        std::vector<std::int64_t> sequence = prompt;
        for (std::int64_t index = 0; index < new_tokens; ++index) {
            std::int64_t token = -1;
            std::int64_t check = -1;
            for (int turn = 0; turn < 2; ++turn) {
                const bool use_cache = (turn == 0) == (index % 2 == 0);
                if (!use_cache && cached_only) {
                    continue;
                }
                const Clock::time_point start = Clock::now();
                const torch::Tensor logits = (use_cache ? cached : recomputed)->next(sequence);
                const std::int64_t picked =
                    headroom::models::sampleToken(logits, greedy, generator);
                (use_cache ? cached_s : recomputed_s) += secondsSince(start);
                (use_cache ? token : check) = picked;
            }
            same_tokens = same_tokens && (cached_only || token == check);
            sequence.push_back(token);
        }
    }
    // Whole generateTokens runs, the two taking turns run by run: the cached model keeps its
    // weights warm in the CPU caches from one token to the next, as it does in use (above,
    // the other model's turn evicts them every token).
    std::vector<double> whole_cached_s;
    std::vector<double> whole_recomputed_s;
    for (std::int64_t repeat = 0; repeat < repeats; ++repeat) {
        for (const bool use_cache : {true, false}) {
            if (!use_cache && cached_only) {
                continue;
            }
            const auto logits = headroom::models::causalLmLogits(*model, cpu, use_cache);
            const Clock::time_point start = Clock::now();
            const std::size_t made =
                headroom::models::generateTokens(*logits, prompt, greedy).size();
            same_tokens = same_tokens && made == static_cast<std::size_t>(new_tokens);
            (use_cache ? whole_cached_s : whole_recomputed_s).push_back(secondsSince(start));
        }
    }
    const auto count = static_cast<double>(new_tokens);
    const double whole_cached = whole_cached_s.empty() ? 0.0 : median(whole_cached_s);
    const double whole_recomputed = whole_recomputed_s.empty() ? 0.0 : median(whole_recomputed_s);
    std::printf("{\"mode\":\"generate\",\"prompt\":%lld,\"new_tokens\":%lld,\"repeats\":%lld,"
                "\"cached_tokens_per_s\":%.1f,\"recomputed_tokens_per_s\":%.1f,\"speedup\":%.2f,"
                "\"interleaved_cached_tokens_per_s\":%.1f,"
                "\"interleaved_recomputed_tokens_per_s\":%.1f,\"interleaved_speedup\":%.2f,"
                "\"same_tokens\":%s,\"threads\":%d}\n",
                static_cast<long long>(prompt_length), static_cast<long long>(new_tokens),
                static_cast<long long>(repeats), whole_cached > 0 ? count / whole_cached : 0.0,
                whole_recomputed > 0 ? count / whole_recomputed : 0.0,
                whole_cached > 0 ? whole_recomputed / whole_cached : 0.0, count / cached_s,
                recomputed_s > 0 ? count / recomputed_s : 0.0, recomputed_s / cached_s,
                same_tokens ? "true" : "false", at::get_num_threads());
    return 0;
}

using headroom::memory::cpuMemoryStats;
using headroom::models::BaseFormat;
using headroom::models::QuantizedWeight;

// Adds the bytes of the tensor's storage unless an earlier tensor shared it; false if it did.
bool addStorage(const torch::Tensor &tensor, std::set<const void *> &seen, std::uint64_t &bytes) {
    if (!tensor.defined() || !tensor.has_storage() ||
        !seen.insert(tensor.storage().unsafeGetStorageImpl()).second) {
        return false;
    }
    bytes += tensor.storage().nbytes();
    return true;
}

// The projection's weight as the quantized layer reads it (models/quantized_linear.cpp).
QuantizedWeight heldWeight(torch::nn::LinearImpl &linear, BaseFormat format) {
    QuantizedWeight weight;
    weight.format = format;
    weight.out = linear.options.out_features();
    weight.in = linear.options.in_features();
    const auto buffers = linear.named_buffers(/*recurse=*/false);
    const auto buffer = [&buffers](const char *name) {
        const torch::Tensor *found = buffers.find(name);
        return found != nullptr ? *found : torch::Tensor();
    };
    weight.codes = headroom::models::isQuantized(format) ? buffer("weight_codes") : linear.weight;
    weight.scales = buffer("weight_scales");
    weight.group_offsets = buffer("weight_group_offsets");
    weight.group_steps = buffer("weight_group_steps");
    return weight;
}

int quantSize(const ModelFolder &folder, Arguments &args) {
    const BaseFormat format = headroom::models::parseBaseFormat(args.text("format", "nf4"));
    args.requireAllUsed();
    headroom::memory::installCountingCpuAllocator();
    const std::uint64_t live_before = cpuMemoryStats().live;
    headroom::memory::resetCpuPeak();
    const Clock::time_point start = Clock::now();
    CausalLm model = headroom::hf::loadPretrainedModel(folder, {}, format);
    const double seconds = secondsSince(start);
    const headroom::memory::CpuMemoryStats stats = cpuMemoryStats();

    std::set<const void *> seen;
    std::int64_t projection_params = 0;
    std::uint64_t projection_bytes = 0;
    double estimate = 0; // what the planner counts (baseBytesPerWeight)
    std::vector<QuantizedWeight> weights;
    for (const auto &item : model->named_modules()) {
        auto *linear = item.value()->as<torch::nn::LinearImpl>();
        if (linear == nullptr || item.key().find("layers.") == std::string::npos) {
            continue; // not a projection of a decoder layer (the output head)
        }
        const std::int64_t out = linear->options.out_features();
        const std::int64_t in = linear->options.in_features();
        projection_params += out * in;
        estimate +=
            headroom::models::baseBytesPerWeight(format, in) * static_cast<double>(out * in);
        addStorage(linear->weight, seen, projection_bytes);
        for (const torch::Tensor &buffer : linear->buffers(/*recurse=*/false)) {
            addStorage(buffer, seen, projection_bytes);
        }
        weights.push_back(heldWeight(*linear, format));
    }
    std::int64_t params = projection_params;
    std::uint64_t model_bytes = projection_bytes;
    for (const auto &tensors : {model->parameters(), model->buffers()}) {
        for (const torch::Tensor &tensor : tensors) {
            params += addStorage(tensor, seen, model_bytes) ? tensor.numel() : 0;
        }
    }

    // One pass dequantizing every projection into float32, as a step does three times with
    // checkpointing (forward, recomputed forward, backward); the first pass warms up.
    double dequantize_s = 0;
    if (format != BaseFormat::Fp32) {
        std::map<std::pair<std::int64_t, std::int64_t>, torch::Tensor> outputs;
        for (int pass = 0; pass < 2; ++pass) {
            const Clock::time_point began = Clock::now();
            for (const QuantizedWeight &weight : weights) {
                torch::Tensor &output = outputs[{weight.out, weight.in}];
                output = output.defined() ? output : torch::empty({weight.out, weight.in});
                headroom::models::dequantizeInto(weight, output);
            }
            dequantize_s = secondsSince(began);
        }
    }
    std::printf("{\"mode\":\"quant-size\",\"format\":\"%s\",\"params\":%lld,"
                "\"projection_params\":%lld,\"projection_bytes\":%llu,\"estimate_bytes\":%.0f,"
                "\"model_bytes\":%llu,\"allocator_bytes\":%llu,\"import_peak_bytes\":%llu,"
                "\"seconds\":%.3f,\"dequantize_ms\":%.1f,\"peak_rss_kib\":%ld,\"threads\":%d}\n",
                headroom::models::baseFormatName(format).c_str(), LL(params), LL(projection_params),
                ULL(projection_bytes), estimate, ULL(model_bytes), ULL(stats.live - live_before),
                ULL(stats.peak - live_before), seconds, 1000 * dequantize_s, statusKib("VmHWM"),
                at::get_num_threads());
    return 0;
}

// LoRA steps on one model per base format, the models taking turns step by step.
int quantSteps(const ModelFolder &folder, Arguments &args) {
    const std::set<std::string> formats = parseTargets(args.text("formats", "fp32,bf16,nf4"));
    const std::int64_t rank = args.integer("rank", 8);
    const std::string targets = args.text("targets", "all-linear");
    const std::int64_t batch = args.integer("batch", 1);
    const std::int64_t seq = args.integer("seq", 256);
    const std::int64_t checkpoint = args.integer("checkpoint", 1);
    const std::int64_t warmup = args.integer("warmup", 1);
    const std::int64_t steps = args.integer("steps", 5);
    args.requireAllUsed();
    headroom::memory::installCountingCpuAllocator();

    struct Side {
        BaseFormat format;
        CausalLm model{nullptr};
        std::unique_ptr<headroom::train::FusedAdamW> optimizer;
        std::uint64_t model_bytes = 0, step_peak = 0;
        std::vector<double> step_s;
        double first_loss = 0, last_loss = 0;
    };
    std::vector<Side> sides(formats.size()); // in the names' order: bf16, fp32, int8, nf4
    auto name = formats.begin();
    for (Side &side : sides) {
        side.format = headroom::models::parseBaseFormat(*name++);
        const std::uint64_t live = cpuMemoryStats().live;
        side.model = headroom::hf::loadPretrainedModel(folder, {}, side.format);
        side.model->setCheckpointEvery(checkpoint);
        torch::manual_seed(0); // the same adapters on every side
        side.model->enableLora(
            headroom::models::LoraOptions().rank(rank).alpha(16).dropout(0).targets(
                targets == "all-linear" ? side.model->projectionNames() : parseTargets(targets)));
        side.model->train();
        side.optimizer = std::make_unique<headroom::train::FusedAdamW>(
            headroom::models::trainableParameters(*side.model),
            headroom::train::FusedAdamWOptions().lr(1e-4).weight_decay(0.0));
        side.model_bytes = cpuMemoryStats().live - live;
    }
    const std::int64_t vocab = sides.front().model->options().vocab_size;
    for (std::int64_t step = 0; step < warmup + steps; ++step) {
        const torch::Tensor tokens = torch::randint(vocab, {batch, seq + 1}, torch::kLong);
        for (Side &side : sides) {
            headroom::memory::resetCpuPeak();
            const std::uint64_t live = cpuMemoryStats().live;
            const Clock::time_point start = Clock::now();
            const torch::Tensor loss =
                side.model->loss(tokens.narrow(1, 0, seq), tokens.narrow(1, 1, seq));
            loss.backward();
            side.optimizer->clipGradNorm(1.0);
            side.optimizer->step();
            side.optimizer->zeroGrad();
            const double value = loss.item<double>();
            if (step >= warmup) {
                side.step_s.push_back(secondsSince(start));
                side.first_loss = step == warmup ? value : side.first_loss;
                side.last_loss = value;
                side.step_peak = std::max(side.step_peak, cpuMemoryStats().peak - live);
            }
        }
    }
    std::string results;
    for (const Side &side : sides) {
        char text[512];
        std::snprintf(
            text, sizeof text,
            "%s{\"format\":\"%s\",\"model_bytes\":%llu,\"median_step_ms\":%.1f,"
            "\"step_peak_bytes\":%llu,\"loss_first\":%.4f,\"loss_last\":%.4f,\"steps_ms\":[",
            results.empty() ? "" : ",", headroom::models::baseFormatName(side.format).c_str(),
            ULL(side.model_bytes), 1000 * median(side.step_s), ULL(side.step_peak), side.first_loss,
            side.last_loss);
        results += text;
        for (std::size_t index = 0; index < side.step_s.size(); ++index) {
            results += (index == 0 ? "" : ",") + std::to_string(1000 * side.step_s[index]);
        }
        results += "]}";
    }
    const headroom::models::CausalLmOptions &options = sides.front().model->options();
    std::printf("{\"mode\":\"quant-steps\",\"layers\":%lld,\"dim\":%lld,\"rank\":%lld,"
                "\"targets\":\"%s\",\"batch\":%lld,\"seq\":%lld,\"checkpoint\":%lld,\"steps\":%lld,"
                "\"threads\":%d,\"dequantization_buffer_bytes\":%lld,\"sides\":[%s]}\n",
                LL(options.layers), LL(options.dim), LL(rank), targets.c_str(), LL(batch), LL(seq),
                LL(checkpoint), LL(steps), at::get_num_threads(),
                LL(headroom::models::dequantizationBufferBytes()), results.c_str());
    return 0;
}

int run(int argc, char **argv) {
    if (argc < 3) {
        throw std::invalid_argument("usage: pretrained_benchmark MODE PATH [--threads N] [...]");
    }
    const std::string mode = argv[1];
    const std::string path = argv[2];
    Arguments args(argc, argv, 3);
    const std::int64_t threads = args.integer("threads", 0);
    if (threads > 0) {
        at::set_num_threads(static_cast<int>(threads));
    }
    if (mode == "touch") {
        args.requireAllUsed();
        return touchMemory(std::stoull(path));
    }
    if (mode == "read" || mode == "import") {
        const bool cold = args.flag("cold");
        args.requireAllUsed();
        return mode == "read" ? readFile(path, cold)
                              : importModel(headroom::hf::locateModelFolder(path), cold);
    }
    if (mode == "lora") {
        return loraSteps(headroom::hf::locateModelFolder(path), args);
    }
    if (mode == "generate") {
        return generate(headroom::hf::locateModelFolder(path), args);
    }
    if (mode == "quant-size") {
        return quantSize(headroom::hf::locateModelFolder(path), args);
    }
    if (mode == "quant-steps") {
        return quantSteps(headroom::hf::locateModelFolder(path), args);
    }
    throw std::invalid_argument("unknown mode " + mode +
                                " (read, import, lora, generate, quant-size, quant-steps)");
}

} // namespace

int main(int argc, char **argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception &error) {
        std::cerr << "pretrained_benchmark: " << error.what() << "\n";
        return 2;
    }
}
