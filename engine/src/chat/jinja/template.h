#pragma once

// A Jinja engine for chat templates: the subset of Jinja2 that Hugging Face chat templates use,
// rendered exactly as transformers' apply_chat_template renders them (trim_blocks and
// lstrip_blocks on, loop controls, {% generation %} blocks, raise_exception, strftime_now,
// tojson with Python's json.dumps output).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace headroom::chat::jinja {

// A template that cannot be parsed or rendered. line() is 1-based in the template source (0 when
// unknown). A template's own raise_exception(message) gives raisedByTemplate() and what() equal
// to its message alone.
class TemplateError : public std::runtime_error {
public:
    TemplateError(const std::string &message, int line, bool raised_by_template = false)
        : std::runtime_error(message), line_(line), raised_by_template_(raised_by_template) {}
    int line() const { return line_; }
    bool raisedByTemplate() const { return raised_by_template_; }

private:
    int line_;
    bool raised_by_template_;
};

// Bounds that keep a hostile or broken template from running away.
struct RenderLimits {
    std::int64_t max_steps = 20'000'000; // loop iterations, macro calls and output writes
    int max_call_depth = 64;             // nested macro / call-block invocations
    std::size_t max_output_bytes = std::size_t{64} << 20;
};

struct RenderOptions {
    RenderLimits limits;
    // strftime_now(format) as the template sees it; empty: the current local time.
    std::function<std::string(const std::string &format)> strftime_now;
};

struct Rendered {
    std::string text;
    // Byte ranges [begin, end) of `text` written inside {% generation %} blocks, in order.
    std::vector<std::pair<std::size_t, std::size_t>> generation_spans;
};

// A parsed template. Rendering is const and thread-safe.
class Template {
public:
    // Throws TemplateError (with the line) for a template that does not parse.
    explicit Template(std::string_view source);
    ~Template();
    Template(const Template &) = default;
    Template(Template &&) noexcept = default;
    Template &operator=(const Template &) = default;
    Template &operator=(Template &&) noexcept = default;

    bool hasGenerationBlocks() const;

    // `variables`: the template's global names (messages, tools, add_generation_prompt,
    // bos_token, ...); object key order is kept as given. Throws TemplateError.
    Rendered render(const nlohmann::ordered_json &variables,
                    const RenderOptions &options = {}) const;

private:
    struct Impl;
    std::shared_ptr<const Impl> impl_;
};

} // namespace headroom::chat::jinja
