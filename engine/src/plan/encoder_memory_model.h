#pragma once

// The memory model of one SPLADE training step on a BERT-family encoder
// (recipes/splade_recipe.h): the gradient-cache pass's vectors, then per micro-batch the queries'
// and passages' saved activations, the MLM head's vocabulary-sized logits (which dominate for
// a 30k vocabulary) and the max-pooling's indices. See docs/PLANNER.md for the terms and the
// measured error.

#include "hf/encoder_config.h"
#include "plan/gpt_memory_model.h"

#include <headroom/config.h>

#include <string>

namespace headroom::plan {

// "BertForMaskedLM · 12 layers · dim 768 · 12 heads · 128 tokens per text · vocab 30522 ·
// 109.5 M parameters"
std::string describeEncoder(const hf::EncoderConfig &encoder, std::int64_t seq_len);

StepMemory encoderStepMemory(const Config &config, const hf::EncoderConfig &encoder,
                             const StepTechniques &techniques);

} // namespace headroom::plan
