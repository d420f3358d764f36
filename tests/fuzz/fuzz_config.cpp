// The config parser: a project's config JSON and `--set KEY=VALUE` lines come from users and
// from project files of other people. Anything but a ConfigError is a finding; a config that
// parses must survive a round trip through toJson unchanged.
#include <headroom/config.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string text(reinterpret_cast<const char *>(data), size);
    try {
        const headroom::Config config = headroom::Config::fromJson(text);
        const std::string json = config.toJson();
        if (headroom::Config::fromJson(json).values() != config.values()) {
            std::abort(); // the round trip changed the config
        }
        config.validate();
    } catch (const headroom::ConfigError &) {
    }

    // The same bytes as --set lines, one per line.
    headroom::Config config;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        end = end == std::string::npos ? text.size() : end;
        try {
            config.setAssignment(text.substr(start, end - start));
        } catch (const headroom::ConfigError &) {
        }
        start = end + 1;
    }
    try {
        config.validate();
        config.bytes("memory.budget");
    } catch (const headroom::ConfigError &) {
    }
    return 0;
}
