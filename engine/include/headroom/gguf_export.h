// A run as one GGUF file that llama.cpp, Ollama and LM Studio load: the weights (a LoRA run's
// adapters merged) in llama.cpp's tensor names and layouts, quantized as chosen, with the
// hyper-parameters, the complete tokenizer and the chat template in its key/values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

struct GgufExportRequest {
    std::string project_path;
    // A run id; -1: a pretrained project's base as imported; 0: the newest run with a checkpoint.
    std::int64_t run_id = 0;
    std::string gguf_path;
    std::string quant = "q8_0"; // f32 | f16 | bf16 | q8_0 | q4_0 | q4_k_m | q5_k_m | q6_k
    // Also write an Ollama Modelfile beside the file (FROM, stop parameters from the template).
    bool ollama_modelfile = false;
};

struct GgufExport {
    std::int64_t step = 0;
    std::string architecture; // llama.cpp's: gpt2, llama, qwen2
    std::string quant;
    std::uint64_t file_bytes = 0;
    std::int64_t tensors = 0;
    std::string modelfile_path;     // empty without ollama_modelfile
    std::vector<std::string> notes; // what the file cannot say exactly as the model does
};

// Writes the file tensor by tensor (each converted, quantized and written before the next is
// read). Throws InputError: an unknown quant, a project that is not a language model, an
// architecture or tokenizer llama.cpp cannot reproduce (the message says what differs).
GgufExport exportGguf(const GgufExportRequest &request);

struct GgufSizeEstimate {
    std::string quant;
    std::uint64_t file_bytes = 0;
};
// The size the file would have under each quant choice, in the order of ggufQuantNames().
std::vector<GgufSizeEstimate> estimateGgufSizes(const std::string &project_path,
                                                std::int64_t run_id);
std::vector<std::string> ggufQuantNames();

} // namespace headroom
