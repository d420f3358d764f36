// exportGguf / estimateGgufSizes: a language-model run (a pretrained project's, LoRA merged, or a
// GPT trained from scratch) as one GGUF file for llama.cpp, written tensor by tensor.
#include "gguf/gguf_architecture.h"
#include "gguf/gguf_quant_mix.h"
#include "gguf/gguf_quantize.h"
#include "gguf/gguf_tokenizer.h"
#include "gguf/gguf_writer.h"
#include "hf/architecture_config.h"
#include "hf/generation_defaults.h"
#include "hf/json_file.h"
#include "hf/model_folder.h"
#include "hf/pretrained_model.h"
#include "hf/scratch_gpt.h"
#include "models/causal_lm.h"
#include "models/gpt.h"
#include "models/lora.h"
#include "tokenizers/tokenizer.h"
#include "train/prepared_data.h"
#include "workflow/run_model.h"

#include <headroom/config.h>
#include <headroom/gguf_export.h>
#include <headroom/project.h>

#include <ATen/Parallel.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

namespace headroom {

namespace gguf_export {

namespace {

namespace fs = std::filesystem;

// A tensor to write: where it goes and how to get its values when its turn comes, so that only
// one converted tensor is alive at a time.
struct PendingTensor {
    gguf::GgufTensorName target;
    std::vector<std::int64_t> shape; // torch's, outermost first
    std::function<torch::Tensor()> values;
    // A Mixtral layer's experts merged into one *_exps tensor: expert e's slice.
    std::vector<std::function<torch::Tensor()>> experts;
};

struct ExportSource {
    workflow::RunModel run;
    hf::ArchitectureConfig architecture;
    gguf::Vocabulary vocabulary;
    std::vector<PendingTensor> tensors;
    std::vector<std::string> notes;
};

torch::Tensor permuteHeads(const torch::Tensor &weight, std::int64_t heads) {
    const std::vector<std::int64_t> shape = weight.sizes().vec();
    std::vector<std::int64_t> split = {heads, 2, shape[0] / heads / 2};
    split.insert(split.end(), shape.begin() + 1, shape.end());
    return weight.reshape(split).transpose(1, 2).reshape(shape);
}

void addTensor(ExportSource &source, const std::string &hf_name, const torch::Tensor &shape_of,
               std::function<torch::Tensor()> values) {
    gguf::GgufTensorName target = gguf::ggufTensorName(source.architecture, hf_name);
    if (!target.expert) {
        source.tensors.push_back(
            {std::move(target), shape_of.sizes().vec(), std::move(values), {}});
        return;
    }
    const std::int64_t experts = source.architecture.experts;
    auto merged =
        std::find_if(source.tensors.begin(), source.tensors.end(),
                     [&target](const PendingTensor &t) { return t.target.name == target.name; });
    if (merged == source.tensors.end()) {
        PendingTensor tensor;
        tensor.target.name = target.name;
        tensor.shape = shape_of.sizes().vec();
        tensor.shape.insert(tensor.shape.begin(), experts);
        tensor.experts.resize(static_cast<std::size_t>(experts));
        source.tensors.push_back(std::move(tensor));
        merged = source.tensors.end() - 1;
    }
    if (*target.expert >= experts || merged->experts[static_cast<std::size_t>(*target.expert)]) {
        throw InputError(hf_name + ": expert " + std::to_string(*target.expert) +
                         " is not one of the model's " + std::to_string(experts));
    }
    merged->experts[static_cast<std::size_t>(*target.expert)] = std::move(values);
}

// The token id of a token's text, if the vocabulary has it.
std::optional<std::int64_t> idOfText(const gguf::Vocabulary &vocabulary, const std::string &text) {
    const auto found = std::find(vocabulary.tokens.begin(), vocabulary.tokens.end(), text);
    if (found == vocabulary.tokens.end()) {
        return std::nullopt;
    }
    return static_cast<std::int64_t>(found - vocabulary.tokens.begin());
}

void addChatTemplate(ExportSource &source, const std::string &project_path) {
    try {
        source.vocabulary.chat_template =
            train::chatTemplateSource(source.run.config, source.run.prepared, project_path).text;
    } catch (const ConfigError &) {
        // no template: the file is a plain completion model
    }
}

void loadPretrained(ExportSource &source, models::CausalLmImpl &model) {
    const hf::ModelFolder &folder = *source.run.prepared.base;
    source.architecture = hf::readArchitectureConfig(folder.config_path);
    const hf::ArchitectureConfig &config = source.architecture;
    const fs::path tokenizer_path = fs::path(folder.folder) / "tokenizer.json";
    if (!fs::is_regular_file(tokenizer_path)) {
        throw InputError(folder.folder + " has no tokenizer.json: GGUF export reads the "
                                         "vocabulary, merges and pre-tokenizer from it");
    }
    try {
        source.vocabulary = gguf::vocabularyFromTokenizerJson(
            hf::readTextFile(tokenizer_path.string(), data::kMaxTokenizerBytes),
            tokenizer_path.string(), config.vocab_size);
    } catch (const gguf::GgufError &error) {
        throw InputError(error.what());
    }
    gguf::Vocabulary &vocabulary = source.vocabulary;
    if (vocabulary.normalizes_nfc) {
        source.notes.push_back("the tokenizer NFC-normalizes text and llama.cpp does not: text "
                               "not already in NFC (decomposed accents) tokenizes differently");
    }
    const hf::GenerationDefaults defaults = hf::readGenerationDefaults(folder, config);
    if (!vocabulary.bos && defaults.bos_token_id) {
        vocabulary.bos = *defaults.bos_token_id;
    }
    if (!vocabulary.eos) {
        if (defaults.eos_token) {
            vocabulary.eos = idOfText(vocabulary, *defaults.eos_token);
        }
        if (!vocabulary.eos && !defaults.eos_token_ids.empty()) {
            vocabulary.eos = defaults.eos_token_ids.front();
        }
    }
    // Headroom stops at every id of eos_token_id; llama.cpp at EOS, EOT and the end-of-generation
    // tokens it recognizes by their text: the next of those ids becomes EOT.
    for (std::int64_t id : defaults.eos_token_ids) {
        if (id != vocabulary.eos) {
            vocabulary.eot = id;
            break;
        }
    }
    if (defaults.eos_token_ids.size() > 2) {
        source.notes.push_back("eos_token_id lists " +
                               std::to_string(defaults.eos_token_ids.size()) +
                               " ids: GGUF has one EOS and one EOT id, llama.cpp adds the "
                               "end-of-generation tokens it recognizes by their text");
    }
    vocabulary.pad = defaults.pad_token_id;
    if (config.sliding_window && config.model_type == "mistral") {
        source.notes.push_back("llama.cpp runs Mistral with full attention: the same as its "
                               "sliding window of " +
                               std::to_string(*config.sliding_window) +
                               " tokens up to that length");
    }
    if (config.activation == "gelu") {
        source.notes.push_back("llama.cpp's gpt2 uses the tanh approximation of GELU; this "
                               "model was trained with the exact GELU");
    }

    std::map<std::string, models::LoraAdapter> adapters;
    for (const auto &[path, adapter] : model.loraAdapters()) {
        adapters.emplace(path + ".weight", adapter);
    }
    if (model.baseFormat() != BaseFormat::Fp32) {
        // The base's projections are int8/nf4 codes only mergedState() dequantizes: all at once.
        source.notes.push_back("the run holds its base as " + baseFormatName(model.baseFormat()) +
                               ": the weights were dequantized and merged before writing");
        for (const auto &[name, tensor] : model.mergedState()) {
            if (name == "lm_head.weight" && config.tie_word_embeddings) {
                continue;
            }
            addTensor(source, name, tensor, [tensor = tensor]() { return tensor; });
        }
        return;
    }
    for (const auto &item : model.named_parameters()) {
        const std::string &name = item.key();
        if (name.rfind("lora_", 0) == 0 || name.find(".lora_") != std::string::npos ||
            (name == "lm_head.weight" && config.tie_word_embeddings)) {
            continue;
        }
        const torch::Tensor parameter = item.value().detach();
        const auto adapter = adapters.find(name);
        if (adapter == adapters.end()) {
            addTensor(source, name, parameter, [parameter]() { return parameter; });
        } else {
            const models::LoraAdapter lora = adapter->second;
            addTensor(source, name, parameter,
                      [parameter, lora]() { return parameter + lora->update(); });
        }
    }
}

void loadScratchGpt(ExportSource &source, const models::GptImpl &gpt) {
    const data::Tokenizer &tokenizer = *source.run.prepared.tokenizer;
    if (tokenizer.kind() != data::TokenizerKind::Byte) {
        throw InputError("GGUF export of a GPT trained from scratch supports the byte tokenizer; "
                         "this project's is " +
                         data::toString(tokenizer.kind()) +
                         " (SentencePiece), which is not exported to GGUF yet");
    }
    if (gpt.options().moe().experts() > 0) {
        throw InputError("this GPT has mixture-of-experts blocks (moe.experts = " +
                         std::to_string(gpt.options().moe().experts()) +
                         "), which llama.cpp's gpt2 architecture does not have");
    }
    const std::int64_t end_of_text = tokenizer.endOfTextId();
    source.architecture = hf::parseArchitectureConfig(
        hf::gpt2ConfigJson(gpt.options(), end_of_text), "the project's GPT");
    source.vocabulary = gguf::byteTokenizerVocabulary(source.architecture.vocab_size);
    source.notes.push_back("llama.cpp's gpt2 uses the tanh approximation of GELU; Headroom's GPT "
                           "the exact GELU: logits differ slightly");
    for (const auto &[name, tensor] : hf::gpt2StateOf(gpt)) {
        // gpt2StateOf gives GPT-2's Conv1D weights as stored, [in, out]
        const torch::Tensor held =
            hf::storedTransposed(source.architecture, name) ? tensor.t() : tensor;
        addTensor(source, name, held, [held]() { return held; });
    }
}

ExportSource loadExportSource(const std::string &project_path, std::int64_t run_id) {
    ExportSource source;
    bool scratch = false;
    {
        Project project = Project::openForReading(project_path);
        const Config config = Config::fromJson(project.configJson());
        if (config.text("recipe") == "splade" || config.text("recipe") == "tabular") {
            throw InputError(project_path + " trains a " + config.text("recipe") +
                             " model; GGUF export takes language models (gpt, causal_lm)");
        }
        scratch = config.text("model.base").empty();
        if (scratch && run_id < 0) {
            throw InputError("run -1 is the base of a pretrained project; " + project_path +
                             " trains a GPT from scratch: give the id of a run (see `runs`)");
        }
        source.run = workflow::loadRunModel(project, run_id);
    }
    torch::nn::Module *module = source.run.recipe->module().get();
    if (auto *model = dynamic_cast<models::CausalLmImpl *>(module);
        model != nullptr && source.run.prepared.base) {
        loadPretrained(source, *model);
    } else if (auto *gpt = dynamic_cast<models::GptImpl *>(module); gpt != nullptr) {
        loadScratchGpt(source, *gpt);
    } else {
        throw InputError("run " + std::to_string(source.run.run_id) +
                         " holds no language model that GGUF export takes");
    }
    for (const PendingTensor &tensor : source.tensors) {
        for (const auto &expert : tensor.experts) {
            if (!expert) {
                throw InputError("the model lacks an expert's slice of " + tensor.target.name);
            }
        }
    }
    addChatTemplate(source, project_path);
    const std::vector<float> rope_factors = gguf::llama3RopeFactors(source.architecture);
    if (!rope_factors.empty()) {
        const torch::Tensor factors =
            torch::tensor(rope_factors, torch::TensorOptions().dtype(torch::kFloat32));
        PendingTensor tensor;
        tensor.target.name = "rope_freqs.weight";
        tensor.shape = factors.sizes().vec();
        tensor.values = [factors]() {
            return factors;
        };
        source.tensors.push_back(std::move(tensor));
    }
    return source;
}

struct GgufPlan {
    gguf::Metadata metadata;
    std::vector<gguf::TensorPlan> tensors;
};

GgufPlan planExport(const ExportSource &source, gguf::ExportQuant quant,
                    const std::string &project_path) {
    GgufPlan plan;
    const std::string arch = gguf::ggufArchitecture(source.architecture);
    plan.metadata.setString("general.architecture", arch);
    plan.metadata.setString("general.type", "model");
    plan.metadata.setString("general.name", fs::path(project_path).stem().string());
    plan.metadata.setU32("general.file_type", static_cast<std::uint32_t>(gguf::fileTypeOf(quant)));
    plan.metadata.setU32("general.quantization_version", 2);
    plan.metadata.setU32("general.alignment", gguf::kAlignment);
    gguf::addHyperParameters(source.architecture, plan.metadata);
    gguf::addVocabulary(source.vocabulary, plan.metadata);

    gguf::ModelShape shape;
    shape.layers = source.architecture.layers;
    shape.experts = source.architecture.experts;
    shape.has_output =
        std::any_of(source.tensors.begin(), source.tensors.end(),
                    [](const PendingTensor &t) { return t.target.name == "output.weight"; });
    for (const PendingTensor &tensor : source.tensors) {
        gguf::TensorPlan item;
        item.name = tensor.target.name;
        item.dims.assign(tensor.shape.rbegin(), tensor.shape.rend());
        item.type = gguf::tensorTypeFor(quant, item.name, item.dims, shape);
        plan.tensors.push_back(std::move(item));
    }
    return plan;
}

torch::Tensor convertedValues(const ExportSource &source, const PendingTensor &tensor) {
    torch::Tensor values;
    if (tensor.experts.empty()) {
        values = tensor.values().detach().to(torch::kCPU, torch::kFloat32);
    } else {
        values = torch::empty(tensor.shape, torch::TensorOptions().dtype(torch::kFloat32));
        for (std::size_t e = 0; e < tensor.experts.size(); ++e) {
            values[static_cast<std::int64_t>(e)].copy_(tensor.experts[e]().detach());
        }
    }
    switch (tensor.target.transform) {
    case gguf::TensorTransform::PermuteQueryHeads:
        values = permuteHeads(values, source.architecture.heads);
        break;
    case gguf::TensorTransform::PermuteKeyHeads:
        values = permuteHeads(values, source.architecture.kv_heads);
        break;
    case gguf::TensorTransform::None:
        break;
    }
    return values.contiguous();
}

std::string quoted(const std::string &text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
        }
        out += c;
    }
    return out + "\"";
}

// FROM the file beside it, and a stop parameter for each end of a turn or of the text: the EOS
// and EOT tokens, the common end-of-turn markers and the control tokens the chat template
// writes whose text says "end" or "eot".
std::string writeModelfile(const ExportSource &source, const std::string &gguf_path) {
    const gguf::Vocabulary &vocabulary = source.vocabulary;
    std::vector<std::string> stops;
    const auto addStop = [&stops](const std::string &text) {
        if (!text.empty() && std::find(stops.begin(), stops.end(), text) == stops.end()) {
            stops.push_back(text);
        }
    };
    for (const auto &id : {vocabulary.eot, vocabulary.eos}) {
        if (id) {
            addStop(vocabulary.tokens.at(static_cast<std::size_t>(*id)));
        }
    }
    if (vocabulary.chat_template) {
        // Ends of turns of the common templates, also where they are not one token (a byte
        // tokenizer spells them out).
        for (const char *marker :
             {"<|im_end|>", "<|eot_id|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "</s>"}) {
            if (vocabulary.chat_template->find(marker) != std::string::npos) {
                addStop(marker);
            }
        }
        for (std::size_t id = 0; id < vocabulary.tokens.size(); ++id) {
            const std::string &text = vocabulary.tokens[id];
            const bool control =
                vocabulary.token_types[id] == static_cast<std::int32_t>(gguf::TokenType::Control);
            if (control && vocabulary.chat_template->find(text) != std::string::npos &&
                (text.find("end") != std::string::npos || text.find("eot") != std::string::npos)) {
                addStop(text);
            }
        }
    }
    const fs::path path = fs::path(gguf_path).parent_path() / "Modelfile";
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << "FROM ./" << fs::path(gguf_path).filename().string() << "\n";
    for (const std::string &stop : stops) {
        out << "PARAMETER stop " << quoted(stop) << "\n";
    }
    out.close();
    if (!out) {
        throw InputError("cannot write " + path.string());
    }
    return path.string();
}

void checkOutputPath(const std::string &path) {
    if (path.empty()) {
        throw InputError("the GGUF file path is empty");
    }
    const fs::path file(path);
    std::error_code error;
    if (fs::is_directory(file, error)) {
        throw InputError(path + " is a folder; give the path of the .gguf file to write");
    }
    const fs::path parent = file.has_parent_path() ? file.parent_path() : fs::path(".");
    if (!fs::is_directory(parent, error)) {
        throw InputError("the folder " + parent.string() + " of " + path + " does not exist");
    }
}

gguf::ExportQuant parseQuant(const std::string &text) {
    try {
        return gguf::parseExportQuant(text);
    } catch (const gguf::GgufError &error) {
        throw InputError(error.what());
    }
}

} // namespace

} // namespace gguf_export

GgufExport exportGguf(const GgufExportRequest &request) {
    using namespace gguf_export;
    const gguf::ExportQuant quant = parseQuant(request.quant);
    checkOutputPath(request.gguf_path);
    torch::NoGradGuard no_grad;
    GgufExport result;
    try {
        ExportSource source = loadExportSource(request.project_path, request.run_id);
        const GgufPlan plan = planExport(source, quant, request.project_path);
        gguf::FileWriter writer(request.gguf_path, plan.metadata, plan.tensors);
        for (std::size_t i = 0; i < source.tensors.size(); ++i) {
            const gguf::TensorPlan &target = plan.tensors[i];
            const torch::Tensor values = convertedValues(source, source.tensors[i]);
            const std::int64_t row = target.dims.at(0);
            if (target.type == gguf::TensorType::F32) {
                writer.writeNextTensor(values.data_ptr<float>(),
                                       static_cast<std::uint64_t>(values.numel()) * 4);
            } else {
                const std::int64_t rows = values.numel() / row;
                const std::uint64_t row_bytes = gguf::rowBytes(target.type, row);
                std::vector<std::uint8_t> bytes(static_cast<std::size_t>(rows) * row_bytes);
                const float *data = values.data_ptr<float>();
                at::parallel_for(0, rows, std::max<std::int64_t>(1, 65536 / row),
                                 [&](std::int64_t begin, std::int64_t end) {
                                     gguf::quantizeRowsInto(data + begin * row, end - begin, row,
                                                            target.type,
                                                            bytes.data() + begin * row_bytes);
                                 });
                writer.writeNextTensor(bytes.data(), bytes.size());
            }
        }
        writer.finish();
        result.file_bytes = writer.fileBytes();
        result.tensors = static_cast<std::int64_t>(plan.tensors.size());
        result.step = source.run.step;
        result.architecture = gguf::ggufArchitecture(source.architecture);
        result.quant = gguf::exportQuantName(quant);
        result.notes = source.notes;
        if (request.ollama_modelfile) {
            result.modelfile_path = writeModelfile(source, request.gguf_path);
        }
    } catch (const gguf::GgufError &error) {
        throw InputError(error.what());
    }
    return result;
}

std::vector<GgufSizeEstimate> estimateGgufSizes(const std::string &project_path,
                                                std::int64_t run_id) {
    using namespace gguf_export;
    torch::NoGradGuard no_grad;
    std::vector<GgufSizeEstimate> sizes;
    try {
        const ExportSource source = loadExportSource(project_path, run_id);
        for (gguf::ExportQuant quant : gguf::allExportQuants()) {
            const GgufPlan plan = planExport(source, quant, project_path);
            sizes.push_back({gguf::exportQuantName(quant),
                             gguf::plannedFileBytes(plan.metadata, plan.tensors)});
        }
    } catch (const gguf::GgufError &error) {
        throw InputError(error.what());
    }
    return sizes;
}

std::vector<std::string> ggufQuantNames() {
    std::vector<std::string> names;
    for (gguf::ExportQuant quant : gguf::allExportQuants()) {
        names.push_back(gguf::exportQuantName(quant));
    }
    return names;
}

} // namespace headroom
