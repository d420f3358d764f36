#include "project/records.h"

#include <array>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

namespace headroom {

namespace {

constexpr std::array<std::pair<RunStatus, const char *>, 6> kStatusNames = {{
    {RunStatus::Running, "running"},
    {RunStatus::Paused, "paused"},
    {RunStatus::Finished, "finished"},
    {RunStatus::Stopped, "stopped"},
    {RunStatus::Failed, "failed"},
    {RunStatus::Interrupted, "interrupted"},
}};

} // namespace

std::string toString(RunStatus status) {
    for (const auto &[value, name] : kStatusNames) {
        if (value == status) {
            return name;
        }
    }
    return "unknown";
}

RunStatus runStatusFromString(const std::string &text) {
    for (const auto &[value, name] : kStatusNames) {
        if (text == name) {
            return value;
        }
    }
    throw ProjectError("unknown run status '" + text +
                       "' (expected running, paused, finished, stopped, failed or interrupted)");
}

std::string rankStepMetricsJson(const std::vector<RankStepMetrics> &ranks) {
    nlohmann::json array = nlohmann::json::array();
    for (const RankStepMetrics &rank : ranks) {
        array.push_back({{"rank", rank.rank},
                         {"mem_peak", rank.mem_peak},
                         {"samples_per_s", rank.samples_per_s}});
    }
    return array.dump();
}

} // namespace headroom

namespace headroom::project {

namespace {

std::int64_t signedBytes(std::uint64_t bytes) {
    return static_cast<std::int64_t>(bytes);
}
std::uint64_t unsignedBytes(std::int64_t bytes) {
    return bytes < 0 ? 0 : static_cast<std::uint64_t>(bytes);
}

// [[0.25, 0.75], ...]; anything else (a damaged row) reads as no load rather than failing the
// whole read.
std::vector<std::vector<double>> expertLoadFromJson(const std::string &text) {
    std::vector<std::vector<double>> load;
    struct TooDeep {};
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(
            text,
            [](int depth, nlohmann::json::parse_event_t, nlohmann::json &) {
                if (depth > 2) {
                    throw TooDeep{};
                }
                return true;
            },
            false);
    } catch (const TooDeep &) {
        return load;
    }
    if (!document.is_array()) {
        return load;
    }
    for (const nlohmann::json &block : document) {
        if (!block.is_array()) {
            return {};
        }
        std::vector<double> shares;
        for (const nlohmann::json &share : block) {
            if (!share.is_number()) {
                return {};
            }
            shares.push_back(share.get<double>());
        }
        load.push_back(std::move(shares));
    }
    return load;
}

// As expertLoadFromJson: a damaged row reads as no figures.
std::vector<RankStepMetrics> ranksFromJson(const std::string &text) {
    const nlohmann::json document = nlohmann::json::parse(text, nullptr, false);
    std::vector<RankStepMetrics> ranks;
    if (!document.is_array()) {
        return ranks;
    }
    for (const nlohmann::json &entry : document) {
        if (!entry.is_object() || !entry.value("rank", nlohmann::json()).is_number_integer()) {
            return {};
        }
        RankStepMetrics rank;
        rank.rank = entry["rank"].get<int>();
        rank.mem_peak = entry.value("mem_peak", std::uint64_t{0});
        rank.samples_per_s = entry.value("samples_per_s", 0.0);
        ranks.push_back(rank);
    }
    return ranks;
}

constexpr const char *kPreferenceFields[] = {"chosen_logps",
                                             "rejected_logps",
                                             "chosen_rewards",
                                             "rejected_rewards",
                                             "reward_margin",
                                             "reward_accuracy",
                                             "kl"};

std::string preferenceJson(PreferenceStepMetrics m) {
    nlohmann::json object = nlohmann::json::object();
    const std::array<double *, 7> figures = m.figures();
    for (std::size_t i = 0; i < figures.size(); ++i) {
        object[kPreferenceFields[i]] = *figures[i]; // NaN is written as null
    }
    return object.dump();
}

// A damaged object reads as figures of 0 rather than failing the whole run's history.
PreferenceStepMetrics preferenceFromJson(const std::string &text) {
    PreferenceStepMetrics m;
    const nlohmann::json object = nlohmann::json::parse(text, nullptr, false);
    if (!object.is_object()) {
        return m;
    }
    const std::array<double *, 7> figures = m.figures();
    for (std::size_t i = 0; i < figures.size(); ++i) {
        const auto value = object.find(kPreferenceFields[i]);
        if (value != object.end()) {
            *figures[i] = value->is_number() ? value->get<double>()
                                             : std::numeric_limits<double>::quiet_NaN();
        }
    }
    return m;
}

// {"reward_mean": …, …, "reward_terms": {"exact:answer": 0.4, …}}; NaN is written as null.
std::string grpoJson(const GrpoStepMetrics &m) {
    nlohmann::json object = {{"reward_mean", m.reward_mean},
                             {"reward_std", m.reward_std},
                             {"zero_std_fraction", m.zero_std_fraction},
                             {"completion_length", m.completion_length},
                             {"kl", m.kl},
                             {"clip_ratio", m.clip_ratio}};
    nlohmann::json terms = nlohmann::json::array();
    for (const auto &[name, value] : m.reward_terms) {
        terms.push_back({{"name", name}, {"mean", value}});
    }
    object["reward_terms"] = std::move(terms);
    return object.dump();
}

GrpoStepMetrics grpoFromJson(const std::string &text) {
    GrpoStepMetrics m;
    const nlohmann::json object = nlohmann::json::parse(text, nullptr, false);
    if (!object.is_object()) {
        return m;
    }
    const auto number = [&](const char *key) {
        const auto value = object.find(key);
        return value != object.end() && value->is_number()
                   ? value->get<double>()
                   : std::numeric_limits<double>::quiet_NaN();
    };
    m.reward_mean = number("reward_mean");
    m.reward_std = number("reward_std");
    m.zero_std_fraction = number("zero_std_fraction");
    m.completion_length = number("completion_length");
    m.kl = number("kl");
    m.clip_ratio = number("clip_ratio");
    const auto terms = object.find("reward_terms");
    if (terms != object.end() && terms->is_array()) {
        for (const nlohmann::json &term : *terms) {
            if (term.is_object() && term.value("name", nlohmann::json()).is_string()) {
                const nlohmann::json mean = term.value("mean", nlohmann::json());
                m.reward_terms.emplace_back(term["name"].get<std::string>(),
                                            mean.is_number()
                                                ? mean.get<double>()
                                                : std::numeric_limits<double>::quiet_NaN());
            }
        }
    }
    return m;
}

} // namespace

const char *const kUpsertStepSql = R"sql(
INSERT INTO metrics (run_id, step, loss, lr, grad_norm, micro_batch, accumulation, tokens_per_s,
                     samples_per_s, mem_live, mem_peak, elapsed_s, samples_digest,
                     mem_reserved, mem_rss, loss_scale, skipped_steps, moe_aux_loss, moe_z_loss,
                     moe_dropped_fraction, moe_expert_load, splade_flops_q, splade_flops_d,
                     splade_query_nonzeros, splade_passage_nonzeros, ranks, padding_fraction,
                     preference, grpo)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20,
        ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29)
ON CONFLICT (run_id, step) DO UPDATE SET
    loss = excluded.loss, lr = excluded.lr, grad_norm = excluded.grad_norm,
    micro_batch = excluded.micro_batch, accumulation = excluded.accumulation,
    tokens_per_s = excluded.tokens_per_s, samples_per_s = excluded.samples_per_s,
    mem_live = excluded.mem_live, mem_peak = excluded.mem_peak, elapsed_s = excluded.elapsed_s,
    samples_digest = excluded.samples_digest, mem_reserved = excluded.mem_reserved,
    mem_rss = excluded.mem_rss, loss_scale = excluded.loss_scale,
    skipped_steps = excluded.skipped_steps, moe_aux_loss = excluded.moe_aux_loss,
    moe_z_loss = excluded.moe_z_loss, moe_dropped_fraction = excluded.moe_dropped_fraction,
    moe_expert_load = excluded.moe_expert_load, splade_flops_q = excluded.splade_flops_q,
    splade_flops_d = excluded.splade_flops_d,
    splade_query_nonzeros = excluded.splade_query_nonzeros,
    splade_passage_nonzeros = excluded.splade_passage_nonzeros, ranks = excluded.ranks,
    padding_fraction = excluded.padding_fraction, preference = excluded.preference,
    grpo = excluded.grpo
)sql";

const char *const kUpsertEvaluationSql = R"sql(
INSERT INTO evaluations (run_id, step, loss, accuracy, rmse, examples, time, r2, mrr_at_10,
                         recall_at_100, reward)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
ON CONFLICT (run_id, step) DO UPDATE SET
    loss = excluded.loss, accuracy = excluded.accuracy, rmse = excluded.rmse,
    examples = excluded.examples, time = excluded.time, r2 = excluded.r2,
    mrr_at_10 = excluded.mrr_at_10, recall_at_100 = excluded.recall_at_100,
    reward = excluded.reward
)sql";

// The event's own values are its identity: writing it again (a retry after an error reported
// once the commit had already happened) adds nothing.
const char *const kInsertEventSql = R"sql(
INSERT INTO events (run_id, step, kind, message, details, time)
SELECT ?1, ?2, ?3, ?4, ?5, ?6
WHERE NOT EXISTS (SELECT 1 FROM events WHERE run_id = ?1 AND step = ?2 AND kind = ?3
                  AND message = ?4 AND details = ?5 AND time = ?6)
)sql";

const char *const kStoredStepSql = R"sql(
SELECT 1 FROM metrics
WHERE run_id = ?1 AND step = ?2 AND loss IS ?3 AND lr IS ?4 AND grad_norm IS ?5 AND
  micro_batch IS ?6 AND accumulation IS ?7 AND tokens_per_s IS ?8 AND samples_per_s IS ?9 AND
  mem_live IS ?10 AND mem_peak IS ?11 AND elapsed_s IS ?12 AND samples_digest IS ?13 AND
  mem_reserved IS ?14 AND mem_rss IS ?15 AND loss_scale IS ?16 AND skipped_steps IS ?17 AND
  moe_aux_loss IS ?18 AND moe_z_loss IS ?19 AND moe_dropped_fraction IS ?20 AND
  moe_expert_load IS ?21 AND splade_flops_q IS ?22 AND splade_flops_d IS ?23 AND
  splade_query_nonzeros IS ?24 AND splade_passage_nonzeros IS ?25 AND ranks IS ?26 AND
  padding_fraction IS ?27 AND preference IS ?28 AND grpo IS ?29
)sql";

const char *const kStoredEvaluationSql = R"sql(
SELECT 1 FROM evaluations
WHERE run_id = ?1 AND step = ?2 AND loss IS ?3 AND accuracy IS ?4 AND rmse IS ?5 AND
  examples IS ?6 AND time IS ?7 AND r2 IS ?8 AND mrr_at_10 IS ?9 AND recall_at_100 IS ?10 AND
  reward IS ?11
)sql";

const char *const kStoredEventSql = R"sql(
SELECT 1 FROM events
WHERE run_id = ?1 AND step = ?2 AND kind = ?3 AND message = ?4 AND details = ?5 AND time = ?6
)sql";

void bindStep(Statement &upsert, std::int64_t run_id, const StepMetrics &m) {
    upsert.bind(1, run_id)
        .bind(2, m.step)
        .bindReal(3, m.loss)
        .bindReal(4, m.lr)
        .bindReal(5, m.grad_norm)
        .bind(6, std::int64_t{m.micro_batch})
        .bind(7, std::int64_t{m.accumulation})
        .bindReal(8, m.tokens_per_s)
        .bindReal(9, m.samples_per_s)
        .bind(10, signedBytes(m.mem_live))
        .bind(11, signedBytes(m.mem_peak))
        .bindReal(12, m.elapsed_s)
        .bind(13, m.samples_digest)
        .bind(14, signedBytes(m.mem_reserved))
        .bind(15, signedBytes(m.mem_rss))
        .bindReal(16, m.loss_scale)
        .bind(17, m.skipped_steps);
    if (m.moe) {
        upsert.bindReal(18, m.moe->aux_loss)
            .bindReal(19, m.moe->z_loss)
            .bindReal(20, m.moe->dropped_fraction)
            .bind(21, nlohmann::json(m.moe->expert_load).dump());
    } else {
        upsert.bindNull(18).bindNull(19).bindNull(20).bindNull(21);
    }
    if (m.retrieval) {
        upsert.bindReal(22, m.retrieval->flops_q)
            .bindReal(23, m.retrieval->flops_d)
            .bindReal(24, m.retrieval->query_nonzeros)
            .bindReal(25, m.retrieval->passage_nonzeros);
    } else {
        upsert.bindNull(22).bindNull(23).bindNull(24).bindNull(25);
    }
    if (m.ranks.empty()) {
        upsert.bindNull(26);
    } else {
        upsert.bind(26, rankStepMetricsJson(m.ranks));
    }
    upsert.bindReal(27, m.padding_fraction);
    if (m.preference) {
        upsert.bind(28, preferenceJson(*m.preference));
    } else {
        upsert.bindNull(28);
    }
    if (m.grpo) {
        upsert.bind(29, grpoJson(*m.grpo));
    } else {
        upsert.bindNull(29);
    }
}

void bindEvaluation(Statement &upsert, std::int64_t run_id, const EvalMetrics &m,
                    const std::string &time) {
    upsert.bind(1, run_id)
        .bind(2, m.step)
        .bindReal(3, m.loss)
        .bindReal(4, m.accuracy)
        .bindReal(5, m.rmse)
        .bind(6, m.examples)
        .bind(7, time)
        .bindReal(8, m.r2)
        .bindReal(9, m.mrr_at_10)
        .bindReal(10, m.recall_at_100)
        .bindReal(11, m.reward);
}

void bindEvent(Statement &insert, std::int64_t run_id, const EngineEvent &event,
               const std::string &time) {
    insert.bind(1, run_id)
        .bind(2, event.step)
        .bind(3, event.kind)
        .bind(4, event.message)
        .bind(5, event.details)
        .bind(6, time);
}

const char *const kSelectStepsSql = R"sql(
SELECT step, loss, lr, grad_norm, micro_batch, accumulation, tokens_per_s, samples_per_s,
       mem_live, mem_peak, elapsed_s, samples_digest, mem_reserved, mem_rss, loss_scale,
       skipped_steps, moe_aux_loss, moe_z_loss, moe_dropped_fraction, moe_expert_load,
       splade_flops_q, splade_flops_d, splade_query_nonzeros, splade_passage_nonzeros, ranks,
       padding_fraction, preference, grpo
FROM metrics WHERE run_id = ?1 AND step > ?2 ORDER BY step
)sql";

const char *const kSelectEvaluationsSql = R"sql(
SELECT run_id, step, loss, accuracy, rmse, examples, r2, mrr_at_10, recall_at_100, reward
FROM evaluations WHERE run_id = ?1 AND step > ?2 ORDER BY step
)sql";

const char *const kSelectEventsSql = R"sql(
SELECT run_id, step, kind, message, details, time FROM events WHERE run_id = ?1 ORDER BY step, id
)sql";

const char *const kSelectRunsSql = R"sql(
SELECT id, status, config_json, device, started_at, ended_at, resumed_from, last_step,
       target_steps, final_loss, final_val_loss, peak_bytes, oom_recoveries, message, summary_json
FROM runs
)sql";

const char *const kSelectCheckpointsSql = R"sql(
SELECT id, run_id, step, path, sha256, bytes, created_at
FROM checkpoints WHERE run_id = ?1 ORDER BY step, id
)sql";

StepMetrics readStep(const Statement &row) {
    StepMetrics m;
    m.step = row.integer(0);
    m.loss = row.real(1);
    m.lr = row.real(2);
    m.grad_norm = row.real(3);
    m.micro_batch = static_cast<int>(row.integer(4));
    m.accumulation = static_cast<int>(row.integer(5));
    m.tokens_per_s = row.real(6);
    m.samples_per_s = row.real(7);
    m.mem_live = unsignedBytes(row.integer(8));
    m.mem_peak = unsignedBytes(row.integer(9));
    m.elapsed_s = row.real(10);
    m.samples_digest = row.text(11);
    m.mem_reserved = unsignedBytes(row.integer(12));
    m.mem_rss = unsignedBytes(row.integer(13));
    m.loss_scale = row.real(14);
    m.skipped_steps = row.integer(15);
    if (!row.isNull(16)) {
        MoeStepMetrics moe;
        moe.aux_loss = row.real(16);
        moe.z_loss = row.real(17);
        moe.dropped_fraction = row.real(18);
        moe.expert_load = expertLoadFromJson(row.isNull(19) ? std::string() : row.text(19));
        m.moe = std::move(moe);
    }
    if (!row.isNull(20)) {
        RetrievalStepMetrics retrieval;
        retrieval.flops_q = row.real(20);
        retrieval.flops_d = row.real(21);
        retrieval.query_nonzeros = row.real(22);
        retrieval.passage_nonzeros = row.real(23);
        m.retrieval = retrieval;
    }
    if (!row.isNull(24)) {
        m.ranks = ranksFromJson(row.text(24));
    }
    m.padding_fraction = row.isNull(25) ? 0 : row.real(25);
    if (!row.isNull(26)) {
        m.preference = preferenceFromJson(row.text(26));
    }
    if (!row.isNull(27)) {
        m.grpo = grpoFromJson(row.text(27));
    }
    return m;
}

EvalRecord readEvaluation(const Statement &row) {
    EvalRecord record;
    record.run_id = row.integer(0);
    record.metrics.step = row.integer(1);
    record.metrics.loss = row.real(2);
    record.metrics.accuracy = row.real(3);
    record.metrics.rmse = row.real(4);
    record.metrics.examples = row.integer(5);
    record.metrics.r2 = row.real(6);
    record.metrics.mrr_at_10 = row.real(7);
    record.metrics.recall_at_100 = row.real(8);
    record.metrics.reward = row.real(9);
    return record;
}

EventRecord readEvent(const Statement &row) {
    EventRecord record;
    record.run_id = row.integer(0);
    record.event.step = row.integer(1);
    record.event.kind = row.text(2);
    record.event.message = row.text(3);
    record.event.details = row.text(4);
    record.recorded_at = row.text(5);
    return record;
}

MemoryHistoryRecord readMemoryHistory(const Statement &row) {
    MemoryHistoryRecord record;
    record.id = row.integer(0);
    record.recorded_at = row.text(1);
    record.source = row.text(2);
    record.run_id = row.isNull(3) ? 0 : row.integer(3);
    record.device = row.text(4);
    record.recipe = row.text(5);
    record.config_json = row.text(6);
    record.micro_batch = row.integer(7);
    record.predicted_peak = unsignedBytes(row.integer(8));
    record.measured_peak = unsignedBytes(row.integer(9));
    return record;
}

RunRecord readRun(const Statement &row) {
    RunRecord run;
    run.id = row.integer(0);
    run.status = runStatusFromString(row.text(1));
    run.config_json = row.text(2);
    run.device = row.text(3);
    run.started_at = row.text(4);
    run.ended_at = row.text(5);
    run.resumed_from = row.isNull(6) ? 0 : row.integer(6);
    run.last_step = row.integer(7);
    run.target_steps = row.integer(8);
    run.final_loss = row.optionalReal(9);
    run.final_val_loss = row.optionalReal(10);
    run.peak_bytes = unsignedBytes(row.integer(11));
    run.oom_recoveries = row.integer(12);
    run.message = row.text(13);
    run.summary_json = row.text(14);
    return run;
}

CheckpointRecord readCheckpoint(const Statement &row) {
    CheckpointRecord record;
    record.id = row.integer(0);
    record.run_id = row.integer(1);
    record.step = row.integer(2);
    record.path = row.text(3);
    record.sha256 = row.text(4);
    record.bytes = unsignedBytes(row.integer(5));
    record.created_at = row.text(6);
    return record;
}

} // namespace headroom::project
