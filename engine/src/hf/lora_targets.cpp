#include "hf/lora_targets.h"

#include <headroom/config.h>

#include <algorithm>
#include <map>
#include <vector>

namespace headroom::hf {

std::set<std::string> resolveLoraTargets(const std::string &text,
                                         const std::set<std::string> &projections) {
    // Each role's names in every family (GPT-2, Llama, Mixtral, whose experts are its MLPs); a
    // model has those of its own family. GPT-2's c_proj is both attention and MLP output.
    const std::map<std::string, std::vector<std::string>> roles = {
        {"qkv", {"c_attn", "q_proj", "k_proj", "v_proj"}},
        {"attn_out", {"c_proj", "o_proj"}},
        {"mlp_in", {"c_fc", "gate_proj", "up_proj", "w1", "w3"}},
        {"mlp_out", {"c_proj", "down_proj", "w2"}},
        {"experts_in", {"w1", "w3"}},
        {"experts_out", {"w2"}},
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
            bool found = false;
            for (const std::string &projection : role->second) {
                if (projections.count(projection) != 0) {
                    targets.insert(projection);
                    found = true;
                }
            }
            if (!found) {
                throw ConfigError("lora.targets: " + name +
                                  " adapts the experts of Mixture-of-Experts layers; this model "
                                  "has none (use mlp_in, mlp_out or its projection names)");
            }
        } else if (projections.count(name) != 0) {
            targets.insert(name);
        } else {
            std::string list;
            for (const std::string &valid : projections) {
                list += valid + ", ";
            }
            throw ConfigError("lora.targets: this model has no projection '" + name + "'; use " +
                              list + "all-linear or qkv, attn_out, mlp_in, mlp_out" +
                              (projections.count("w1") != 0 ? ", experts_in, experts_out" : ""));
        }
    }
    if (targets.empty()) {
        throw ConfigError("lora.targets is empty: name the projections to adapt, e.g. "
                          "q_proj,v_proj or all-linear");
    }
    return targets;
}

} // namespace headroom::hf
