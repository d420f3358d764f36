#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/json_values.h"
#include "cli/local_ranks.h"

#include <headroom/project.h>
#include <headroom/session.h>
#include <headroom/units.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace headroom::cli {

namespace {

std::atomic<Session *> g_interruptible_session{nullptr};

extern "C" void stopOnSignal(int) {
    if (Session *session = g_interruptible_session.load()) {
        session->requestStopFromSignal();
    }
}

// Prints progress: JSON lines on stdout with --json, and human text on stderr always.
class ProgressPrinter final : public SessionObserver {
public:
    ProgressPrinter(Streams streams, bool json) : streams_(streams), json_(json) {}

    void onStep(const StepMetrics &m) override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (json_) {
            nlohmann::json line = {{"type", "step"},
                                   {"step", m.step},
                                   {"loss", finiteOrNull(m.loss)},
                                   {"lr", m.lr},
                                   {"micro_batch", m.micro_batch},
                                   {"accumulation", m.accumulation},
                                   {"tokens_per_s", m.tokens_per_s},
                                   {"samples_per_s", m.samples_per_s},
                                   {"padding_fraction", m.padding_fraction},
                                   {"mem_live", m.mem_live},
                                   {"mem_peak", m.mem_peak},
                                   {"mem_reserved", m.mem_reserved},
                                   {"mem_rss", m.mem_rss},
                                   {"loss_scale", m.loss_scale},
                                   {"skipped_steps", m.skipped_steps},
                                   {"grad_norm", finiteOrNull(m.grad_norm)},
                                   {"elapsed_s", m.elapsed_s},
                                   {"samples_digest", m.samples_digest}};
            if (m.moe) {
                line["moe"] = {{"aux_loss", finiteOrNull(m.moe->aux_loss)},
                               {"z_loss", finiteOrNull(m.moe->z_loss)},
                               {"dropped_fraction", m.moe->dropped_fraction},
                               {"expert_load", m.moe->expert_load}};
            }
            if (m.retrieval) {
                line["splade"] = {{"flops_q", m.retrieval->flops_q},
                                  {"flops_d", m.retrieval->flops_d},
                                  {"lambda_q", m.retrieval->lambda_q},
                                  {"lambda_d", m.retrieval->lambda_d},
                                  {"query_nonzeros", m.retrieval->query_nonzeros},
                                  {"passage_nonzeros", m.retrieval->passage_nonzeros}};
            }
            if (m.preference) {
                const PreferenceStepMetrics &p = *m.preference;
                line["chosen_logps"] = finiteOrNull(p.chosen_logps);
                line["rejected_logps"] = finiteOrNull(p.rejected_logps);
                line["chosen_rewards"] = finiteOrNull(p.chosen_rewards);
                line["rejected_rewards"] = finiteOrNull(p.rejected_rewards);
                line["reward_margin"] = finiteOrNull(p.reward_margin);
                line["reward_accuracy"] = finiteOrNull(p.reward_accuracy);
                if (std::isfinite(p.kl)) {
                    line["kl"] = p.kl; // kto
                }
            }
            if (m.grpo) {
                const GrpoStepMetrics &g = *m.grpo;
                line["reward_mean"] = finiteOrNull(g.reward_mean);
                line["reward_std"] = finiteOrNull(g.reward_std);
                line["frac_reward_zero_std"] = finiteOrNull(g.zero_std_fraction);
                line["completion_length"] = finiteOrNull(g.completion_length);
                line["kl"] = finiteOrNull(g.kl);
                line["clip_ratio"] = finiteOrNull(g.clip_ratio);
                nlohmann::json rewards = nlohmann::json::object();
                for (const auto &[name, mean] : g.reward_terms) {
                    rewards[name] = finiteOrNull(mean);
                }
                line["rewards"] = std::move(rewards);
            }
            if (!m.ranks.empty()) {
                line["ranks"] = nlohmann::json::parse(rankStepMetricsJson(m.ranks));
            }
            streams_.out << line.dump() << '\n' << std::flush;
        }
        if (m.step == 1 || m.step % every_ == 0 || m.step == target_) {
            char text[320];
            int used = std::snprintf(
                text, sizeof text, "step %6lld/%lld  loss %.4f  lr %.2e  %.0f %s/s  mem %s",
                static_cast<long long>(m.step), static_cast<long long>(target_), m.loss, m.lr,
                m.tokens_per_s > 0 ? m.tokens_per_s : m.samples_per_s,
                m.tokens_per_s > 0 ? "tok" : "samples", formatBytes(m.mem_live).c_str());
            if (m.retrieval) {
                std::snprintf(text + used, sizeof text - static_cast<std::size_t>(used),
                              "  FLOPS q %.3g d %.3g  non-zeros q %.0f d %.0f",
                              m.retrieval->flops_q, m.retrieval->flops_d,
                              m.retrieval->query_nonzeros, m.retrieval->passage_nonzeros);
            }
            if (m.preference) {
                std::snprintf(text + used, sizeof text - static_cast<std::size_t>(used),
                              "  reward margin %.4f  accuracy %.0f%%", m.preference->reward_margin,
                              100.0 * m.preference->reward_accuracy);
            }
            if (m.grpo) {
                std::snprintf(text + used, sizeof text - static_cast<std::size_t>(used),
                              "  reward %.3f ± %.3f  completion %.0f tok", m.grpo->reward_mean,
                              m.grpo->reward_std, m.grpo->completion_length);
            }
            streams_.err << text << '\n' << std::flush;
        }
    }

    void onEval(const EvalMetrics &m) override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (json_) {
            const nlohmann::json line = {{"type", "eval"},
                                         {"step", m.step},
                                         {"loss", finiteOrNull(m.loss)},
                                         {"accuracy", finiteOrNull(m.accuracy)},
                                         {"rmse", finiteOrNull(m.rmse)},
                                         {"r2", finiteOrNull(m.r2)},
                                         {"mrr_at_10", finiteOrNull(m.mrr_at_10)},
                                         {"recall_at_100", finiteOrNull(m.recall_at_100)},
                                         {"reward", finiteOrNull(m.reward)},
                                         {"examples", m.examples}};
            streams_.out << line.dump() << '\n' << std::flush;
        }
        char text[160];
        int used = std::snprintf(text, sizeof text, "  validation at step %lld: loss %.4f",
                                 static_cast<long long>(m.step), m.loss);
        if (std::isfinite(m.accuracy)) {
            used += std::snprintf(text + used, sizeof text - static_cast<std::size_t>(used),
                                  ", accuracy %.1f%%", 100.0 * m.accuracy);
        }
        if (std::isfinite(m.rmse)) {
            used += std::snprintf(text + used, sizeof text - static_cast<std::size_t>(used),
                                  ", RMSE %.4g", m.rmse);
        }
        if (std::isfinite(m.r2)) {
            used += std::snprintf(text + used, sizeof text - static_cast<std::size_t>(used),
                                  ", R² %.3f", m.r2);
        }
        if (std::isfinite(m.mrr_at_10)) {
            used += std::snprintf(text + used, sizeof text - static_cast<std::size_t>(used),
                                  ", MRR@10 %.4f, Recall@100 %.4f", m.mrr_at_10, m.recall_at_100);
        }
        if (std::isfinite(m.reward)) {
            std::snprintf(text + used, sizeof text - static_cast<std::size_t>(used),
                          ", mean reward %.4f", m.reward);
        }
        streams_.err << text << " (" << m.examples
                     << (std::isfinite(m.reward) ? " prompts)\n" : " examples)\n") << std::flush;
    }

    void onEvent(const EngineEvent &event) override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (json_) {
            nlohmann::json line = nlohmann::json::parse(event.details, nullptr, false);
            if (!line.is_object()) {
                line = nlohmann::json::object();
            }
            line["type"] = "event";
            line["kind"] = event.kind;
            line["step"] = event.step;
            line["message"] = event.message;
            streams_.out << line.dump() << '\n' << std::flush;
        }
        if (event.kind != "checkpoint" || verbose_checkpoints_) {
            streams_.err << "  " << event.kind << ": " << event.message << '\n' << std::flush;
        }
    }

    void onStateChanged(SessionState state, const std::string &message) override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (state == SessionState::Preparing || state == SessionState::Running) {
            if (!message.empty()) {
                streams_.err << message << '\n' << std::flush;
            }
        }
    }

    void onRunStarted(const RunInfo &info) override {
        std::lock_guard<std::mutex> lock(mutex_);
        target_ = info.target_steps;
        every_ = std::max<std::int64_t>(1, (info.stop_step - info.start_step) / 20);
        if (json_) {
            const nlohmann::json line = {{"type", "start"},
                                         {"run_id", info.run_id},
                                         {"resumed_from", info.resumed_from},
                                         {"start_step", info.start_step},
                                         {"stop_step", info.stop_step},
                                         {"target_steps", info.target_steps},
                                         {"device", info.device},
                                         {"model", info.model}};
            streams_.out << line.dump() << '\n' << std::flush;
        }
        streams_.err << "run " << info.run_id << " on " << info.device << ": steps "
                     << info.start_step + 1 << ".." << info.stop_step << " of " << info.target_steps
                     << '\n'
                     << std::flush;
    }

private:
    Streams streams_;
    bool json_;
    bool verbose_checkpoints_ = false;
    std::mutex mutex_;
    std::int64_t target_ = 0;
    std::int64_t every_ = 10;
};

// The same train command for each rank, without --nproc. The launcher waits for the ranks'
// own timeout (distributed.timeout_s) and a margin before it kills what is left.
template <typename Options> LocalRanksRequest localRanksRequest(const Options &options) {
    LocalRanksRequest request;
    request.ranks = options.nproc;
    request.arguments = {"train", options.request.project_path};
    if (options.steps > 0) {
        request.arguments.insert(request.arguments.end(),
                                 {"--steps", std::to_string(options.steps)});
    }
    if (options.request.resume) {
        request.arguments.push_back("--resume");
    }
    const std::string timeout_key = "distributed.timeout_s=";
    for (const std::string &assignment : options.request.overrides) {
        request.arguments.insert(request.arguments.end(), {"--set", assignment});
        if (assignment.rfind(timeout_key, 0) == 0) {
            try {
                request.grace =
                    std::chrono::seconds(std::stoll(assignment.substr(timeout_key.size())) + 30);
            } catch (const std::exception &) {
                // The ranks refuse the bad value themselves, naming the key.
            }
        }
    }
    if (options.json) {
        request.arguments.push_back("--json");
    }
    return request;
}

} // namespace

CommandRunner addTrainCommand(CLI::App &app, Streams streams) {
    CLI::App *command = app.add_subcommand("train", "Train, or continue a run with --resume");
    struct Options {
        SessionRequest request;
        std::int64_t steps = 0;
        int nproc = 1;
        bool json = false;
    };
    auto options = std::make_shared<Options>();
    command->add_option("PROJECT", options->request.project_path, "Project file")->required();
    command
        ->add_option("--steps", options->steps,
                     "Stop (with a checkpoint) after N optimizer steps of this session")
        ->check(CLI::PositiveNumber);
    command->add_flag("--resume", options->request.resume,
                      "Continue the latest run from its last checkpoint");
    command->add_option("--set", options->request.overrides, "KEY=VALUE for this run (repeatable)")
        ->allow_extra_args(false);
    command->add_flag("--json", options->json, "One JSON object per line on stdout");
    command
        ->add_option("--nproc", options->nproc,
                     "Train data-parallel on N local processes (c10d over 127.0.0.1)")
        ->check(CLI::Range(1, 256));

    return [streams, options]() {
        if (options->nproc > 1) {
            // A missing or damaged project is refused once, here, not by every rank.
            Project::openForReading(options->request.project_path);
            return runLocalRanks(localRanksRequest(*options), streams);
        }
        options->request.max_steps = options->steps;
        Session session(options->request);
        ProgressPrinter printer(streams, options->json);
        session.addObserver(&printer);

        g_interruptible_session.store(&session);
        auto previous_int = std::signal(SIGINT, stopOnSignal);
        auto previous_term = std::signal(SIGTERM, stopOnSignal);
        session.start();
        const RunResult result = session.wait();
        std::signal(SIGINT, previous_int);
        std::signal(SIGTERM, previous_term);
        g_interruptible_session.store(nullptr);

        if (options->json) {
            const nlohmann::json done = {
                {"type", "done"},
                {"run_id", result.run_id},
                {"status", toString(result.state)},
                {"step", result.last_step},
                {"target_steps", result.target_steps},
                {"final_loss", result.final_loss ? nlohmann::json(*result.final_loss) : nullptr},
                {"final_val_loss",
                 result.final_val_loss ? nlohmann::json(*result.final_val_loss) : nullptr},
                {"message", result.message}};
            streams.out << done.dump() << '\n' << std::flush;
        }
        switch (result.failure) {
        case FailureKind::None:
            // Ranks other than 0 record no run (rank 0 writes the project for all).
            streams.err << result.message;
            if (result.run_id > 0) {
                streams.err << " (run " << result.run_id << ")";
            }
            streams.err << '\n';
            return static_cast<int>(kExitSuccess);
        case FailureKind::BadInput:
            streams.err << "headroom-cli: " << result.message << '\n';
            return static_cast<int>(kExitBadInput);
        case FailureKind::CannotContinue:
            streams.err << "headroom-cli: the run could not continue: " << result.message << '\n';
            return static_cast<int>(kExitCannotContinue);
        case FailureKind::Internal:
            break;
        }
        streams.err << "headroom-cli: internal error: " << result.message << '\n';
        return static_cast<int>(kExitInternalError);
    };
}

} // namespace headroom::cli
