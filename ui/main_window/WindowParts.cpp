#include "main_window/WindowParts.h"

#include "views/RunsPanel.h"

namespace headroom::ui {

std::int64_t exportRunId(const RunsPanel &runs) {
    if (const std::int64_t selected = runs.selectedRunId(); selected != 0) {
        return selected;
    }
    return runs.runs().empty() ? 0 : runs.runs().back().id;
}

} // namespace headroom::ui
