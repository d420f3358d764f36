#include "runs/RunSeries.h"

#include <algorithm>
#include <cmath>

namespace headroom::ui {

void RunSeries::append(const StepMetrics &metrics) {
    steps.push_back(double(metrics.step));
    loss.push_back(metrics.loss);
    mem_live.push_back(double(metrics.mem_live));
    mem_peak.push_back(double(metrics.mem_peak));
    mem_reserved.push_back(double(metrics.mem_reserved));
    if (metrics.tokens_per_s <= 0 && metrics.samples_per_s > 0) {
        throughput_in_tokens = false;
    }
    throughput.push_back(throughput_in_tokens ? metrics.tokens_per_s : metrics.samples_per_s);
    elapsed_s.push_back(metrics.elapsed_s);
    if (metrics.moe) {
        appendMoe(metrics.step, *metrics.moe);
    }
    if (metrics.retrieval) {
        appendRetrieval(metrics.step, *metrics.retrieval);
    }
    if (metrics.preference) {
        preference_steps.push_back(double(metrics.step));
        chosen_rewards.push_back(metrics.preference->chosen_rewards);
        rejected_rewards.push_back(metrics.preference->rejected_rewards);
        reward_margin.push_back(metrics.preference->reward_margin);
        reward_accuracy.push_back(metrics.preference->reward_accuracy);
    }
    if (metrics.grpo) {
        grpo_steps.push_back(double(metrics.step));
        grpo_reward.push_back(metrics.grpo->reward_mean);
        grpo_reward_std.push_back(metrics.grpo->reward_std);
        grpo_completion_length.push_back(metrics.grpo->completion_length);
    }
    if (!metrics.ranks.empty()) {
        // The first step's number of ranks holds for the run (a resumed run with another
        // number starts a new run record).
        if (rank_steps.isEmpty()) {
            rank_count = int(metrics.ranks.size());
        }
        QVector<double> peak(rank_count, 0.0);
        QVector<double> rate(rank_count, 0.0);
        for (const RankStepMetrics &rank : metrics.ranks) {
            if (rank.rank >= 0 && rank.rank < rank_count) {
                peak[rank.rank] = double(rank.mem_peak);
                rate[rank.rank] = rank.samples_per_s;
            }
        }
        rank_steps.push_back(double(metrics.step));
        rank_peak.push_back(peak);
        rank_throughput.push_back(rate);
    }
}

void RunSeries::appendRetrieval(std::int64_t step, const RetrievalStepMetrics &retrieval) {
    retrieval_steps.push_back(double(step));
    flops_q.push_back(retrieval.flops_q);
    flops_d.push_back(retrieval.flops_d);
    query_nonzeros.push_back(retrieval.query_nonzeros);
    passage_nonzeros.push_back(retrieval.passage_nonzeros);
}

void RunSeries::appendMoe(std::int64_t step, const MoeStepMetrics &moe) {
    if (moe_steps.isEmpty() && !moe.expert_load.empty()) {
        moe_blocks = int(moe.expert_load.size());
        moe_experts = int(moe.expert_load.front().size());
    }
    moe_steps.push_back(double(step));
    moe_aux_loss.push_back(moe.aux_loss);
    moe_z_loss.push_back(moe.z_loss);
    moe_dropped.push_back(moe.dropped_fraction);
    // The shape of the first step holds for the run; a row that differs is cut or padded.
    QVector<double> load(moe_blocks * moe_experts, 0.0);
    for (int block = 0; block < moe_blocks && block < int(moe.expert_load.size()); ++block) {
        const std::vector<double> &row = moe.expert_load[std::size_t(block)];
        for (int expert = 0; expert < moe_experts && expert < int(row.size()); ++expert) {
            load[block * moe_experts + expert] = row[std::size_t(expert)];
        }
    }
    moe_load.push_back(load);
}

void RunSeries::append(const EvalMetrics &metrics) {
    eval_steps.push_back(double(metrics.step));
    eval_loss.push_back(metrics.loss);
    if (!std::isnan(metrics.mrr_at_10) || !std::isnan(metrics.recall_at_100)) {
        ranking_eval_steps.push_back(double(metrics.step));
        mrr_at_10.push_back(metrics.mrr_at_10);
        recall_at_100.push_back(metrics.recall_at_100);
    }
}

void RunSeries::clear() {
    const std::int64_t id = run_id;
    *this = RunSeries{};
    run_id = id;
}

double RunSeries::liveMemoryAt(double step) const {
    const auto found = std::upper_bound(steps.begin(), steps.end(), step);
    if (found == steps.begin()) {
        return mem_live.isEmpty() ? 0 : mem_live.first();
    }
    return mem_live.at(int(std::distance(steps.begin(), found)) - 1);
}

double RunSeries::meanThroughput() const {
    if (throughput.isEmpty()) {
        return 0;
    }
    double sum = 0;
    for (double value : throughput) {
        sum += value;
    }
    return sum / throughput.size();
}

RunSeries loadRunSeries(const Project &project, std::int64_t run_id) {
    RunSeries series;
    series.run_id = run_id;
    const std::vector<StepMetrics> metrics = project.metrics(run_id);
    series.steps.reserve(int(metrics.size()));
    for (const StepMetrics &step : metrics) {
        series.append(step);
    }
    for (const EvalRecord &eval : project.evaluations(run_id)) {
        series.append(eval.metrics);
    }
    for (const EventRecord &record : project.events(run_id)) {
        series.events.push_back(storedRunEvent(record));
    }
    return series;
}

RunEvent storedRunEvent(const EventRecord &record) {
    QDateTime time =
        QDateTime::fromString(QString::fromStdString(record.recorded_at), Qt::ISODateWithMs);
    if (!time.isValid()) {
        time = QDateTime::fromString(QString::fromStdString(record.recorded_at), Qt::ISODate);
    }
    return RunEvent{record.run_id, record.event, time.isValid() ? time.toLocalTime() : time};
}

bool isMemoryEventKind(const std::string &kind) {
    return kind == "oom_recovered" || kind == "ladder" || kind == "eval_oom_backoff" ||
           kind == "memory_growing" || kind == "out_of_memory" || kind == "device_fallback";
}

} // namespace headroom::ui
