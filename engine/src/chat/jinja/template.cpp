#include "chat/jinja/template.h"

#include "chat/jinja/parser.h"
#include "chat/jinja/renderer.h"

#include <new>

namespace headroom::chat::jinja {

struct Template::Impl {
    std::unique_ptr<detail::TemplateAst> ast;
};

Template::Template(std::string_view source) {
    auto impl = std::make_shared<Impl>();
    try {
        impl->ast = detail::parseTemplate(source);
    } catch (const std::bad_alloc &) {
        throw TemplateError("out of memory while parsing the template", 0);
    }
    impl_ = std::move(impl);
}

Template::~Template() = default;

bool Template::hasGenerationBlocks() const {
    return impl_->ast->has_generation;
}

Rendered Template::render(const nlohmann::ordered_json &variables,
                          const RenderOptions &options) const {
    detail::Renderer renderer(*impl_->ast, variables, options);
    return renderer.run();
}

} // namespace headroom::chat::jinja
