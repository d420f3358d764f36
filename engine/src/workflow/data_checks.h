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

} // namespace headroom::workflow
