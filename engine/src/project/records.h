#pragma once

#include "project/database.h"

#include <headroom/metrics.h>
#include <headroom/project.h>

#include <cstdint>
#include <string>

// Rows <-> records. Real columns go through Statement::bindReal / real, so a NaN loss is stored
// as the text 'NaN' and reads back as NaN; NULL in a real column means "no value"
// (std::nullopt for optional fields, NaN otherwise).
namespace headroom::project {

// Writers: INSERT ... ON CONFLICT (run_id, step) DO UPDATE, so a replayed step overwrites.
extern const char *const kUpsertStepSql;
extern const char *const kUpsertEvaluationSql;
extern const char *const kInsertEventSql; // ignores an event already stored
// Exactly the row the matching bind function describes, if it is stored: same parameters.
extern const char *const kStoredStepSql;
extern const char *const kStoredEvaluationSql;
extern const char *const kStoredEventSql;
void bindStep(Statement &upsert, std::int64_t run_id, const StepMetrics &metrics);
void bindEvaluation(Statement &upsert, std::int64_t run_id, const EvalMetrics &metrics,
                    const std::string &time);
void bindEvent(Statement &insert, std::int64_t run_id, const EngineEvent &event,
               const std::string &time);

// Readers: the SELECT lists the columns in the order the matching read function expects.
extern const char *const kSelectStepsSql;       // ?1 = run id, ?2 = after this step
extern const char *const kSelectEvaluationsSql; // ?1 = run id, ?2 = after this step
extern const char *const kSelectEventsSql;      // ?1 = run id
extern const char *const kSelectRunsSql;        // all runs; append " WHERE id = ?1" for one
extern const char *const kSelectCheckpointsSql; // ?1 = run id, by step, oldest first
StepMetrics readStep(const Statement &row);
EvalRecord readEvaluation(const Statement &row);
EventRecord readEvent(const Statement &row);
RunRecord readRun(const Statement &row);
// id, recorded_at, source, run_id, device, recipe, config_json, micro_batch, predicted_peak,
// measured_peak
MemoryHistoryRecord readMemoryHistory(const Statement &row);
CheckpointRecord readCheckpoint(const Statement &row);

} // namespace headroom::project
