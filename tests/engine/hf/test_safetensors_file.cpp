#include "export/safetensors.h"
#include "hf/hf_error.h"
#include "hf/safetensors_file.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using headroom::exporting::TensorView;
using headroom::exporting::writeSafetensors;
using headroom::hf::ModelFolderError;
using headroom::hf::safetensorsDtypeSize;
using headroom::hf::SafetensorsFile;
using headroom::hf::TensorRecord;

namespace {

// 8-byte little-endian header length (the header's own size unless given), header, data.
QByteArray rawFile(const QByteArray &header, const QByteArray &data = {},
                   std::uint64_t length = UINT64_MAX) {
    if (length == UINT64_MAX) {
        length = static_cast<std::uint64_t>(header.size());
    }
    QByteArray bytes;
    for (int i = 0; i < 8; ++i) {
        bytes.append(static_cast<char>((length >> (8 * i)) & 0xff));
    }
    return bytes + header + data;
}

std::string writeBytes(const QTemporaryDir &dir, const QString &name, const QByteArray &bytes) {
    const std::string path = dir.filePath(name).toStdString();
    std::ofstream(path, std::ios::binary).write(bytes.constData(), bytes.size());
    return path;
}

// The message of the ModelFolderError that opening `path` throws ("" when it opens).
std::string openError(const std::string &path) {
    try {
        SafetensorsFile::open(path);
    } catch (const ModelFolderError &error) {
        return error.what();
    }
    return {};
}

bool contains(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}

const std::vector<float> kWeights = {0.5F, -1.0F, 2.0F, 4.0F, -8.0F, 16.0F};
const std::vector<std::uint16_t> kHalves = {0x3f80, 0xc000, 0x4040};
const std::vector<std::int64_t> kIds = {7, -3};
const std::vector<std::uint8_t> kBytes = {1, 2, 3, 4, 5};

} // namespace

class TestSafetensorsFile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void dtypeSizes();
    void writerFilesReadBack();
    void headerOnlyFiles();
    void badFilesAreRejected_data();
    void badFilesAreRejected();
    void truncatedFileIsRejected();
    void gapsAndEmptyTensorsAreAccepted();
    void innerKeysMayRepeatNames();
    void notAFile();
    void movedFilesKeepTheirMapping();
    void dataRefusesForeignRecords();
    void numelOfHandMadeRecords();
};

void TestSafetensorsFile::dtypeSizes() {
    QCOMPARE(safetensorsDtypeSize("F64"), std::size_t{8});
    QCOMPARE(safetensorsDtypeSize("F32"), std::size_t{4});
    QCOMPARE(safetensorsDtypeSize("F16"), std::size_t{2});
    QCOMPARE(safetensorsDtypeSize("BF16"), std::size_t{2});
    QCOMPARE(safetensorsDtypeSize("I64"), std::size_t{8});
    QCOMPARE(safetensorsDtypeSize("I32"), std::size_t{4});
    QCOMPARE(safetensorsDtypeSize("I16"), std::size_t{2});
    QCOMPARE(safetensorsDtypeSize("I8"), std::size_t{1});
    QCOMPARE(safetensorsDtypeSize("U8"), std::size_t{1});
    QCOMPARE(safetensorsDtypeSize("BOOL"), std::size_t{1});
    QCOMPARE(safetensorsDtypeSize("F8_E4M3"), std::size_t{1});
    QCOMPARE(safetensorsDtypeSize("F8_E5M2"), std::size_t{1});
    QCOMPARE(safetensorsDtypeSize("f32"), std::size_t{0});
    QCOMPARE(safetensorsDtypeSize("Q4_K"), std::size_t{0});
    QCOMPARE(safetensorsDtypeSize(""), std::size_t{0});
}

void TestSafetensorsFile::writerFilesReadBack() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("model.safetensors").toStdString();
    writeSafetensors(path,
                     {
                         {"model.layers.0.mlp.up_proj.weight", "F32", {2, 3}, kWeights.data(), 24},
                         {"model.norm.weight", "BF16", {3}, kHalves.data(), 6},
                         {"ids", "I64", {2}, kIds.data(), 16},
                         {"bytes", "U8", {5}, kBytes.data(), 5},
                         {"empty", "F16", {0, 4}, nullptr, 0},
                         {"scalar", "F32", {}, kWeights.data(), 4},
                     },
                     {{"format", "pt"}, {"note", "round trip"}});
    const SafetensorsFile file = SafetensorsFile::open(path);
    QCOMPARE(file.path(), path);
    QCOMPARE(file.fileSize(), static_cast<std::uint64_t>(std::filesystem::file_size(path)));
    QCOMPARE(file.tensors().size(), std::size_t{6});
    for (std::size_t i = 1; i < file.tensors().size(); ++i) {
        QVERIFY(file.tensors()[i - 1].begin <= file.tensors()[i].begin);
    }
    QCOMPARE(file.metadata().size(), std::size_t{2});
    QCOMPARE(file.metadata().at("note"), std::string("round trip"));

    const TensorRecord *up = file.find("model.layers.0.mlp.up_proj.weight");
    QVERIFY(up != nullptr);
    QCOMPARE(up->dtype, std::string("F32"));
    QCOMPARE(up->shape, (std::vector<std::int64_t>{2, 3}));
    QCOMPARE(up->numel(), std::int64_t{6});
    QCOMPARE(up->end - up->begin, std::uint64_t{24});
    QCOMPARE(std::memcmp(file.data(*up), kWeights.data(), 24), 0);

    const TensorRecord *norm = file.find("model.norm.weight");
    QVERIFY(norm != nullptr);
    QCOMPARE(norm->dtype, std::string("BF16"));
    QCOMPARE(std::memcmp(file.data(*norm), kHalves.data(), 6), 0);
    QCOMPARE(std::memcmp(file.data(*file.find("ids")), kIds.data(), 16), 0);
    QCOMPARE(std::memcmp(file.data(*file.find("bytes")), kBytes.data(), 5), 0);

    const TensorRecord *empty = file.find("empty");
    QVERIFY(empty != nullptr);
    QCOMPARE(empty->numel(), std::int64_t{0});
    QCOMPARE(empty->begin, empty->end);
    const TensorRecord *scalar = file.find("scalar");
    QVERIFY(scalar != nullptr);
    QVERIFY(scalar->shape.empty());
    QCOMPARE(scalar->numel(), std::int64_t{1});
    float value = 0;
    std::memcpy(&value, file.data(*scalar), sizeof value);
    QCOMPARE(value, 0.5F);

    QVERIFY(file.find("absent") == nullptr);
    QVERIFY(file.find("__metadata__") == nullptr);
}

void TestSafetensorsFile::headerOnlyFiles() {
    QTemporaryDir dir;
    const std::string written = dir.filePath("none.safetensors").toStdString();
    writeSafetensors(written, {}, {});
    const SafetensorsFile none = SafetensorsFile::open(written);
    QVERIFY(none.tensors().empty());
    QVERIFY(none.metadata().empty());

    // The smallest valid file: "{}" and no data at all.
    const std::string raw = writeBytes(dir, "raw.safetensors", rawFile("{}"));
    const SafetensorsFile smallest = SafetensorsFile::open(raw);
    QCOMPARE(smallest.fileSize(), std::uint64_t{10});
    QVERIFY(smallest.tensors().empty());

    const std::string meta =
        writeBytes(dir, "meta.safetensors", rawFile(R"({"__metadata__":{"format":"pt"}}  )"));
    QCOMPARE(SafetensorsFile::open(meta).metadata().at("format"), std::string("pt"));
    const std::string null_meta =
        writeBytes(dir, "null.safetensors", rawFile(R"({"__metadata__":null})"));
    QVERIFY(SafetensorsFile::open(null_meta).metadata().empty());
}

void TestSafetensorsFile::badFilesAreRejected_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    const QByteArray eight(8, 'x');
    const auto entry = [](const char *dtype, const char *shape, const char *offsets) {
        return QByteArray(R"({"w":{"dtype":)") + dtype + R"(,"shape":)" + shape +
               R"(,"data_offsets":)" + offsets + "}}";
    };

    QTest::newRow("shorter than 8 bytes") << QByteArray("abc") << "shorter than the 8-byte";
    QTest::newRow("empty file") << QByteArray() << "0 bytes, shorter";
    QTest::newRow("header length 0") << rawFile("", eight, 0) << "header length is 0";
    QTest::newRow("header length 2^63")
        << rawFile("{}", {}, std::uint64_t{1} << 63) << "9223372036854775808 is over the 100 MiB";
    QTest::newRow("header length 2^64-2")
        << rawFile("{}", {}, UINT64_MAX - 1) << "over the 100 MiB limit";
    QTest::newRow("header over 100 MiB")
        << rawFile("{}", {}, (100ULL << 20) + 1) << "over the 100 MiB limit";
    QTest::newRow("header past the end")
        << rawFile("{}", eight, 11) << "header length 11 runs past the end of the file (18 bytes)";
    QTest::newRow("not JSON") << rawFile("{{{{") << "not valid JSON: parse error at line 1";
    QTest::newRow("trailing garbage") << rawFile("{} x") << "not valid JSON";
    QTest::newRow("not an object") << rawFile("[1, 2]") << "header is an array, expected a JSON";
    QTest::newRow("not UTF-8") << rawFile("{\"w\xff\":1}") << "header is not UTF-8 (byte 11)";
    QTest::newRow("entry not an object")
        << rawFile(R"({"w":[1]})") << "tensor w: the entry is an array";
    QTest::newRow("no dtype") << rawFile(R"({"w":{"shape":[1],"data_offsets":[0,1]}})", eight)
                              << "tensor w: the entry has no dtype";
    QTest::newRow("no shape") << rawFile(R"({"w":{"dtype":"U8","data_offsets":[0,1]}})", eight)
                              << "tensor w: the entry has no shape";
    QTest::newRow("no data_offsets") << rawFile(R"({"w":{"dtype":"U8","shape":[1]}})", eight)
                                     << "tensor w: the entry has no data_offsets";
    QTest::newRow("unknown dtype") << rawFile(entry(R"("Q4")", "[2]", "[0,8]"), eight)
                                   << "tensor w: dtype \"Q4\" is not one of F64, F32";
    QTest::newRow("dtype not a string")
        << rawFile(entry("4", "[2]", "[0,8]"), eight) << "tensor w: dtype 4 is not one of";
    QTest::newRow("shape not an array")
        << rawFile(entry(R"("F32")", "2", "[0,8]"), eight) << "tensor w: shape is 2, expected";
    QTest::newRow("negative dimension")
        << rawFile(entry(R"("F32")", "[-2]", "[0,8]"), eight) << "dimension -2, expected";
    QTest::newRow("fractional dimension")
        << rawFile(entry(R"("F32")", "[1.5]", "[0,8]"), eight) << "dimension 1.5, expected";
    QTest::newRow("dimension above 2^63")
        << rawFile(entry(R"("U8")", "[9223372036854775808]", "[0,8]"), eight)
        << "dimension 9223372036854775808";
    QTest::newRow("bytes overflow 64 bits")
        << rawFile(entry(R"("F32")", "[4294967296, 4294967296]", "[0,8]"), eight)
        << "shape [4294967296, 4294967296] of dtype F32 has more than 2^64 bytes";
    QTest::newRow("offsets not a pair")
        << rawFile(entry(R"("F32")", "[2]", "[0]"), eight) << "data_offsets is [0], expected";
    QTest::newRow("offsets negative")
        << rawFile(entry(R"("F32")", "[2]", "[-1,7]"), eight) << "data_offsets is [-1,7]";
    QTest::newRow("offsets not numbers")
        << rawFile(entry(R"("F32")", "[2]", R"({"a":1})"), eight) << "data_offsets is an object";
    QTest::newRow("begin after end")
        << rawFile(entry(R"("F32")", "[0]", "[8,4]"), eight) << "[8, 4] end before they begin";
    QTest::newRow("end past the data")
        << rawFile(entry(R"("F32")", "[4]", "[0,16]"), eight)
        << "tensor w: data_offsets [0, 16] run past the end of the data section (8 bytes)";
    QTest::newRow("size mismatch")
        << rawFile(entry(R"("F32")", "[2]", "[0,4]"), eight)
        << "data_offsets [0, 4] hold 4 bytes, dtype F32 and shape [2] need 8";
    QTest::newRow("overlap") << rawFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                        R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                                        eight)
                             << "tensors a (bytes 0 to 8) and b (bytes 4 to 8) overlap";
    QTest::newRow("contained overlap")
        << rawFile(R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},)"
                   R"("b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]},)"
                   R"("c":{"dtype":"U8","shape":[1],"data_offsets":[5,6]}})",
                   eight)
        << "tensors a (bytes 0 to 8) and b (bytes 2 to 4) overlap";
    QTest::newRow("same range twice")
        << rawFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                   R"("b":{"dtype":"I32","shape":[2],"data_offsets":[0,8]}})",
                   eight)
        << "tensors a (bytes 0 to 8) and b (bytes 0 to 8) overlap";
    QTest::newRow("name twice") << rawFile(
                                       R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                                       R"("a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
                                       eight)
                                << "the header names \"a\" twice";
    QTest::newRow("metadata value not a string")
        << rawFile(R"({"__metadata__":{"step":3}})") << "__metadata__ key \"step\" is 3, expected";
    QTest::newRow("metadata not an object")
        << rawFile(R"({"__metadata__":"pt"})") << "__metadata__ is \"pt\", expected an object";
    QTest::newRow("number overflow") << rawFile(R"({"w":1e999})") << "not valid JSON";
}

void TestSafetensorsFile::badFilesAreRejected() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const std::string path = writeBytes(dir, "bad.safetensors", bytes);
    const std::string message = openError(path);
    QVERIFY2(!message.empty(), "a bad file was accepted");
    QVERIFY2(contains(message, path + ": "), message.c_str());
    QVERIFY2(contains(message, expected.toStdString()), message.c_str());
}

void TestSafetensorsFile::truncatedFileIsRejected() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("cut.safetensors").toStdString();
    writeSafetensors(
        path, {{"a", "F32", {6}, kWeights.data(), 24}, {"b", "U8", {5}, kBytes.data(), 5}}, {});
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 3);
    const std::string message = openError(path);
    QVERIFY2(contains(message, path + ": tensor b: data_offsets [24, 29] run past the end of the "
                                      "data section (26 bytes)"),
             message.c_str());

    // Cut inside the header: the length no longer fits the file.
    std::filesystem::resize_file(path, 20);
    QVERIFY2(contains(openError(path), "runs past the end of the file (20 bytes)"),
             openError(path).c_str());
}

void TestSafetensorsFile::gapsAndEmptyTensorsAreAccepted() {
    QTemporaryDir dir;
    // Bytes 4-8 belong to nothing, and empty tensors sit at offsets other tensors use.
    const std::string path = writeBytes(
        dir, "gaps.safetensors",
        rawFile(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                R"("e1":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},)"
                R"("e2":{"dtype":"BF16","shape":[3,0,2],"data_offsets":[2,2]},)"
                R"("e3":{"dtype":"U8","shape":[0,9223372036854775807],"data_offsets":[12,12]},)"
                R"("b":{"dtype":"U8","shape":[4],"data_offsets":[8,12]},)"
                R"("extra":{"dtype":"U8","shape":[0],"data_offsets":[0,0],"note":[1,{"x":2}]}})",
                QByteArray("abcdefghijkl")));
    const SafetensorsFile file = SafetensorsFile::open(path);
    QCOMPARE(file.tensors().size(), std::size_t{6});
    QCOMPARE(file.find("e3")->numel(), std::int64_t{0});
    QCOMPARE(std::string(reinterpret_cast<const char *>(file.data(*file.find("b"))), 4),
             std::string("ijkl"));
    QCOMPARE(file.tensors().front().begin, std::uint64_t{0});
    QCOMPARE(file.tensors().back().name, std::string("e3"));
}

void TestSafetensorsFile::innerKeysMayRepeatNames() {
    QTemporaryDir dir;
    // Only top-level names must be unique; an entry's keys are another level.
    const std::string path =
        writeBytes(dir, "inner.safetensors",
                   rawFile(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                           R"("b":{"dtype":"U8","shape":[1],"data_offsets":[1,2],"a":1}})",
                           "xy"));
    QCOMPARE(SafetensorsFile::open(path).tensors().size(), std::size_t{2});
}

void TestSafetensorsFile::notAFile() {
    QTemporaryDir dir;
    const std::string missing = dir.filePath("missing.safetensors").toStdString();
    QVERIFY(contains(openError(missing), missing + ": cannot be opened"));
    const std::string folder = dir.path().toStdString();
    QVERIFY(contains(openError(folder), folder + ": not a regular file"));
}

void TestSafetensorsFile::movedFilesKeepTheirMapping() {
    QTemporaryDir dir;
    std::vector<SafetensorsFile> files;
    for (int i = 0; i < 6; ++i) { // enough to make the vector move its elements
        const std::string path = dir.filePath(QString("f%1.safetensors").arg(i)).toStdString();
        writeSafetensors(path, {{"w", "U8", {5}, kBytes.data(), 5}}, {});
        files.push_back(SafetensorsFile::open(path));
    }
    for (const SafetensorsFile &file : files) {
        QCOMPARE(std::memcmp(file.data(*file.find("w")), kBytes.data(), 5), 0);
    }
    SafetensorsFile moved = std::move(files[0]);
    files[1] = std::move(moved);
    QCOMPARE(std::memcmp(files[1].data(*files[1].find("w")), kBytes.data(), 5), 0);
    QCOMPARE(files[1].path(), dir.filePath("f0.safetensors").toStdString());
}

void TestSafetensorsFile::dataRefusesForeignRecords() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("one.safetensors").toStdString();
    writeSafetensors(path, {{"w", "U8", {5}, kBytes.data(), 5}}, {});
    const SafetensorsFile file = SafetensorsFile::open(path);
    TensorRecord foreign = *file.find("w");
    foreign.end = 4096;
    QVERIFY_THROWS_EXCEPTION(ModelFolderError, file.data(foreign));
    foreign.begin = 5;
    foreign.end = 5;
    QVERIFY(file.data(foreign) != nullptr); // an empty tensor at the very end
}

void TestSafetensorsFile::numelOfHandMadeRecords() {
    TensorRecord record;
    QCOMPARE(record.numel(), std::int64_t{1});
    record.shape = {3, 0, INT64_MAX};
    QCOMPARE(record.numel(), std::int64_t{0});
    record.shape = {INT64_MAX, 2};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, record.numel());
    record.shape = {-1};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, record.numel());
}

QTEST_GUILESS_MAIN(TestSafetensorsFile)
#include "test_safetensors_file.moc"
