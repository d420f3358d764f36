#pragma once

#include <string>

namespace headroom::data {

// A CSV cell that counts as missing: empty or only spaces/tabs.
bool isMissingCell(const std::string &cell);

// Parses a finite decimal number ("3", "-0.5", "1e-3", surrounded by spaces or not) the same way
// in every locale. False for anything else, including "nan" and "inf".
bool parseNumber(const std::string &cell, double &value);

} // namespace headroom::data
