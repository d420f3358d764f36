#include "recipes/sparse_ranking.h"

#include <algorithm>
#include <numeric>
#include <unordered_set>

namespace headroom::train {

std::int64_t InvertedIndex::add(const SparseVector &passage) {
    const std::int64_t number = passages_++;
    for (std::size_t i = 0; i < passage.terms.size(); ++i) {
        postings_[passage.terms[i]].push_back({number, passage.weights[i]});
    }
    return number;
}

std::vector<std::int64_t> InvertedIndex::top(const SparseVector &query, std::size_t k) const {
    std::vector<double> scores(static_cast<std::size_t>(passages_), 0.0);
    for (std::size_t i = 0; i < query.terms.size(); ++i) {
        const auto found = postings_.find(query.terms[i]);
        if (found == postings_.end()) {
            continue;
        }
        const double weight = query.weights[i];
        for (const Posting &posting : found->second) {
            scores[static_cast<std::size_t>(posting.passage)] += weight * posting.weight;
        }
    }
    std::vector<std::int64_t> order(scores.size());
    std::iota(order.begin(), order.end(), 0);
    const std::size_t count = std::min(k, order.size());
    const auto better = [&](std::int64_t a, std::int64_t b) {
        const double sa = scores[static_cast<std::size_t>(a)];
        const double sb = scores[static_cast<std::size_t>(b)];
        return sa != sb ? sa > sb : a < b;
    };
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count),
                      order.end(), better);
    order.resize(count);
    return order;
}

RetrievalQuality measureRetrieval(const InvertedIndex &index,
                                  const std::vector<SparseVector> &queries,
                                  const std::vector<std::vector<std::int64_t>> &relevant) {
    RetrievalQuality quality;
    for (std::size_t q = 0; q < queries.size(); ++q) {
        const std::unordered_set<std::int64_t> wanted(relevant[q].begin(), relevant[q].end());
        if (wanted.empty()) {
            continue;
        }
        const std::vector<std::int64_t> ranked = index.top(queries[q], 100);
        double reciprocal = 0;
        std::size_t found = 0;
        for (std::size_t rank = 0; rank < ranked.size(); ++rank) {
            if (wanted.count(ranked[rank]) == 0) {
                continue;
            }
            if (found == 0 && rank < 10) {
                reciprocal = 1.0 / static_cast<double>(rank + 1);
            }
            ++found;
        }
        quality.mrr_at_10 += reciprocal;
        quality.recall_at_100 += static_cast<double>(found) / static_cast<double>(wanted.size());
        ++quality.queries;
    }
    if (quality.queries > 0) {
        quality.mrr_at_10 /= static_cast<double>(quality.queries);
        quality.recall_at_100 /= static_cast<double>(quality.queries);
    }
    return quality;
}

} // namespace headroom::train
