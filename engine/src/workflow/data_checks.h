#pragma once

#include "data/data_spec.h"

#include <headroom/config.h>

#include <string>

namespace headroom::workflow {

// The tabular recipe reads CSV only; `shown_path` is the file as the user named it.
inline void requireCsvForTabular(const Config &config, const data::DataSpec &spec,
                                 const std::string &shown_path) {
    if (config.text("recipe") == "tabular" && spec.format != data::Format::Csv) {
        throw ConfigError("recipe=tabular needs a CSV file; " + shown_path + " reads as " +
                          data::toString(spec.format));
    }
}

// The SPLADE recipe reads retrieval records from JSON or JSONL only (a text file would pass the
// line reader and fail only when training starts).
inline void requireJsonForRetrieval(const Config &config, const data::DataSpec &spec,
                                    const std::string &shown_path) {
    if (config.text("recipe") == "splade" && spec.format != data::Format::Json &&
        spec.format != data::Format::Jsonl) {
        throw ConfigError("recipe=splade needs retrieval records in a JSON or JSONL file "
                          "(\"query\", \"positive\" or \"positives\", optional \"negatives\"); " +
                          shown_path + " reads as " + data::toString(spec.format));
    }
}

// The data spec the trainer would use for this file, with the path taken as given (no project
// folder to resolve it against yet). Throws InputError for no path or no such file.
data::DataSpec previewDataSpec(const Config &config, const std::string &data_path);

} // namespace headroom::workflow
