// Headroom side of tokenizer_benchmark.sh: encodes the documents of a text file (one per line,
// "\n" escaped as \n) one at a time on one thread and prints MB/s and the total token count.
//   tokenizer_benchmark TOKENIZER DOCUMENTS_FILE [REPEATS=3]
#include <headroom/tokenizer.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: tokenizer_benchmark TOKENIZER DOCUMENTS_FILE [REPEATS]\n");
        return 2;
    }
    const int repeats = argc > 3 ? std::stoi(argv[3]) : 3;
    const headroom::HfTokenizer tokenizer = headroom::HfTokenizer::load(argv[1]);
    std::ifstream in(argv[2], std::ios::binary);
    std::vector<std::string> documents;
    std::size_t bytes = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) {
            continue;
        }
        std::string document;
        for (std::size_t i = 0; i < line.size(); ++i) {
            if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == 'n') {
                document.push_back('\n');
                ++i;
            } else {
                document.push_back(line[i]);
            }
        }
        bytes += document.size();
        documents.push_back(std::move(document));
    }
    double best = 1e30;
    std::size_t tokens = 0;
    for (int r = 0; r < repeats; ++r) {
        tokens = 0;
        const auto start = std::chrono::steady_clock::now();
        for (const std::string &document : documents) {
            tokens += tokenizer.encodeIds(document, false).size();
        }
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        best = std::min(best, elapsed.count());
    }
    std::printf("{\"mb_per_s\":%.3f,\"tokens\":%zu,\"bytes\":%zu,\"seconds\":%.4f}\n",
                static_cast<double>(bytes) / 1e6 / best, tokens, bytes, best);
    return 0;
}
