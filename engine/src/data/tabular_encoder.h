#pragma once

#include "data/example.h"
#include "data/tabular_schema.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace headroom::data {

// Turns a CSV row into an Example with a TabularSchema: numeric columns standardized (missing
// -> 0), categories as ids (unknown or missing -> 0), the target as a class index or a
// standardized value.
class TabularEncoder {
public:
    // Throws DataError (unknown column, naming the header) when the header lacks a column of
    // the schema.
    TabularEncoder(const TabularSchema &schema, const std::vector<std::string> &header,
                   const std::string &path);

    // Fills numeric, categorical and target of `out`. Throws DataError naming the line for an
    // empty target, a class the schema does not know or a non-number where a number belongs.
    void encode(const std::vector<std::string> &fields, std::int64_t line, Example &out) const;

private:
    struct NumericSlot {
        std::size_t column;
        double mean;
        double stddev;
    };
    struct CategoricalSlot {
        std::size_t column;
        std::unordered_map<std::string, std::int64_t> ids;
    };

    const TabularSchema &schema_;
    std::string path_;
    std::vector<NumericSlot> numeric_;
    std::vector<CategoricalSlot> categorical_;
    std::size_t target_column_ = 0;
    std::unordered_map<std::string, std::int64_t> class_ids_;
};

} // namespace headroom::data
