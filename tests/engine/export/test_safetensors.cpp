#include "export/safetensors.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

using headroom::exporting::readSafetensorsHeader;
using headroom::exporting::SafetensorsEntry;
using headroom::exporting::TensorView;
using headroom::exporting::writeSafetensors;

namespace {

namespace fs = std::filesystem;

std::string readFile(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <typename T> std::string bytesOf(const std::vector<T> &values) {
    return std::string(reinterpret_cast<const char *>(values.data()), values.size() * sizeof(T));
}

const std::vector<std::int64_t> kIntegers = {7};
const std::vector<float> kFloats = {1.0F, -2.0F};

// "b" is given first: the file sorts tensors by name.
std::vector<TensorView> tinyTensors() {
    return {
        {"b", "F32", {2}, kFloats.data(), 8},
        {"a", "I64", {1, 1}, kIntegers.data(), 8},
    };
}

} // namespace

class TestSafetensors : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void byteLayoutOfATinyFile();
    void headerReadsBack();
    void emptyAndScalarTensors();
    void inconsistentViewsAreRejected_data();
    void inconsistentViewsAreRejected();
    void unwritablePathNamesTheFile();
    void damagedFilesAreRejected_data();
    void damagedFilesAreRejected();
    void pythonReadsTheFile();
};

void TestSafetensors::byteLayoutOfATinyFile() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("tiny.safetensors").toStdString();
    writeSafetensors(path, tinyTensors(), {{"format", "pt"}});

    const std::string header = R"({"__metadata__":{"format":"pt"},)"
                               R"("a":{"dtype":"I64","shape":[1,1],"data_offsets":[0,8]},)"
                               R"("b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})"
                               "   "; // 141 bytes of JSON, padded to 144
    const std::string expected =
        std::string("\x90\0\0\0\0\0\0\0", 8) + header + bytesOf(kIntegers) + bytesOf(kFloats);
    const std::string actual = readFile(path);
    QCOMPARE(actual.size(), std::size_t{8 + 144 + 16});
    QCOMPARE(QByteArray::fromStdString(actual), QByteArray::fromStdString(expected));

    // The same facts, read as a consumer would, without trusting the golden string above.
    std::uint64_t length = 0;
    for (int i = 7; i >= 0; --i) {
        length = (length << 8) | static_cast<unsigned char>(actual[static_cast<std::size_t>(i)]);
    }
    QCOMPARE(length % 8, std::uint64_t{0});
    QJsonParseError error{};
    const QJsonObject json =
        QJsonDocument::fromJson(QByteArray::fromStdString(actual.substr(8, length)), &error)
            .object();
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(json["b"]["data_offsets"].toArray(), QJsonArray({8, 16}));
    QCOMPARE(json["__metadata__"]["format"].toString(), QString("pt"));
    float second = 0;
    std::memcpy(&second, actual.data() + 8 + length + 8 + 4, sizeof second);
    QCOMPARE(second, -2.0F);
    QVERIFY(!fs::exists(path + ".partial"));
}

void TestSafetensors::headerReadsBack() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("tiny.safetensors").toStdString();
    writeSafetensors(path, tinyTensors(), {{"format", "pt"}, {"headroom.run", "3"}});
    std::map<std::string, std::string> metadata;
    const auto entries = readSafetensorsHeader(path, &metadata);
    QCOMPARE(entries.size(), std::size_t{2});
    const SafetensorsEntry &a = entries.at("a");
    QCOMPARE(a.dtype, std::string("I64"));
    QCOMPARE(a.shape, (std::vector<std::int64_t>{1, 1}));
    QCOMPARE(a.begin, std::uint64_t{0});
    QCOMPARE(a.end, std::uint64_t{8});
    QCOMPARE(entries.at("b").begin, std::uint64_t{8});
    QCOMPARE(entries.at("b").end, std::uint64_t{16});
    QCOMPARE(metadata.size(), std::size_t{2});
    QCOMPARE(metadata.at("headroom.run"), std::string("3"));

    // Writing again replaces the file as a whole.
    writeSafetensors(path, {{"only", "U8", {3}, "xyz", 3}}, {});
    metadata.clear();
    const auto replaced = readSafetensorsHeader(path, &metadata);
    QCOMPARE(replaced.size(), std::size_t{1});
    QVERIFY(metadata.empty());
    QCOMPARE(readFile(path).substr(readFile(path).size() - 3), std::string("xyz"));
}

void TestSafetensors::emptyAndScalarTensors() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("edge.safetensors").toStdString();
    const double scalar = 3.5;
    writeSafetensors(path,
                     {{"empty", "F32", {0, 4}, nullptr, 0}, {"scalar", "F64", {}, &scalar, 8}}, {});
    const auto entries = readSafetensorsHeader(path);
    QCOMPARE(entries.at("empty").begin, entries.at("empty").end);
    QCOMPARE(entries.at("empty").shape, (std::vector<std::int64_t>{0, 4}));
    QVERIFY(entries.at("scalar").shape.empty());
    QCOMPARE(entries.at("scalar").end - entries.at("scalar").begin, std::uint64_t{8});

    const std::string none = dir.filePath("none.safetensors").toStdString();
    writeSafetensors(none, {}, {});
    QCOMPARE(readFile(none), std::string("\x08\0\0\0\0\0\0\0{}      ", 16));
    QVERIFY(readSafetensorsHeader(none).empty());
}

void TestSafetensors::inconsistentViewsAreRejected_data() {
    QTest::addColumn<QString>("problem");
    QTest::addColumn<QString>("expected");
    QTest::newRow("duplicate") << "duplicate"
                               << "'w' appears twice";
    QTest::newRow("byte count") << "byte count"
                                << "'w' has 12 bytes, its shape and dtype need 8";
    QTest::newRow("dtype") << "dtype"
                           << "unknown dtype 'F31'";
    QTest::newRow("negative") << "negative"
                              << "negative dimension";
    QTest::newRow("reserved name") << "reserved name"
                                   << "invalid tensor name '__metadata__'";
    QTest::newRow("no data") << "no data"
                             << "'w' has no data";
}

void TestSafetensors::inconsistentViewsAreRejected() {
    QFETCH(QString, problem);
    QFETCH(QString, expected);
    const std::vector<float> data(3, 0.0F);
    std::vector<TensorView> views = {{"w", "F32", {2}, data.data(), 8}};
    if (problem == "duplicate") {
        views.push_back(views.front());
    } else if (problem == "byte count") {
        views[0].bytes = 12;
    } else if (problem == "dtype") {
        views[0].dtype = "F31";
    } else if (problem == "negative") {
        views[0].shape = {-2};
    } else if (problem == "reserved name") {
        views[0].name = "__metadata__";
    } else if (problem == "no data") {
        views[0].data = nullptr;
    }
    QTemporaryDir dir;
    const std::string path = dir.filePath("bad.safetensors").toStdString();
    try {
        writeSafetensors(path, views, {});
        QFAIL("the inconsistent view was written");
    } catch (const std::invalid_argument &error) {
        QVERIFY2(std::string(error.what()).find(expected.toStdString()) != std::string::npos,
                 error.what());
        QVERIFY2(std::string(error.what()).find(path) != std::string::npos, error.what());
    }
    QVERIFY(!fs::exists(path));
    QVERIFY(!fs::exists(path + ".partial"));
}

void TestSafetensors::unwritablePathNamesTheFile() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("missing/folder/w.safetensors").toStdString();
    try {
        writeSafetensors(path, tinyTensors(), {});
        QFAIL("wrote into a folder that does not exist");
    } catch (const std::runtime_error &error) {
        QVERIFY2(std::string(error.what()).find(path) != std::string::npos, error.what());
    }
}

void TestSafetensors::damagedFilesAreRejected_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    QTest::newRow("short") << QByteArray("abc") << "too short";
    QTest::newRow("huge header") << QByteArray("\xff\xff\xff\xff\0\0\0\0{}", 10)
                                 << "does not fit the file";
    QTest::newRow("not json") << QByteArray("\x08\0\0\0\0\0\0\0{{{{{{{{", 16)
                              << "not a JSON object";
    QTest::newRow("offsets past the end")
        << QByteArray("\x38\0\0\0\0\0\0\0"
                      R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}}   )"
                      "ab",
                      66)
        << "outside the 2 data bytes";
    QTest::newRow("metadata not text") << QByteArray("\x18\0\0\0\0\0\0\0"
                                                     R"({"__metadata__":{"a":1}})",
                                                     32)
                                       << "metadata 'a' is not a string";
}

void TestSafetensors::damagedFilesAreRejected() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const std::string path = dir.filePath("damaged.safetensors").toStdString();
    std::ofstream(path, std::ios::binary).write(bytes.constData(), bytes.size());
    try {
        readSafetensorsHeader(path);
        QFAIL("a damaged file was accepted");
    } catch (const std::runtime_error &error) {
        QVERIFY2(std::string(error.what()).find(expected.toStdString()) != std::string::npos,
                 error.what());
        QVERIFY2(std::string(error.what()).find(path) != std::string::npos, error.what());
    }
}

void TestSafetensors::pythonReadsTheFile() {
    const QString python = "/usr/bin/python3";
    QProcess probe;
    probe.start(python, {"-c", "import safetensors.numpy"});
    if (!probe.waitForFinished(60000) || probe.exitStatus() != QProcess::NormalExit ||
        probe.exitCode() != 0) {
        QSKIP("the Python safetensors package is not installed");
    }
    QTemporaryDir dir;
    const QString path = dir.filePath("tiny.safetensors");
    writeSafetensors(path.toStdString(), tinyTensors(), {{"format", "pt"}});
    QProcess process;
    process.start(python, {"-c",
                           "import sys\n"
                           "from safetensors.numpy import load_file\n"
                           "from safetensors import safe_open\n"
                           "t = load_file(sys.argv[1])\n"
                           "meta = safe_open(sys.argv[1], framework='np').metadata()\n"
                           "print(t['a'].tolist(), t['b'].tolist(), t['b'].dtype, meta)\n",
                           path});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 0);
    QCOMPARE(process.readAllStandardOutput().trimmed(),
             QByteArray("[[7]] [1.0, -2.0] float32 {'format': 'pt'}"));
}

QTEST_GUILESS_MAIN(TestSafetensors)
#include "test_safetensors.moc"
