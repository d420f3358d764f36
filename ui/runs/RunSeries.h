#pragma once

#include <headroom/metrics.h>
#include <headroom/project.h>

#include <QDateTime>
#include <QString>
#include <QVector>

#include <cstdint>
#include <optional>

namespace headroom::ui {

// An event as the Log and the plots show it: arrival time when it came live, none when it
// was read back from the project (the project does not store event times).
struct RunEvent {
    std::int64_t run_id = 0;
    EngineEvent event;
    QDateTime received; // local time; from the project for events read back
};

// An event read back from the project, with the time the engine stored (UTC) in local time.
RunEvent storedRunEvent(const EventRecord &record);

// The curves of one run, kept as columns ready for QCustomPlot.
struct RunSeries {
    std::int64_t run_id = 0;
    QVector<double> steps;
    QVector<double> loss;
    QVector<double> mem_live;
    QVector<double> mem_peak;
    QVector<double> mem_reserved; // device allocator cache; 0 on CPU
    QVector<double> throughput;   // tokens/s, or samples/s where a recipe has no tokens
    QVector<double> elapsed_s;
    QVector<double> eval_steps;
    QVector<double> eval_loss;
    QVector<RunEvent> events;
    bool throughput_in_tokens = true;
    // Mixture-of-Experts routing, for the steps that reported it (empty for dense runs).
    QVector<double> moe_steps;
    QVector<double> moe_aux_loss;
    QVector<double> moe_z_loss;
    QVector<double> moe_dropped; // fraction of assignments over capacity
    // Per MoE step, moe_blocks * moe_experts shares, block by block.
    QVector<QVector<double>> moe_load;
    int moe_blocks = 0;
    int moe_experts = 0;
    // SPLADE, for the steps that reported it (empty for other recipes): the unweighted FLOPS
    // regularizers and the mean non-zero vocabulary weights per query and per passage.
    QVector<double> retrieval_steps;
    QVector<double> flops_q;
    QVector<double> flops_d;
    QVector<double> query_nonzeros;
    QVector<double> passage_nonzeros;
    // The validations that ranked passages (MRR@10, Recall@100 are NaN for other recipes).
    QVector<double> ranking_eval_steps;
    QVector<double> mrr_at_10;
    QVector<double> recall_at_100;
    // Preference objectives, for the steps that reported them (empty for other runs): the mean
    // rewards of the chosen and rejected completions, their margin and the share of pairs ranked
    // right.
    QVector<double> preference_steps;
    QVector<double> chosen_rewards;
    QVector<double> rejected_rewards;
    QVector<double> reward_margin;
    QVector<double> reward_accuracy;
    // Online RL (grpo), for the steps that reported it: the mean reward, the mean spread of the
    // rewards within groups, the mean completion length in tokens.
    QVector<double> grpo_steps;
    QVector<double> grpo_reward;
    QVector<double> grpo_reward_std;
    QVector<double> grpo_completion_length;
    // Distributed runs, by step and rank: each rank's peak memory (bytes) and the throughput
    // of its share (samples/s). Empty for single-process runs.
    QVector<double> rank_steps;
    QVector<QVector<double>> rank_peak;
    QVector<QVector<double>> rank_throughput;
    int rank_count = 0;

    void append(const StepMetrics &metrics);
    void append(const EvalMetrics &metrics);
    void appendMoe(std::int64_t step, const MoeStepMetrics &moe);
    void appendRetrieval(std::int64_t step, const RetrievalStepMetrics &retrieval);
    void clear();
    std::int64_t lastStep() const { return steps.isEmpty() ? 0 : std::int64_t(steps.last()); }
    // Live memory at the step, or the nearest earlier one; 0 when there is none.
    double liveMemoryAt(double step) const;
    double meanThroughput() const;
    bool hasMoe() const { return !moe_steps.isEmpty(); }
    // Every SPLADE step reports its sparsity, so the steps tell the recipe (not the
    // validations: a default EvalMetrics has finite ranking figures).
    bool hasRetrieval() const { return !retrieval_steps.isEmpty(); }
    bool hasRanks() const { return !rank_steps.isEmpty(); }
    bool hasPreference() const { return !preference_steps.isEmpty(); }
    bool hasGrpo() const { return !grpo_steps.isEmpty(); }
};

// Reads a run's metrics, evaluations and events from the project; throws ProjectError.
RunSeries loadRunSeries(const Project &project, std::int64_t run_id);

// Whether an event kind is one of the memory events the plots mark.
bool isMemoryEventKind(const std::string &kind);

} // namespace headroom::ui
