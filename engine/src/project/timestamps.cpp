#include "project/timestamps.h"

#include <cstdio>
#include <ctime>

namespace headroom::project {

std::string isoTimestamp(std::chrono::system_clock::time_point time) {
    using namespace std::chrono;
    const auto since_epoch = duration_cast<milliseconds>(time.time_since_epoch());
    auto seconds = duration_cast<std::chrono::seconds>(since_epoch);
    auto millis = since_epoch - seconds;
    if (millis.count() < 0) { // before 1970: borrow a second so the fraction stays positive
        seconds -= std::chrono::seconds(1);
        millis += std::chrono::seconds(1);
    }
    const std::time_t whole = static_cast<std::time_t>(seconds.count());
    std::tm utc{};
#ifdef _WIN32
    gmtime_s(&utc, &whole);
#else
    gmtime_r(&whole, &utc);
#endif
    char text[96]; // room for any int the fields could hold, as the compiler checks
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                  utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                  static_cast<int>(millis.count()));
    return text;
}

std::string isoTimestampNow() {
    return isoTimestamp(std::chrono::system_clock::now());
}

} // namespace headroom::project
