#include "data/tabular_encoder.h"

#include "data/data_error.h"
#include "data/number_parse.h"

namespace headroom::data {
namespace {

std::size_t findColumn(const std::vector<std::string> &header, const std::string &name,
                       const std::string &path) {
    for (std::size_t i = 0; i < header.size(); ++i) {
        if (header[i] == name) {
            return i;
        }
    }
    std::string available;
    for (const std::string &column : header) {
        available += available.empty() ? "" : ", ";
        available += column;
    }
    throw DataError(path, 0,
                    "unknown column '" + name +
                        "' (the data settings expect it); the header has: " + available);
}

} // namespace

TabularEncoder::TabularEncoder(const TabularSchema &schema, const std::vector<std::string> &header,
                               const std::string &path)
    : schema_(schema), path_(path) {
    for (const NumericColumn &column : schema.numeric) {
        numeric_.push_back({findColumn(header, column.name, path), column.mean,
                            column.stddev > 0 ? column.stddev : 1.0});
    }
    for (const CategoricalColumn &column : schema.categorical) {
        CategoricalSlot slot{findColumn(header, column.name, path), {}};
        for (std::size_t i = 0; i < column.categories.size(); ++i) {
            slot.ids.emplace(column.categories[i], static_cast<std::int64_t>(i + 1));
        }
        categorical_.push_back(std::move(slot));
    }
    target_column_ = findColumn(header, schema.target, path);
    for (std::size_t i = 0; i < schema.classes.size(); ++i) {
        class_ids_.emplace(schema.classes[i], static_cast<std::int64_t>(i));
    }
}

void TabularEncoder::encode(const std::vector<std::string> &fields, std::int64_t line,
                            Example &out) const {
    out.numeric.clear();
    out.categorical.clear();
    for (const NumericSlot &slot : numeric_) {
        const std::string &cell = fields[slot.column];
        double value = 0;
        if (isMissingCell(cell)) {
            out.numeric.push_back(0.0F);
            continue;
        }
        if (!parseNumber(cell, value)) {
            throw DataError(path_, line,
                            "column '" + schema_.numeric[out.numeric.size()].name + "' holds '" +
                                cell + "', expected a number");
        }
        out.numeric.push_back(static_cast<float>((value - slot.mean) / slot.stddev));
    }
    for (const CategoricalSlot &slot : categorical_) {
        const auto found = slot.ids.find(fields[slot.column]);
        out.categorical.push_back(found == slot.ids.end() ? 0 : found->second);
    }
    const std::string &target = fields[target_column_];
    if (isMissingCell(target)) {
        throw DataError(path_, line, "the target column '" + schema_.target + "' is empty");
    }
    if (schema_.classification) {
        const auto found = class_ids_.find(target);
        if (found == class_ids_.end()) {
            throw DataError(path_, line,
                            "the target '" + target + "' is not one of the " +
                                std::to_string(schema_.classes.size()) +
                                " classes the schema knows");
        }
        out.target = static_cast<double>(found->second);
        return;
    }
    double value = 0;
    if (!parseNumber(target, value)) {
        throw DataError(path_, line,
                        "the regression target '" + schema_.target + "' holds '" + target +
                            "', expected a number");
    }
    const double stddev = schema_.target_stddev > 0 ? schema_.target_stddev : 1.0;
    out.target = (value - schema_.target_mean) / stddev;
}

} // namespace headroom::data
