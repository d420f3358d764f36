#include "cli/commands.h"
#include "cli/exit_codes.h"

#include <headroom/config.h>
#include <headroom/gguf_export.h>
#include <headroom/workflow.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <ostream>

namespace headroom::cli {

namespace {

std::string joined(const std::vector<std::string> &names) {
    std::string text;
    for (const std::string &name : names) {
        text += (text.empty() ? "" : "|") + name;
    }
    return text;
}

int runGgufExport(const Streams &streams, const GgufExportRequest &request) {
    const GgufExport written = exportGguf(request);
    streams.err << "wrote "
                << (request.run_id < 0 ? std::string("the base model")
                                       : "run " + std::to_string(request.run_id) + " at step " +
                                             std::to_string(written.step))
                << " to " << request.gguf_path << " (GGUF, " << written.architecture << ", "
                << written.quant << ", " << written.tensors << " tensors, " << written.file_bytes
                << " bytes)\n";
    if (!written.modelfile_path.empty()) {
        streams.err << "wrote " << written.modelfile_path << " (ollama create NAME -f "
                    << written.modelfile_path << ")\n";
    }
    for (const std::string &note : written.notes) {
        streams.err << "note: " << note << '\n';
    }
    return static_cast<int>(kExitSuccess);
}

} // namespace

CommandRunner addExportCommand(CLI::App &app, Streams streams) {
    CLI::App *command = app.add_subcommand(
        "export",
        "Export a run's metrics (CSV), weights (safetensors, Hugging Face, PEFT) or GGUF file");
    struct Options {
        std::string project;
        std::int64_t run = 0;
        std::string metrics;
        std::string weights;
        std::string lora;
        std::string hf;
        std::string adapter;
        std::string max_shard_size;
        std::string gguf;
        std::string quant = "q8_0";
        bool ollama = false;
    };
    auto options = std::make_shared<Options>();
    command->add_option("PROJECT", options->project, "Project file")->required();
    command
        ->add_option("--run", options->run,
                     "Run id (see `runs`); -1 with --hf or --gguf: the base model")
        ->required();
    CLI::Option *metrics = command->add_option("--metrics", options->metrics, "CSV file to write");
    CLI::Option *weights =
        command->add_option("--weights", options->weights, "safetensors file to write");
    CLI::Option *hf = command->add_option(
        "--hf", options->hf,
        "Folder to write a Hugging Face model into (pretrained projects; LoRA merged)");
    CLI::Option *adapter = command->add_option(
        "--adapter", options->adapter, "Folder to write a LoRA run's adapter into (PEFT layout)");
    command
        ->add_option("--max-shard-size", options->max_shard_size,
                     "With --hf: split weights larger than this into shards plus "
                     "model.safetensors.index.json, as save_pretrained does (default 5GB; "
                     "e.g. 500MB, 2GiB: GB = 10^9 bytes, GiB = 2^30)")
        ->needs(hf);
    CLI::Option *gguf = command->add_option(
        "--gguf", options->gguf,
        "GGUF file to write for llama.cpp, Ollama and LM Studio (LoRA merged; --run -1: the "
        "imported base)");
    command
        ->add_option("--quant", options->quant,
                     "With --gguf: " + joined(ggufQuantNames()) + " (default q8_0)")
        ->needs(gguf);
    command
        ->add_flag("--ollama", options->ollama,
                   "With --gguf: also write an Ollama Modelfile beside the file")
        ->needs(gguf);
    for (CLI::Option *other : {metrics, weights, hf, adapter}) {
        gguf->excludes(other);
    }
    metrics->excludes(weights);
    metrics->excludes(hf);
    metrics->excludes(adapter);
    weights->excludes(hf);
    weights->excludes(adapter);
    command
        ->add_option("--lora", options->lora,
                     "For a LoRA run: adapters (only the adapter tensors) or merged (base weights "
                     "with the adapters folded in; the default)")
        ->check(CLI::IsMember(std::vector<std::string>{"adapters", "merged"}))
        ->needs(weights);

    return [streams, options]() {
        if (options->metrics.empty() && options->weights.empty() && options->hf.empty() &&
            options->adapter.empty() && options->gguf.empty()) {
            streams.err << "headroom-cli: export needs --metrics FILE.csv, --weights "
                           "FILE.safetensors, --hf DIR, --adapter DIR or --gguf FILE\n";
            return static_cast<int>(kExitBadInput);
        }
        if (!options->gguf.empty()) {
            GgufExportRequest request;
            request.project_path = options->project;
            request.run_id = options->run;
            request.gguf_path = options->gguf;
            request.quant = options->quant;
            request.ollama_modelfile = options->ollama;
            return runGgufExport(streams, request);
        }
        if (!options->hf.empty() || !options->adapter.empty()) {
            if (!options->hf.empty()) {
                std::uint64_t max_shard_bytes = kDefaultMaxShardBytes;
                if (!options->max_shard_size.empty()) {
                    try {
                        max_shard_bytes = parseMaxShardSize(options->max_shard_size);
                    } catch (const InputError &error) {
                        streams.err << "headroom-cli: --max-shard-size: " << error.what() << '\n';
                        return static_cast<int>(kExitBadInput);
                    }
                }
                const HfExport written =
                    exportHfFolder(options->project, options->run, options->hf, max_shard_bytes);
                streams.err << "wrote "
                            << (options->run < 0 ? std::string("the base model")
                                                 : "run " + std::to_string(options->run) +
                                                       " at step " + std::to_string(written.step))
                            << " to " << options->hf << " (Hugging Face layout";
                if (written.weight_files.size() > 1) {
                    streams.err << ", " << written.weight_files.size()
                                << " shards listed in model.safetensors.index.json";
                }
                streams.err << ")\n";
                if (written.base_format != "fp32") {
                    streams.err << "the run held its base as " << written.base_format
                                << ": the folder has that base dequantized, the adapters merged "
                                   "in, in the base's own dtypes\n";
                }
            }
            if (!options->adapter.empty()) {
                const std::int64_t step =
                    exportPeftAdapter(options->project, options->run, options->adapter);
                streams.err << "wrote the LoRA adapter of run " << options->run << " at step "
                            << step << " to " << options->adapter << " (PEFT layout)\n";
            }
        } else if (!options->metrics.empty()) {
            const std::int64_t rows =
                exportMetricsCsv(options->project, options->run, options->metrics);
            streams.err << "wrote " << rows << " steps of run " << options->run << " to "
                        << options->metrics << '\n';
        } else {
            const LoraExport lora =
                options->lora.empty() ? LoraExport::Default : parseLoraExport(options->lora);
            const std::int64_t step =
                exportWeights(options->project, options->run, options->weights, lora);
            streams.err << "wrote the "
                        << (options->lora == "adapters" ? "LoRA adapters" : "weights") << " of run "
                        << options->run << " at step " << step << " to " << options->weights
                        << '\n';
        }
        return static_cast<int>(kExitSuccess);
    };
}

} // namespace headroom::cli
