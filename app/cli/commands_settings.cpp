#include "cli/commands.h"
#include "cli/exit_codes.h"

#include <headroom/config.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace headroom::cli {

namespace {

// The shortest %g form with a plain exponent (1e-9, not 1e-09).
std::string shortNumber(double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%g", value);
    std::string result = text;
    const std::size_t e = result.find('e');
    if (e == std::string::npos) {
        return result;
    }
    std::string exponent = result.substr(e + 1);
    const bool negative = !exponent.empty() && exponent[0] == '-';
    if (!exponent.empty() && (exponent[0] == '-' || exponent[0] == '+')) {
        exponent.erase(0, 1);
    }
    exponent.erase(0, std::min(exponent.find_first_not_of('0'), exponent.size() - 1));
    return result.substr(0, e + 1) + (negative ? "-" : "") + exponent;
}

// A bound as people write it: whole numbers in digits unless a short form is exact (1e9).
std::string formatBound(double value) {
    const std::string brief = shortNumber(value);
    if (value != std::floor(value) || std::fabs(value) >= 1e16) {
        return brief;
    }
    char digits[64];
    std::snprintf(digits, sizeof digits, "%.0f", value);
    return std::strtod(brief.c_str(), nullptr) == value && brief.size() < std::strlen(digits)
               ? brief
               : std::string(digits);
}

bool isOnOffChoice(const KeySpec &spec) {
    return spec.type == KeyType::Choice && spec.choices.size() == 2 &&
           std::count(spec.choices.begin(), spec.choices.end(), "on") == 1 &&
           std::count(spec.choices.begin(), spec.choices.end(), "off") == 1;
}

std::string typeName(const KeySpec &spec) {
    switch (spec.type) {
    case KeyType::Choice:
        return isOnOffChoice(spec) ? "on/off" : "choice";
    case KeyType::Integer:
        return spec.true_value.empty() ? "integer" : "integer, on/off";
    case KeyType::Real:
        return "real";
    case KeyType::Boolean:
        return "boolean";
    case KeyType::Bytes:
        return "size";
    case KeyType::Path:
        return "path";
    case KeyType::String:
        break;
    }
    return "text";
}

std::string codeList(const std::vector<std::string> &items) {
    std::string text;
    for (const std::string &item : items) {
        text += (text.empty() ? "`" : ", `") + item + "`";
    }
    return text;
}

// What `--set KEY=VALUE` takes, in Markdown.
std::string acceptedValues(const KeySpec &spec) {
    switch (spec.type) {
    case KeyType::Choice:
        return codeList(spec.choices) +
               (isOnOffChoice(spec) ? " (also `true`/`false`, `yes`/`no`, `1`/`0`)" : "");
    case KeyType::Integer:
    case KeyType::Real: {
        std::string text = formatBound(spec.minimum) + "–" + formatBound(spec.maximum);
        if (!spec.true_value.empty()) {
            text += "; `true`/`on`/`yes` = " + spec.true_value + ", `false`/`off`/`no` = 0";
        }
        return text;
    }
    case KeyType::Boolean:
        return "`true`/`false` (`on`/`off`, `yes`/`no`, `1`/`0`)";
    case KeyType::Bytes:
        return "a size such as `512MiB` or `8GiB`, or `none`";
    case KeyType::Path:
        return "a file or folder path";
    case KeyType::String:
        break;
    }
    return "see meaning";
}

std::string escapeCell(const std::string &text) {
    std::string escaped;
    for (const char c : text) {
        if (c == '|') {
            escaped += '\\';
        }
        escaped += c == '\n' ? ' ' : c;
    }
    return escaped;
}

std::string sectionOf(const std::string &key) {
    const std::size_t dot = key.find('.');
    return dot == std::string::npos ? std::string() : key.substr(0, dot);
}

// `text` followed by spaces up to `width`, and two spaces at least.
std::string paddedWithGap(const std::string &text, std::size_t width) {
    return text + std::string(text.size() < width ? width - text.size() + 2 : 2, ' ');
}

void printPlain(std::ostream &out) {
    const std::vector<KeySpec> &keys = configKeys();
    std::size_t key_width = 0;
    for (const KeySpec &spec : keys) {
        key_width = std::max(key_width, spec.name.size());
    }
    // Longer defaults (recovery.ladder's) push their meaning on rather than widen the column.
    constexpr std::size_t kDefaultWidth = 12;
    out << paddedWithGap("key", key_width) << paddedWithGap("default", kDefaultWidth)
        << "meaning\n";
    for (const KeySpec &spec : keys) {
        const std::string value = spec.default_value.empty() ? "-" : spec.default_value;
        out << paddedWithGap(spec.name, key_width) << paddedWithGap(value, kDefaultWidth)
            << spec.description << '\n';
    }
}

void printMarkdown(std::ostream &out) {
    const std::vector<KeySpec> &keys = configKeys();
    std::vector<std::string> sections;
    for (const KeySpec &spec : keys) {
        const std::string section = sectionOf(spec.name);
        if (std::find(sections.begin(), sections.end(), section) == sections.end()) {
            sections.push_back(section);
        }
    }
    out << "# Settings\n\n"
        << "Generated by `headroom-cli settings --markdown > docs/SETTINGS.md` from the engine's "
           "key registry; do not edit by hand.\n\n"
        << "Every key is set with `--set KEY=VALUE` on `new`, `estimate`, `fit`, `train` and "
           "`profile`, in a `--config` JSON file given to `new`, or in the wizard and the Plan "
           "tab. Unknown keys and values outside the accepted ones are refused with a message "
           "that names the key and what it accepts.\n";
    for (const std::string &section : sections) {
        out << "\n## " << (section.empty() ? std::string("General") : "`" + section + ".*`")
            << "\n\n"
            << "| key | type | default | accepted values | meaning |\n"
            << "|---|---|---|---|---|\n";
        for (const KeySpec &spec : keys) {
            if (sectionOf(spec.name) != section) {
                continue;
            }
            const std::string default_value =
                spec.default_value.empty() ? "(empty)" : "`" + spec.default_value + "`";
            out << "| `" << spec.name << "` | " << typeName(spec) << " | "
                << escapeCell(default_value) << " | " << escapeCell(acceptedValues(spec)) << " | "
                << escapeCell(spec.description) << " |\n";
        }
    }
}

} // namespace

CommandRunner addSettingsCommand(CLI::App &app, Streams streams) {
    CLI::App *command = app.add_subcommand(
        "settings", "List every setting (--set KEY=VALUE) with its default and meaning");
    auto markdown = std::make_shared<bool>(false);
    command->add_flag("--markdown", *markdown,
                      "Print the reference as Markdown, grouped by key prefix (docs/SETTINGS.md)");
    return [streams, markdown]() {
        if (*markdown) {
            printMarkdown(streams.out);
        } else {
            printPlain(streams.out);
        }
        return static_cast<int>(kExitSuccess);
    };
}

} // namespace headroom::cli
