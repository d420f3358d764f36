#pragma once

#include "data/tabular_schema.h"
#include "hf/architecture_config.h"
#include "hf/encoder_config.h"
#include "hf/model_folder.h"

#include <headroom/plan.h>
#include <headroom/project.h>

#include <cstdint>
#include <string>

namespace headroom::train {
struct PreparedData;
}

namespace headroom::plan {

// The shapes the estimator needs, from what a run already has: the tokenizer's vocabulary
// (gpt), the tabular schema, or a pretrained base's config.json (its vocabulary too).
ModelFacts gptFacts(std::int64_t vocab_size);
ModelFacts tabularFacts(const data::TabularSchema &schema);
ModelFacts pretrainedFacts(const hf::ArchitectureConfig &architecture);
ModelFacts encoderFacts(const hf::EncoderConfig &encoder);
// The encoder as hf describes it (what models/bert_encoder.h is built from).
hf::EncoderConfig encoderOf(const PretrainedArchitecture &pretrained, std::int64_t vocab_size);
// The facts of the model folder `folder` (model.base, located): a causal language model or a
// BERT-family encoder. Throws ConfigError starting "model.base: ".
ModelFacts baseFacts(const hf::ModelFolder &folder);
// The base's architecture as hf describes it (what models/causal_lm.h is built from).
hf::ArchitectureConfig architectureOf(const PretrainedArchitecture &pretrained,
                                      std::int64_t vocab_size);
// `facts` with the pretrained architecture of the config's model.base (relative to the
// project file's folder, or to the working directory without a project) when it has one and
// the facts lack it.
ModelFacts withPretrained(const Config &config, ModelFacts facts,
                          const std::string &project_path = "");
// The same from a project without training or storing anything: the stored tokenizer or
// schema (a SentencePiece tokenizer not trained yet counts as tokenizer.vocab_size; a schema
// not stored yet is inferred from the data file), or model.base's config.json.
ModelFacts storedModelFacts(const Config &config, const Project &project);

// The estimator's uncorrected peak for `measured` (a run's config as it ran) over the run's
// tokenizer or tabular schema; 0 when the data has neither. A memory-history row keeps it
// beside the measured peak.
std::uint64_t uncorrectedPeak(const Config &measured, const train::PreparedData &data);

} // namespace headroom::plan
