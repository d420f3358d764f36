#include "data/data_error.h"

namespace headroom::data {
namespace {

std::string composeMessage(const std::string &file, std::int64_t line, const std::string &problem) {
    if (line > 0) {
        return file + ":" + std::to_string(line) + ": " + problem;
    }
    return file + ": " + problem;
}

} // namespace

DataError::DataError(const std::string &file, std::int64_t line, const std::string &problem)
    : std::runtime_error(composeMessage(file, line, problem)), file_(file), line_(line),
      problem_(problem) {}

} // namespace headroom::data
