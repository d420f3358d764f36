#pragma once

#include "data/data_spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::data {

struct NumericColumn {
    std::string name;
    double mean = 0;   // over the training split, missing values excluded
    double stddev = 1; // 1 when the column is constant
};

struct CategoricalColumn {
    std::string name;
    std::vector<std::string> categories; // index + 1 is the category id; 0 is unknown/missing
};

// Column roles and statistics of a CSV data set, computed in one streaming pass over the
// training split. Serialized into the run so a resume or an export uses the same encoding.
struct TabularSchema {
    std::vector<NumericColumn> numeric;
    std::vector<CategoricalColumn> categorical;
    std::string target;
    bool classification = true;
    std::vector<std::string> classes; // classification: class index -> label
    // classification: training rows per class (parallel to classes); empty in schemas stored
    // before the counts were kept.
    std::vector<std::int64_t> class_counts;
    double target_mean = 0; // regression: targets are standardized
    double target_stddev = 1;
    std::int64_t train_rows = 0;
    std::int64_t validation_rows = 0;
    std::string task_reason; // one line: why this target/task was chosen ("inferred: ...")

    std::string toJson() const;
    static TabularSchema fromJson(const std::string &json); // throws std::runtime_error
};

// Infers column types (numeric when every non-empty value parses as a number), the target
// (spec.target or the last column) and the task (spec.task, or inferred: a non-numeric target
// or an integer target with at most 20 distinct values is classification). Throws DataError.
TabularSchema inferTabularSchema(const DataSpec &spec);

} // namespace headroom::data
