// The record readers (text, JSONL, CSV) on untrusted data files. The first byte picks the
// format and whether the text field is wanted; the rest is the file. Anything but a DataError
// is a finding, and so is a reader that does not read the same records again after rewind().
#include "data/data_error.h"
#include "data/record_reader.h"
#include "fuzz_support.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kMaxRecords = 4096;

std::vector<std::string> readAll(headroom::data::RecordReader &reader) {
    std::vector<std::string> texts;
    headroom::data::Record record;
    while (texts.size() < kMaxRecords && reader.next(record)) {
        std::string joined = record.text;
        for (const std::string &field : record.fields) {
            joined += '\x1f' + field;
        }
        texts.push_back(std::move(joined));
    }
    return texts;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size < 1) {
        return 0;
    }
    static const std::string path = fuzzScratchPath("records");
    writeFuzzFile(path, data + 1, size - 1);

    headroom::data::DataSpec spec;
    spec.path = path;
    spec.format = static_cast<headroom::data::Format>(data[0] % 3);
    spec.text_field = (data[0] & 0x10) ? "b" : "text";
    const bool want_text = (data[0] & 0x08) != 0;
    try {
        headroom::data::RecordReader reader(spec, want_text);
        const std::vector<std::string> first = readAll(reader);
        reader.rewind();
        if (readAll(reader) != first) {
            std::abort(); // rewinding must give the same records
        }
    } catch (const headroom::data::DataError &) {
    }
    return 0;
}
