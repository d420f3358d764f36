// inferTabularSchema: one streaming pass over a CSV file deciding column roles and statistics.
#include "data/data_error.h"
#include "data/number_parse.h"
#include "data/record_reader.h"
#include "data/split.h"
#include "data/tabular_schema.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace headroom::data {
namespace {

constexpr std::size_t kMaxCategories = 1000;
constexpr std::size_t kMaxClassesForIntegerTarget = 20;

// Welford's running mean and variance.
struct RunningMoments {
    std::int64_t count = 0;
    double mean = 0;
    double m2 = 0;

    void add(double value) {
        ++count;
        const double delta = value - mean;
        mean += delta / static_cast<double>(count);
        m2 += delta * (value - mean);
    }
    double stddev() const {
        if (count < 2) {
            return 1.0;
        }
        const double deviation = std::sqrt(m2 / static_cast<double>(count));
        return deviation > 1e-12 ? deviation : 1.0;
    }
};

struct ColumnStats {
    bool numeric = true;              // every non-missing value (both splits) parsed as a number
    RunningMoments moments;           // numeric values of the training split
    std::set<std::string> categories; // training split, at most kMaxCategories
};

struct TargetStats {
    bool numeric = true;
    bool integer = true;
    std::int64_t first_text_line = 0; // first line whose target is not a number
    std::string first_text;
    std::map<std::string, double> labels;             // both splits; at most kMaxCategories + 1
    std::map<std::string, std::int64_t> train_counts; // rows per label in the training split
    RunningMoments moments;                           // training split
};

std::vector<std::string> sortedLabels(const TargetStats &target) {
    std::vector<std::string> labels;
    for (const auto &entry : target.labels) {
        labels.push_back(entry.first);
    }
    if (target.numeric) {
        std::stable_sort(labels.begin(), labels.end(),
                         [&](const std::string &a, const std::string &b) {
                             return target.labels.at(a) < target.labels.at(b);
                         });
    }
    return labels;
}

std::string inQuotes(const std::string &name) {
    return "'" + name + "'";
}

// Decides classification vs regression; fills classes or target statistics and the reason.
void decideTask(const DataSpec &spec, const TargetStats &target, const std::string &target_note,
                TabularSchema &schema) {
    const std::size_t distinct = target.labels.size();
    const std::string distinct_text = distinct > kMaxCategories
                                          ? "more than " + std::to_string(kMaxCategories)
                                          : std::to_string(distinct);
    std::string reason;
    if (spec.task == "classification") {
        schema.classification = true;
        reason = "task set to classification";
    } else if (spec.task == "regression") {
        if (!target.numeric) {
            throw DataError(spec.path, target.first_text_line,
                            "task=regression needs a numeric target, but " +
                                inQuotes(schema.target) + " holds '" + target.first_text + "'");
        }
        schema.classification = false;
        reason = "task set to regression";
    } else if (spec.task == "auto") {
        if (!target.numeric) {
            schema.classification = true;
            reason = "inferred: target is not numeric -> classification";
        } else if (target.integer && distinct <= kMaxClassesForIntegerTarget) {
            schema.classification = true;
            reason = "inferred: target holds " + distinct_text +
                     " distinct integers (<= " + std::to_string(kMaxClassesForIntegerTarget) +
                     ") -> classification";
        } else {
            schema.classification = false;
            reason = std::string("inferred: target is numeric with ") + distinct_text +
                     " distinct " + (target.integer ? "integer " : "") + "values -> regression";
        }
    } else {
        throw DataError(spec.path, 0,
                        "unknown task '" + spec.task +
                            "' (accepted: auto, classification, "
                            "regression)");
    }
    if (schema.classification) {
        if (distinct > kMaxCategories) {
            throw DataError(spec.path, 0,
                            "the target " + inQuotes(schema.target) + " has more than " +
                                std::to_string(kMaxCategories) +
                                " distinct values: too many classes for classification" +
                                (target.numeric ? " (use task=regression)" : ""));
        }
        schema.classes = sortedLabels(target);
        for (const std::string &label : schema.classes) {
            const auto count = target.train_counts.find(label);
            schema.class_counts.push_back(count == target.train_counts.end() ? 0 : count->second);
        }
        reason += " (" + std::to_string(schema.classes.size()) + " classes)";
    } else {
        schema.target_mean = target.moments.mean;
        schema.target_stddev = target.moments.stddev();
    }
    schema.task_reason = "target " + inQuotes(schema.target) + " (" + target_note + "); " + reason;
}

} // namespace

TabularSchema inferTabularSchema(const DataSpec &spec) {
    if (spec.format != Format::Csv) {
        throw DataError(spec.path, 0,
                        "tabular data must be a CSV file (the format is " + toString(spec.format) +
                            ")");
    }
    RecordReader reader(spec, false);
    const std::vector<std::string> &header = reader.columns();
    TabularSchema schema;
    schema.target = spec.target.empty() ? header.back() : spec.target;
    const std::size_t target_column = reader.columnIndex(schema.target, "target");
    const std::string target_note = spec.target.empty() ? "the last column"
                                                        : "set by the data "
                                                          "settings";
    if (header.size() < 2) {
        throw DataError(spec.path, 0,
                        "tabular data needs at least one feature column besides the target " +
                            inQuotes(schema.target));
    }

    std::vector<ColumnStats> columns(header.size());
    TargetStats target;
    Record record;
    while (reader.next(record)) {
        const bool train =
            !isValidationRecord(spec.split_seed, record.ordinal, spec.validation_fraction);
        ++(train ? schema.train_rows : schema.validation_rows);
        for (std::size_t c = 0; c < header.size(); ++c) {
            const std::string &cell = record.fields[c];
            if (c == target_column) {
                continue;
            }
            if (isMissingCell(cell)) {
                continue;
            }
            ColumnStats &stats = columns[c];
            double value = 0;
            const bool is_number = parseNumber(cell, value);
            stats.numeric = stats.numeric && is_number;
            if (train && is_number) {
                stats.moments.add(value);
            }
            if (train && stats.categories.size() < kMaxCategories) {
                stats.categories.insert(cell);
            }
        }
        const std::string &label = record.fields[target_column];
        if (isMissingCell(label)) {
            throw DataError(spec.path, record.line,
                            "the target column " + inQuotes(schema.target) + " is empty");
        }
        double value = 0;
        if (parseNumber(label, value)) {
            target.integer =
                target.integer && value == std::floor(value) && std::fabs(value) < 1e15;
            if (train) {
                target.moments.add(value);
            }
        } else if (target.numeric) {
            target.numeric = false;
            target.first_text_line = record.line;
            target.first_text = label;
        }
        if (target.labels.size() <= kMaxCategories) {
            target.labels.emplace(label, value);
            if (train) {
                ++target.train_counts[label];
            }
        }
    }
    if (schema.train_rows == 0) {
        throw DataError(spec.path, 0,
                        "no training rows: " + std::to_string(schema.validation_rows) +
                            " rows read, all in the validation split (validation_fraction " +
                            std::to_string(spec.validation_fraction) + ")");
    }
    decideTask(spec, target, target_note, schema);

    for (std::size_t c = 0; c < header.size(); ++c) {
        if (c == target_column) {
            continue;
        }
        const ColumnStats &stats = columns[c];
        if (stats.numeric) {
            const double mean = stats.moments.count > 0 ? stats.moments.mean : 0.0;
            schema.numeric.push_back({header[c], mean, stats.moments.stddev()});
        } else {
            schema.categorical.push_back(
                {header[c],
                 std::vector<std::string>(stats.categories.begin(), stats.categories.end())});
        }
    }
    return schema;
}

} // namespace headroom::data
