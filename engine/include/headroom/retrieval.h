// Using a SPLADE run: texts to sparse vocabulary vectors (a file at a time, or a query tried
// against a few passages).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace headroom {

struct EncodeRequest {
    std::string project_path;
    // 0: the newest run with a checkpoint, else the base model; -1: the base model.
    std::int64_t run_id = 0;
    // One text per line: plain text (its id is the line number), or a JSON object with "text"
    // and optionally "id". Blank lines are skipped.
    std::string input_path;
    std::string output_path; // JSON lines {"id": ..., "vector": {"token": weight, ...}}
    std::int64_t top = 0;    // the largest weights kept per vector; 0 = every non-zero one
    std::int64_t batch = 32; // texts per forward pass
};

struct EncodeReport {
    std::int64_t run_id = 0; // 0: the base model
    std::int64_t step = 0;
    std::int64_t texts = 0;
    double mean_nonzeros = 0; // per vector, before `top`
    double seconds = 0;
};

// Reads the input as it goes and writes the output next to its final name, renamed into place
// at the end (a stopped or failed encode leaves no half file). progress(bytes read, input
// size, texts written). Throws InputError: not a splade project, unknown run, missing input,
// a bad line (FILE:LINE: problem), an unwritable output; ProjectError.
EncodeReport
encodeTexts(const EncodeRequest &request,
            const std::function<void(std::uint64_t, std::uint64_t, std::int64_t)> &progress = {},
            const std::atomic<bool> *stop = nullptr);

struct TermWeight {
    std::string token;
    double weight = 0;
};

struct RankedPassage {
    std::size_t index = 0;                // into the passages given
    double score = 0;                     // the dot product with the query
    std::vector<TermWeight> shared_terms; // query x passage weight per shared term, largest first
};

struct RetrievalTrial {
    std::int64_t run_id = 0;
    std::int64_t step = 0;
    std::vector<TermWeight> query_terms; // largest first, at most `top_terms`
    std::vector<RankedPassage> ranking;  // every passage, best first
};

// Scores each passage for the query with a run's (or the base's) encoder. Throws InputError
// (not a splade project, empty query, no passages), ProjectError.
RetrievalTrial tryRetrieval(const std::string &project_path, std::int64_t run_id,
                            const std::string &query, const std::vector<std::string> &passages,
                            std::size_t top_terms = 20);

} // namespace headroom
