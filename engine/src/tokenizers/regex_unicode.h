#pragma once

// Debian 12's PCRE2 (10.42) has Unicode 14 tables; the reference's Oniguruma knows newer
// characters (emoji such as U+1FABF, CJK extension H). This extends every general-category
// property in a pattern (\p{L}, \p{S}, ... in or out of classes) with the characters ICU
// assigns to that category and PCRE2 does not, so those characters split as in the reference.
// Characters newer than ICU's tables (Unicode 15.0 in Debian 12) still differ.

#include <string>

namespace headroom::tokenizers {

std::string withNewerUnicode(const std::string &pattern);

} // namespace headroom::tokenizers
