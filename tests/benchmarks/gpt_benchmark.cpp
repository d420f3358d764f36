// Training-step throughput of the GPT recipe: forward, cross-entropy, backward, clip the
// gradient norm to 1, AdamW step, zero_grad (set to none). The Linear layers' GEMMs go through
// oneDNN or ATen's BLAS as compat::preferredCpuGemm chooses (models/cpu_linear.h);
// HEADROOM_GEMM=blas or =onednn forces one. gpt_reference.py is the same model in PyTorch;
// run_benchmarks.sh runs both side by side. With --experts N the blocks' MLPs are
// Mixture-of-Experts layers (models/moe.h) and the objective adds the recipe's aux and z losses
// (moe.sh runs it against the same model in gpt_reference.py). Prints one JSON line.
#include "compat/cpu_gemm.h"
#include "models/gpt.h"
#include "optim/fused_adamw.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Settings {
    std::int64_t layers = 4;
    std::int64_t heads = 4;
    std::int64_t dim = 128;
    std::int64_t seq = 64;
    std::int64_t batch = 12;
    std::int64_t vocab = 257;
    std::int64_t warmup = 5;
    std::int64_t steps = 20;
    std::int64_t threads = 0; // 0: leave LibTorch's default
    std::int64_t seed = 1234;
    double dropout = 0.0;
    double lr = 3e-4;
    double weight_decay = 0.01;
    std::int64_t experts = 0; // 0: dense
    std::int64_t top_k = 2;
    std::int64_t expert_hidden = 0; // 0: 4 * dim
    std::int64_t every = 1;
    double capacity_factor = 1.25;
    double aux_loss = 0.01;
    double z_loss = 0.001;
    std::string optimizer = "fused"; // fused | torch
    bool phases = false;             // time forward / backward / optimizer separately
    std::string turn_in;             // FIFOs of the turn ring (see Turns)
    std::string turn_out;
    std::int64_t turn_steps = 1; // steps per turn
};

Settings parseSettings(int argc, char **argv) {
    std::map<std::string, std::string> values;
    for (int index = 1; index < argc; ++index) {
        const std::string key = argv[index];
        if (key == "--phases") {
            values["phases"] = "1";
            continue;
        }
        if (key.rfind("--", 0) != 0 || index + 1 >= argc) {
            throw std::invalid_argument("expected --key value, got '" + key + "'");
        }
        values[key.substr(2)] = argv[++index];
    }
    Settings s;
    const auto integer = [&](const char *key, std::int64_t &out) {
        if (auto it = values.find(key); it != values.end()) {
            try {
                out = std::stoll(it->second);
            } catch (const std::exception &) {
                throw std::invalid_argument(std::string("--") + key + " expects an integer, got '" +
                                            it->second + "'");
            }
            values.erase(it);
        }
    };
    const auto real = [&](const char *key, double &out) {
        if (auto it = values.find(key); it != values.end()) {
            try {
                out = std::stod(it->second);
            } catch (const std::exception &) {
                throw std::invalid_argument(std::string("--") + key + " expects a number, got '" +
                                            it->second + "'");
            }
            values.erase(it);
        }
    };
    integer("layers", s.layers);
    integer("heads", s.heads);
    integer("dim", s.dim);
    integer("seq", s.seq);
    integer("batch", s.batch);
    integer("vocab", s.vocab);
    integer("warmup", s.warmup);
    integer("steps", s.steps);
    integer("threads", s.threads);
    integer("seed", s.seed);
    integer("turn-steps", s.turn_steps);
    integer("experts", s.experts);
    integer("top-k", s.top_k);
    integer("expert-hidden", s.expert_hidden);
    integer("every", s.every);
    real("capacity-factor", s.capacity_factor);
    real("aux-loss", s.aux_loss);
    real("z-loss", s.z_loss);
    real("dropout", s.dropout);
    real("lr", s.lr);
    real("weight-decay", s.weight_decay);
    if (auto it = values.find("optimizer"); it != values.end()) {
        s.optimizer = it->second;
        values.erase(it);
    }
    for (auto [key, out] : {std::pair{"turn-in", &s.turn_in}, std::pair{"turn-out", &s.turn_out}}) {
        if (auto it = values.find(key); it != values.end()) {
            *out = it->second;
            values.erase(it);
        }
    }
    s.phases = values.erase("phases") > 0;
    if (!values.empty()) {
        throw std::invalid_argument("unknown option --" + values.begin()->first);
    }
    if (s.turn_steps < 1) {
        throw std::invalid_argument("--turn-steps must be at least 1");
    }
    if (s.optimizer != "fused" && s.optimizer != "torch") {
        throw std::invalid_argument("--optimizer must be fused or torch");
    }
    return s;
}

long peakRssKib() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) == 0) {
            return std::stol(line.substr(6));
        }
    }
    return -1;
}

double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The optimizer side of a step, either the fused AdamW or LibTorch's own.
class Optimizer {
public:
    Optimizer(headroom::models::Gpt &model, const Settings &s) : model_(model) {
        if (s.optimizer == "fused") {
            fused_ = std::make_unique<headroom::train::FusedAdamW>(
                model->parameters(),
                headroom::train::FusedAdamWOptions().lr(s.lr).weight_decay(s.weight_decay));
        } else {
            parameters_ = model->parameters();
            torch_ = std::make_unique<torch::optim::AdamW>(
                parameters_, torch::optim::AdamWOptions(s.lr).weight_decay(s.weight_decay));
        }
    }
    void clipAndStep() {
        if (fused_) {
            fused_->clipGradNorm(1.0);
            fused_->step();
        } else {
            torch::nn::utils::clip_grad_norm_(parameters_, 1.0);
            torch_->step();
        }
    }
    void zeroGrad() {
        if (fused_) {
            fused_->zeroGrad();
        } else {
            model_->zero_grad(/*set_to_none=*/true);
        }
    }

private:
    headroom::models::Gpt &model_;
    std::vector<torch::Tensor> parameters_;
    std::unique_ptr<headroom::train::FusedAdamW> fused_;
    std::unique_ptr<torch::optim::AdamW> torch_;
};

// Several benchmark processes can take turns on the machine, linked in a ring of FIFOs by
// run_benchmarks.sh: a process waits for the token before each block of steps and hands it on
// after the block, so every process sees the same background load, block by block.
class Turns {
public:
    Turns(const std::string &in, const std::string &out, std::int64_t block) : block_(block) {
        if (in.empty() != out.empty()) {
            throw std::invalid_argument("--turn-in and --turn-out go together");
        }
        if (in.empty()) {
            return;
        }
        // O_RDWR: opening a FIFO this way never blocks, whichever process comes first.
        in_ = ::open(in.c_str(), O_RDWR);
        out_ = ::open(out.c_str(), O_RDWR);
        if (in_ < 0 || out_ < 0) {
            throw std::runtime_error("cannot open the turn FIFOs " + in + ", " + out);
        }
    }
    ~Turns() {
        if (in_ >= 0) {
            ::close(in_);
            ::close(out_);
        }
    }
    Turns(const Turns &) = delete;
    Turns &operator=(const Turns &) = delete;

    void beforeStep(std::int64_t step) {
        char token = 0;
        if (in_ >= 0 && step % block_ == 0 && ::read(in_, &token, 1) != 1) {
            throw std::runtime_error("turn FIFO closed");
        }
    }
    void afterStep(std::int64_t step, bool last) {
        const char token = 't';
        if (out_ >= 0 && ((step + 1) % block_ == 0 || last) && ::write(out_, &token, 1) != 1) {
            throw std::runtime_error("turn FIFO closed");
        }
    }

private:
    std::int64_t block_;
    int in_ = -1;
    int out_ = -1;
};

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 == 1 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

// The cross-entropy plus, with MoE blocks, the weighted balancing and z losses, as the GPT
// recipe's objective (recipes/gpt_recipe.cpp).
torch::Tensor objective(headroom::models::Gpt &model, const torch::Tensor &inputs,
                        const torch::Tensor &targets) {
    headroom::models::GptLoss terms = model->lossTerms(inputs, targets);
    torch::Tensor loss = terms.loss;
    if (terms.moe) {
        const headroom::models::MoeOptions &moe = model->options().moe();
        loss = loss + moe.aux_loss() * terms.moe->aux_loss + moe.z_loss() * terms.moe->z_loss;
    }
    return loss;
}

// Parameters a token passes through: an MoE block's unchosen experts left out.
std::int64_t activeParameters(const headroom::models::GptOptions &options) {
    std::int64_t active = headroom::models::gptParameterCount(options);
    const headroom::models::MoeOptions &moe = options.moe();
    if (moe.experts() == 0) {
        return active;
    }
    const std::int64_t dim = options.dim();
    const std::int64_t hidden = headroom::models::expertHidden(moe, dim);
    for (std::int64_t layer = 0; layer < options.layers(); ++layer) {
        if (headroom::models::isMoeBlock(options, layer)) {
            active -= (moe.experts() - moe.top_k()) * (2 * dim * hidden + hidden + dim);
        }
    }
    return active;
}

int run(const Settings &s) {
    if (s.threads > 0) {
        at::set_num_threads(static_cast<int>(s.threads));
    }
    Turns turns(s.turn_in, s.turn_out, s.turn_steps);
    torch::manual_seed(static_cast<std::uint64_t>(s.seed));
    headroom::models::GptOptions options(s.vocab, s.seq);
    options.layers(s.layers).heads(s.heads).dim(s.dim).dropout(s.dropout);
    options.moe()
        .experts(s.experts)
        .top_k(s.top_k)
        .expert_hidden(s.expert_hidden)
        .every(s.every)
        .capacity_factor(s.capacity_factor)
        .aux_loss(s.aux_loss)
        .z_loss(s.z_loss);
    headroom::models::validateGptOptions(options);
    headroom::models::Gpt model(options);
    model->train();
    Optimizer optimizer(model, s);

    // A few distinct batches, cycled, so no step sees a cache-warm copy of the last one.
    constexpr int kBatches = 4;
    std::vector<torch::Tensor> inputs;
    std::vector<torch::Tensor> targets;
    for (int index = 0; index < kBatches; ++index) {
        const torch::Tensor tokens = torch::randint(s.vocab, {s.batch, s.seq + 1}, torch::kLong);
        inputs.push_back(tokens.narrow(1, 0, s.seq).contiguous());
        targets.push_back(tokens.narrow(1, 1, s.seq).contiguous());
    }

    std::vector<double> step_ms;
    double forward_ms = 0;
    double backward_ms = 0;
    double optimizer_ms = 0;
    double first_loss = 0;
    double last_loss = 0;
    const std::int64_t total = s.warmup + s.steps;
    for (std::int64_t step = 0; step < total; ++step) {
        turns.beforeStep(step);
        const bool timed = step >= s.warmup;
        const int slot = static_cast<int>(step % kBatches);
        const Clock::time_point start = Clock::now();
        Clock::time_point phase = start;
        torch::Tensor loss = objective(model, inputs[slot], targets[slot]);
        if (s.phases && timed) {
            forward_ms += millisecondsSince(phase);
            phase = Clock::now();
        }
        loss.backward();
        if (s.phases && timed) {
            backward_ms += millisecondsSince(phase);
            phase = Clock::now();
        }
        optimizer.clipAndStep();
        optimizer.zeroGrad();
        if (s.phases && timed) {
            optimizer_ms += millisecondsSince(phase);
        }
        if (timed) {
            step_ms.push_back(millisecondsSince(start));
        }
        if (step == 0) {
            first_loss = loss.item<double>();
        }
        if (step + 1 == total) {
            last_loss = loss.item<double>();
        }
        turns.afterStep(step, step + 1 == total);
    }
    if (step_ms.empty()) {
        throw std::invalid_argument("--steps must be at least 1");
    }

    double seconds = 0;
    for (const double ms : step_ms) {
        seconds += ms / 1000.0;
    }
    const double tokens_per_step = static_cast<double>(s.batch * s.seq);
    const double median_ms = median(step_ms);
    const long params = static_cast<long>(headroom::models::gptParameterCount(model->options()));
    const long active = static_cast<long>(activeParameters(model->options()));
    std::printf("{\"impl\":\"cpp\",\"optimizer\":\"%s\",\"gemm\":\"%s\",\"params\":%ld,\"active_"
                "params\":%ld,"
                "\"experts\":%lld,\"top_k\":%lld,\"layers\":%lld,"
                "\"dim\":%lld,\"seq\":%lld,\"threads\":%d,\"steps\":%zu,\"seconds\":%.4f,"
                "\"tokens_per_s\":%.1f,\"median_step_ms\":%.3f,\"min_step_ms\":%.3f,"
                "\"tokens_per_s_median_step\":%.1f,\"first_loss\":%.5f,\"last_loss\":%.5f,"
                "\"peak_rss_kib\":%ld",
                s.optimizer.c_str(),
                headroom::compat::preferredCpuGemm() == headroom::compat::CpuGemm::OneDnn ? "onednn"
                                                                                          : "blas",
                params, active, static_cast<long long>(s.experts),
                static_cast<long long>(s.experts > 0 ? s.top_k : 0),
                static_cast<long long>(s.layers), static_cast<long long>(s.dim),
                static_cast<long long>(s.seq), at::get_num_threads(), step_ms.size(), seconds,
                tokens_per_step * static_cast<double>(step_ms.size()) / seconds, median_ms,
                *std::min_element(step_ms.begin(), step_ms.end()),
                tokens_per_step * 1000.0 / median_ms, first_loss, last_loss, peakRssKib());
    if (s.phases) {
        const double n = static_cast<double>(step_ms.size());
        std::printf(",\"phase_ms\":{\"forward\":%.3f,\"backward\":%.3f,\"optimizer\":%.3f}",
                    forward_ms / n, backward_ms / n, optimizer_ms / n);
    }
    std::printf("}\n");
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    try {
        return run(parseSettings(argc, argv));
    } catch (const std::exception &error) {
        std::cerr << "gpt_benchmark: " << error.what() << "\n";
        return 2;
    }
}
