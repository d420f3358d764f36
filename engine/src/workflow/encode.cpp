// encodeTexts and tryRetrieval: a SPLADE run's encoder applied to texts.
#include "data/data_error.h"
#include "data/example_stream.h"
#include "data/line_reader.h"
#include "recipes/splade_recipe.h"
#include "tokenizers/hf_data_tokenizer.h"
#include "workflow/run_model.h"

#include <headroom/config.h>
#include <headroom/project.h>
#include <headroom/retrieval.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace headroom {

namespace {

workflow::RunModel loadSpladeModel(const std::string &project_path, std::int64_t run_id) {
    Project project = Project::openForReading(project_path);
    const Config config = Config::fromJson(project.configJson());
    if (config.text("recipe") != "splade") {
        throw InputError(project_path + " trains recipe=" + config.text("recipe") +
                         "; encoding texts into sparse vectors needs a splade project");
    }
    return workflow::loadRunModel(project, run_id);
}

// The vocabulary's spelling of an id ("##ing"), or "#id" for an id it lacks.
std::string tokenText(const data::Tokenizer &tokenizer, std::int32_t id) {
    if (const auto *hf = dynamic_cast<const tokenizers::HfDataTokenizer *>(&tokenizer)) {
        if (const auto token = hf->tokenizer().idToToken(id)) {
            return *token;
        }
    }
    return "#" + std::to_string(id);
}

// A weight as it prints with six significant digits (a float's precision), not seventeen.
double sixDigits(float weight) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", static_cast<double>(weight));
    return std::strtod(text, nullptr);
}

struct PendingText {
    nlohmann::json id;
    std::vector<std::int32_t> tokens;
};

// A line's id and text: a JSON object with "text" (and "id"), or the line itself.
PendingText readLine(const std::string &line, std::int64_t number, const std::string &path,
                     const data::Tokenizer &tokenizer, std::int64_t max_length) {
    PendingText text;
    text.id = number;
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (line[first] != '{') {
        text.tokens = data::encoderTokens(tokenizer, line, max_length);
        return text;
    }
    const nlohmann::json object = nlohmann::json::parse(line, nullptr, false);
    if (!object.is_object()) {
        throw data::DataError(path, number, "the line starts with '{' but is not a JSON object");
    }
    const auto field = object.find("text");
    if (field == object.end() || !field->is_string()) {
        throw data::DataError(path, number, "the JSON object has no string field \"text\"");
    }
    if (const auto id = object.find("id"); id != object.end()) {
        if (!id->is_primitive() || id->is_null()) {
            throw data::DataError(path, number, "the field \"id\" must be a string or a number");
        }
        text.id = *id;
    }
    text.tokens = data::encoderTokens(tokenizer, field->get<std::string>(), max_length);
    return text;
}

} // namespace

EncodeReport
encodeTexts(const EncodeRequest &request,
            const std::function<void(std::uint64_t, std::uint64_t, std::int64_t)> &progress,
            const std::atomic<bool> *stop) {
    const auto started = std::chrono::steady_clock::now();
    if (!std::filesystem::is_regular_file(request.input_path)) {
        throw InputError(request.input_path + ": no such file");
    }
    if (request.batch < 1 || request.top < 0) {
        throw InputError("the batch must be at least 1 and top at least 0");
    }
    workflow::RunModel model = loadSpladeModel(request.project_path, request.run_id);
    const data::Tokenizer &tokenizer = *model.prepared.tokenizer;
    const std::int64_t max_length = model.config.integer("model.seq_len");
    const std::string partial = request.output_path + ".partial";
    std::ofstream out(partial, std::ios::trunc);
    if (!out) {
        throw InputError("cannot write " + request.output_path);
    }
    EncodeReport report;
    report.run_id = model.run_id;
    report.step = model.step;
    double nonzeros = 0;
    const auto flush = [&](std::vector<PendingText> &pending) {
        if (pending.empty()) {
            return;
        }
        std::vector<std::vector<std::int32_t>> texts;
        for (PendingText &text : pending) {
            texts.push_back(std::move(text.tokens));
        }
        torch::Tensor vectors;
        {
            torch::NoGradGuard no_grad;
            vectors = model.recipe->textVectors(texts);
        }
        nonzeros += vectors.ne(0).sum().item<double>();
        const std::vector<train::SparseVector> rows = train::sparseRows(vectors, request.top);
        for (std::size_t i = 0; i < pending.size(); ++i) {
            nlohmann::ordered_json weights = nlohmann::ordered_json::object();
            for (std::size_t t = 0; t < rows[i].terms.size(); ++t) {
                weights[tokenText(tokenizer, rows[i].terms[t])] = sixDigits(rows[i].weights[t]);
            }
            nlohmann::ordered_json line;
            line["id"] = pending[i].id;
            line["vector"] = std::move(weights);
            out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        }
        report.texts += static_cast<std::int64_t>(pending.size());
        pending.clear();
    };
    try {
        data::LineReader lines(request.input_path);
        std::vector<PendingText> pending;
        std::string line;
        while (lines.readLine(line)) {
            if (stop != nullptr && stop->load()) {
                out.close();
                std::filesystem::remove(partial);
                throw InputError("encoding stopped; " + request.output_path + " not written");
            }
            if (line.find_first_not_of(" \t\r") == std::string::npos) {
                continue;
            }
            pending.push_back(
                readLine(line, lines.lineNumber(), request.input_path, tokenizer, max_length));
            if (static_cast<std::int64_t>(pending.size()) == request.batch) {
                flush(pending);
                if (progress) {
                    progress(lines.offset(), lines.fileSize(), report.texts);
                }
            }
        }
        flush(pending);
        if (progress) {
            progress(lines.fileSize(), lines.fileSize(), report.texts);
        }
    } catch (const data::DataError &error) {
        out.close();
        std::filesystem::remove(partial);
        throw InputError(error.what());
    }
    out.close();
    if (!out) {
        std::filesystem::remove(partial);
        throw InputError("cannot write " + request.output_path + " (disk full?)");
    }
    std::filesystem::rename(partial, request.output_path);
    report.mean_nonzeros = report.texts > 0 ? nonzeros / static_cast<double>(report.texts) : 0;
    report.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report;
}

RetrievalTrial tryRetrieval(const std::string &project_path, std::int64_t run_id,
                            const std::string &query, const std::vector<std::string> &passages,
                            std::size_t top_terms) {
    if (query.find_first_not_of(" \t\r\n") == std::string::npos) {
        throw InputError("the query is empty");
    }
    if (passages.empty()) {
        throw InputError("no passages to rank");
    }
    workflow::RunModel model = loadSpladeModel(project_path, run_id);
    const data::Tokenizer &tokenizer = *model.prepared.tokenizer;
    const std::int64_t max_length = model.config.integer("model.seq_len");
    std::vector<std::vector<std::int32_t>> texts = {
        data::encoderTokens(tokenizer, query, max_length)};
    for (const std::string &passage : passages) {
        texts.push_back(data::encoderTokens(tokenizer, passage, max_length));
    }
    torch::Tensor vectors;
    {
        torch::NoGradGuard no_grad;
        vectors = model.recipe->textVectors(texts).to(torch::kFloat32);
    }
    RetrievalTrial trial;
    trial.run_id = model.run_id;
    trial.step = model.step;
    const std::vector<train::SparseVector> rows = train::sparseRows(vectors);
    for (std::size_t t = 0; t < rows[0].terms.size() && t < top_terms; ++t) {
        trial.query_terms.push_back(
            {tokenText(tokenizer, rows[0].terms[t]), static_cast<double>(rows[0].weights[t])});
    }
    const torch::Tensor scores =
        torch::matmul(vectors.narrow(0, 1, vectors.size(0) - 1), vectors[0]);
    const torch::Tensor shared = vectors.narrow(0, 1, vectors.size(0) - 1) * vectors[0];
    const std::vector<train::SparseVector> contributions = train::sparseRows(shared);
    for (std::size_t p = 0; p < passages.size(); ++p) {
        RankedPassage ranked;
        ranked.index = p;
        ranked.score = scores[static_cast<std::int64_t>(p)].item<double>();
        const train::SparseVector &terms = contributions[p];
        for (std::size_t t = 0; t < terms.terms.size() && t < top_terms; ++t) {
            ranked.shared_terms.push_back(
                {tokenText(tokenizer, terms.terms[t]), static_cast<double>(terms.weights[t])});
        }
        trial.ranking.push_back(std::move(ranked));
    }
    std::stable_sort(
        trial.ranking.begin(), trial.ranking.end(),
        [](const RankedPassage &a, const RankedPassage &b) { return a.score > b.score; });
    return trial;
}

} // namespace headroom
