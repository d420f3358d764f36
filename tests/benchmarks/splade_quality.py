#!/usr/bin/python3
"""MRR@10 and Recall@100 of the SPLADE benchmark's test queries (tests/benchmarks/splade.sh).

  splade_quality.py DATA_DIR bm25
  splade_quality.py DATA_DIR QUERY_VECTORS.jsonl CORPUS_VECTORS.jsonl

bm25: Okapi BM25 (k1 = 0.9, b = 0.4, Lucene's idf) over the whitespace words of corpus.txt.
Otherwise: dot products of the sparse vectors headroom-cli encode wrote, one JSON line per
query / passage in file order. Prints "MRR@10 RECALL@100".
"""

import json
import math
import os
import sys
from collections import Counter


def rank_quality(scores_of, queries, qrels):
    reciprocal, recall = 0.0, 0.0
    for q, relevant in enumerate(qrels):
        scores = scores_of(q)
        order = sorted(range(len(scores)), key=lambda d: (-scores[d], d))
        rank = order.index(relevant)
        reciprocal += 1.0 / (rank + 1) if rank < 10 else 0.0
        recall += 1.0 if rank < 100 else 0.0
    return reciprocal / len(qrels), recall / len(qrels)


def bm25(queries, corpus, k1=0.9, b=0.4):
    docs = [Counter(text.split()) for text in corpus]
    lengths = [sum(d.values()) for d in docs]
    average = sum(lengths) / len(lengths)
    frequency = Counter(word for d in docs for word in d)
    n = len(docs)

    def idf(word):
        df = frequency.get(word, 0)
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def scores(q):
        out = []
        for d, length in zip(docs, lengths):
            s = 0.0
            for word in queries[q].split():
                tf = d.get(word, 0)
                if tf:
                    s += idf(word) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / average))
            out.append(s)
        return out

    return scores


def read_vectors(path):
    with open(path) as f:
        return [json.loads(line)["vector"] for line in f if line.strip()]


def main():
    data = sys.argv[1]
    with open(os.path.join(data, "queries.txt")) as f:
        queries = [line.rstrip("\n") for line in f]
    with open(os.path.join(data, "corpus.txt")) as f:
        corpus = [line.rstrip("\n") for line in f]
    with open(os.path.join(data, "qrels.json")) as f:
        qrels = json.load(f)
    if sys.argv[2] == "bm25":
        scores_of = bm25(queries, corpus)
    else:
        query_vectors = read_vectors(sys.argv[2])
        corpus_vectors = read_vectors(sys.argv[3])

        def scores_of(q):
            query = query_vectors[q]
            return [sum(w * doc.get(t, 0.0) for t, w in query.items()) for doc in corpus_vectors]

    mrr, recall = rank_quality(scores_of, queries, qrels)
    print(f"{mrr:.4f} {recall:.4f}")


if __name__ == "__main__":
    main()
