#include "hf/lora_targets.h"

#include <headroom/config.h>

#include <algorithm>
#include <map>
#include <vector>

namespace headroom::hf {

std::set<std::string> resolveLoraTargets(const std::string &text,
                                         const std::set<std::string> &projections, bool gpt2) {
    const std::map<std::string, std::vector<std::string>> roles = {
        {"qkv", gpt2 ? std::vector<std::string>{"c_attn"}
                     : std::vector<std::string>{"q_proj", "k_proj", "v_proj"}},
        {"attn_out", {gpt2 ? "c_proj" : "o_proj"}},
        {"mlp_in", gpt2 ? std::vector<std::string>{"c_fc"}
                        : std::vector<std::string>{"gate_proj", "up_proj"}},
        {"mlp_out", {gpt2 ? "c_proj" : "down_proj"}},
    };
    std::set<std::string> targets;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        std::string name = text.substr(start, comma - start);
        name.erase(0, name.find_first_not_of(" \t"));
        name.erase(name.find_last_not_of(" \t") + 1);
        start = comma + 1;
        if (name.empty()) {
            continue;
        }
        if (name == "all-linear") {
            targets.insert(projections.begin(), projections.end());
        } else if (const auto role = roles.find(name); role != roles.end()) {
            targets.insert(role->second.begin(), role->second.end());
        } else if (projections.count(name) != 0) {
            targets.insert(name);
        } else {
            std::string list;
            for (const std::string &valid : projections) {
                list += valid + ", ";
            }
            throw ConfigError("lora.targets: this model has no projection '" + name + "'; use " +
                              list + "all-linear or qkv, attn_out, mlp_in, mlp_out");
        }
    }
    if (targets.empty()) {
        throw ConfigError("lora.targets is empty: name the projections to adapt, e.g. "
                          "q_proj,v_proj or all-linear");
    }
    return targets;
}

} // namespace headroom::hf
