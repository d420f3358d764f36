#include "plan/model_facts.h"

namespace headroom::plan {

ModelFacts gptFacts(std::int64_t vocab_size) {
    ModelFacts facts;
    facts.vocab_size = vocab_size;
    return facts;
}

ModelFacts tabularFacts(const data::TabularSchema &schema) {
    ModelFacts facts;
    facts.numeric_features = static_cast<std::int64_t>(schema.numeric.size());
    for (const auto &column : schema.categorical) {
        // The id 0 is "unknown", as in makeTabularRecipe.
        facts.cardinalities.push_back(static_cast<std::int64_t>(column.categories.size()) + 1);
    }
    facts.outputs = schema.classification ? static_cast<std::int64_t>(schema.classes.size()) : 1;
    return facts;
}

} // namespace headroom::plan
