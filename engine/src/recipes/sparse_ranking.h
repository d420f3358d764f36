// Ranking sparse vectors through an inverted index, and the retrieval measures of the
// validation split (SPLADE). Torch-free.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace headroom::train {

// A vocabulary-sized vector's non-zero entries.
struct SparseVector {
    std::vector<std::int32_t> terms;
    std::vector<float> weights;
};

// Passages indexed term by term; a query's score for a passage is the dot product.
class InvertedIndex {
public:
    // Returns the passage's number (0, 1, ... in the order added).
    std::int64_t add(const SparseVector &passage);
    std::int64_t size() const { return passages_; }
    // The `k` best passages for the query, best first (ties: lower number first). Passages
    // sharing no term with the query score 0 and are ranked too when fewer than k score above.
    std::vector<std::int64_t> top(const SparseVector &query, std::size_t k) const;

private:
    struct Posting {
        std::int64_t passage;
        float weight;
    };
    std::unordered_map<std::int32_t, std::vector<Posting>> postings_;
    std::int64_t passages_ = 0;
};

// Mean reciprocal rank of the first relevant passage within the top 10 (0 when none is), and
// the mean share of each query's relevant passages found within the top 100.
struct RetrievalQuality {
    double mrr_at_10 = 0;
    double recall_at_100 = 0;
    std::int64_t queries = 0;
};

// `relevant[i]`: the passage numbers relevant to queries[i].
RetrievalQuality measureRetrieval(const InvertedIndex &index,
                                  const std::vector<SparseVector> &queries,
                                  const std::vector<std::vector<std::int64_t>> &relevant);

} // namespace headroom::train
