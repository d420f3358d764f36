// A Hugging Face causal LM (hf::ArchitectureConfig) as llama.cpp's architectures see it: which
// GGUF architecture runs it (gpt2; llama for Llama, Mistral and Mixtral; qwen2), its
// hyper-parameter keys with the types llama.cpp reads, and the GGUF name of each tensor with
// what must be done to it on the way (convert_hf_to_gguf's conventions). Torch-free.
#pragma once

#include "gguf/gguf_writer.h"
#include "hf/architecture_config.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom::gguf {

// "gpt2", "llama" or "qwen2"; throws GgufError naming the model type for anything else.
std::string ggufArchitecture(const hf::ArchitectureConfig &config);

// general.architecture and every "<arch>.*" key: context, embedding and feed-forward lengths,
// block count, head counts (u32), norm epsilon, RoPE base and linear scaling (f32), expert
// counts. context_length: the model's positions.
void addHyperParameters(const hf::ArchitectureConfig &config, Metadata &metadata);

enum class TensorTransform {
    None,
    // llama.cpp's llama architecture rotates interleaved pairs where transformers rotates
    // halves: the rows of q_proj (and k_proj, with the key/value heads) are permuted per head.
    PermuteQueryHeads,
    PermuteKeyHeads,
};

struct GgufTensorName {
    std::string name; // "blk.0.attn_q.weight"
    TensorTransform transform = TensorTransform::None;
    std::optional<std::int64_t> expert; // a Mixtral expert's slice of a merged *_exps tensor
};

// The GGUF name of a tensor under its transformers name in the *ForCausalLM model, held as
// torch holds it (a Linear's weight [out, in]; GPT-2's Conv1D weights already transposed
// to that). Throws GgufError for a name llama.cpp's architecture has no place for.
GgufTensorName ggufTensorName(const hf::ArchitectureConfig &config, const std::string &hf_name);

// Llama 3 RoPE scaling: llama.cpp divides each frequency by a factor it reads from the tensor
// rope_freqs.weight (head_dim / 2 values, f32), computed as convert_hf_to_gguf computes it;
// empty for other scaling.
std::vector<float> llama3RopeFactors(const hf::ArchitectureConfig &config);

} // namespace headroom::gguf
