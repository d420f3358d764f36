// Tabular schema inference, standardization, encoding and the schema's JSON round trip.
#include "data/data_error.h"
#include "data/example_stream.h"
#include "data/tabular_schema.h"
#include "sample_files.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <vector>

using namespace headroom::data;
using test_support::writeFile;

namespace {

std::vector<Example> allValidation(ExampleStream &stream) {
    std::vector<Example> examples;
    Example example;
    while (stream.next(example)) {
        examples.push_back(example);
    }
    return examples;
}

bool sameBits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

} // namespace

class TestDataTabular : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void infersColumnsAndStatistics();
    void taskInference_data();
    void taskInference();
    void encodesRowsWithTheSchema();
    void regressionTargetIsStandardized();
    void categoriesAreCapped();
    void splitCoversEveryRowOnce();
    void jsonRoundTripIsExact();
    void jsonRejectsBadInput();
    void badData_data();
    void badData();
    void rejectsUnusableSetups();

private:
    DataSpec spec(const std::string &content) {
        DataSpec s;
        s.path = writeFile(dir_, QString("table%1.csv").arg(++files_), content);
        s.format = Format::Csv;
        s.validation_fraction = 0;
        s.shuffle_buffer = 1;
        return s;
    }

    QTemporaryDir dir_;
    int files_ = 0;
};

void TestDataTabular::infersColumnsAndStatistics() {
    const TabularSchema schema = inferTabularSchema(spec("age,city,income,species\n"
                                                         "20,Oslo,1000,cat\n"
                                                         "30,Rome,,dog\n"
                                                         "40,Oslo,3000,cat\n"
                                                         "50,,2000,bird\n"));
    QCOMPARE(schema.numeric.size(), std::size_t{2});
    QCOMPARE(schema.numeric[0].name, std::string("age"));
    QCOMPARE(schema.numeric[0].mean, 35.0);
    QCOMPARE(schema.numeric[0].stddev, std::sqrt(125.0)); // population standard deviation
    QCOMPARE(schema.numeric[1].name, std::string("income"));
    QCOMPARE(schema.numeric[1].mean, 2000.0); // the missing value is left out
    QCOMPARE(schema.numeric[1].stddev, std::sqrt(2000000.0 / 3.0));
    QCOMPARE(schema.categorical.size(), std::size_t{1});
    QCOMPARE(schema.categorical[0].name, std::string("city"));
    QVERIFY(schema.categorical[0].categories == (std::vector<std::string>{"Oslo", "Rome"}));
    QCOMPARE(schema.target, std::string("species"));
    QVERIFY(schema.classification);
    QVERIFY(schema.classes == (std::vector<std::string>{"bird", "cat", "dog"}));
    QCOMPARE(schema.train_rows, std::int64_t{4});
    QCOMPARE(schema.validation_rows, std::int64_t{0});
    QVERIFY2(QString::fromStdString(schema.task_reason).contains("the last column"),
             schema.task_reason.c_str());
    QVERIFY2(QString::fromStdString(schema.task_reason).contains("not numeric"),
             schema.task_reason.c_str());
}

void TestDataTabular::taskInference_data() {
    QTest::addColumn<QStringList>("targets");
    QTest::addColumn<QString>("task");
    QTest::addColumn<bool>("classification");
    QTest::addColumn<QString>("reason");
    QStringList small_integers;
    QStringList many_integers;
    QStringList decimals;
    for (int i = 0; i < 30; ++i) {
        small_integers << QString::number(i % 5);
        many_integers << QString::number(i * 3);
        decimals << QString::number(i % 5) + ".5";
    }
    QTest::newRow("labels") << QStringList{"yes", "no", "yes"} << "auto" << true
                            << "target is not numeric -> classification (2 classes)";
    QTest::newRow("few integers") << small_integers << "auto" << true
                                  << "5 distinct integers (<= 20) -> classification";
    QTest::newRow("many integers")
        << many_integers << "auto" << false << "30 distinct integer values -> regression";
    QTest::newRow("decimals") << decimals << "auto" << false
                              << "numeric with 5 distinct values -> regression";
    QTest::newRow("forced regression")
        << small_integers << "regression" << false << "task set to regression";
    QTest::newRow("forced classification")
        << decimals << "classification" << true << "task set to classification (5 classes)";
}

void TestDataTabular::taskInference() {
    QFETCH(QStringList, targets);
    QFETCH(QString, task);
    QFETCH(bool, classification);
    QFETCH(QString, reason);
    std::string csv = "feature,target\n";
    for (int i = 0; i < targets.size(); ++i) {
        csv += std::to_string(i) + "," + targets[i].toStdString() + "\n";
    }
    DataSpec s = spec(csv);
    s.task = task.toStdString();
    const TabularSchema schema = inferTabularSchema(s);
    QCOMPARE(schema.classification, classification);
    QVERIFY2(QString::fromStdString(schema.task_reason).contains(reason),
             schema.task_reason.c_str());
    if (classification && task == "auto" && targets[0] == "0") {
        // Integer classes are ordered by value.
        QVERIFY(schema.classes == (std::vector<std::string>{"0", "1", "2", "3", "4"}));
    }
}

void TestDataTabular::encodesRowsWithTheSchema() {
    DataSpec s = spec("size,shape,colour,label\n"
                      "1,round,red,b\n"
                      "3,square,,a\n"
                      ",round,blue,b\n");
    s.target = "label";
    const TabularSchema schema = inferTabularSchema(s);
    ExampleStream stream(s, Split::Train, nullptr, &schema);
    Example example;
    QVERIFY(stream.next(example));
    QCOMPARE(example.id, makeExampleId(0, 0));
    QCOMPARE(example.numeric.size(), std::size_t{1});
    QCOMPARE(example.numeric[0], -1.0F);                               // (1 - 2) / 1
    QVERIFY(example.categorical == (std::vector<std::int64_t>{1, 2})); // round, red (sorted + 1)
    QCOMPARE(example.target, 1.0);                                     // classes a, b
    QVERIFY(example.tokens.empty());
    QVERIFY(stream.next(example));
    QCOMPARE(example.numeric[0], 1.0F);
    QVERIFY(example.categorical == (std::vector<std::int64_t>{2, 0})); // missing colour -> 0
    QCOMPARE(example.target, 0.0);
    QVERIFY(stream.next(example));
    QCOMPARE(example.numeric[0], 0.0F); // missing number -> 0 after standardization
    QCOMPARE(example.id, makeExampleId(0, 2));
    QVERIFY(stream.next(example));
    QCOMPARE(example.id, makeExampleId(1, 0));

    // A category the training split never saw encodes as unknown.
    DataSpec unseen = spec("size,shape,colour,label\n2,hexagon,green,a\n");
    ExampleStream unseen_stream(unseen, Split::Train, nullptr, &schema);
    QVERIFY(unseen_stream.next(example));
    QVERIFY(example.categorical == (std::vector<std::int64_t>{0, 0}));
}

void TestDataTabular::regressionTargetIsStandardized() {
    DataSpec s = spec("x,price\n1,10.5\n2,20.5\n3,30.5\n");
    const TabularSchema schema = inferTabularSchema(s);
    QVERIFY(!schema.classification);
    QCOMPARE(schema.target_mean, 20.5);
    QCOMPARE(schema.target_stddev, std::sqrt(200.0 / 3.0));
    ExampleStream stream(s, Split::Train, nullptr, &schema);
    Example example;
    QVERIFY(stream.next(example));
    QCOMPARE(example.target, (10.5 - 20.5) / std::sqrt(200.0 / 3.0));
    QVERIFY(stream.next(example));
    QCOMPARE(example.target, 0.0);
}

void TestDataTabular::categoriesAreCapped() {
    std::string csv = "code,y\n";
    for (int i = 0; i < 1200; ++i) {
        csv += "c" + std::to_string(i) + "," + std::to_string(i % 2) + "\n";
    }
    DataSpec s = spec(csv);
    const TabularSchema schema = inferTabularSchema(s);
    QCOMPARE(schema.categorical.size(), std::size_t{1});
    QCOMPARE(schema.categorical[0].categories.size(), std::size_t{1000});
    ExampleStream stream(s, Split::Train, nullptr, &schema);
    std::set<std::int64_t> ids;
    Example example;
    for (int i = 0; i < 1200; ++i) {
        QVERIFY(stream.next(example));
        ids.insert(example.categorical[0]);
    }
    QCOMPARE(ids.size(), std::size_t{1001}); // 1000 known categories and unknown (0)
    QVERIFY(ids.count(0) == 1);
}

void TestDataTabular::splitCoversEveryRowOnce() {
    std::string csv = "x,y\n";
    for (int i = 0; i < 200; ++i) {
        csv += std::to_string(i) + "," + (i % 3 == 0 ? "a" : "b") + "\n";
    }
    DataSpec s = spec(csv);
    s.validation_fraction = 0.25;
    s.split_seed = 3;
    const TabularSchema schema = inferTabularSchema(s);
    QCOMPARE(schema.train_rows + schema.validation_rows, std::int64_t{200});
    ExampleStream validation(s, Split::Validation, nullptr, &schema);
    std::set<std::uint64_t> validation_ids;
    for (const Example &example : allValidation(validation)) {
        validation_ids.insert(example.id);
    }
    QCOMPARE(static_cast<std::int64_t>(validation_ids.size()), schema.validation_rows);
    ExampleStream train(s, Split::Train, nullptr, &schema);
    std::set<std::uint64_t> train_ids;
    Example example;
    while (train.next(example) && (example.id >> 48) == 0) {
        QVERIFY(validation_ids.count(example.id) == 0);
        train_ids.insert(example.id);
    }
    QCOMPARE(static_cast<std::int64_t>(train_ids.size()), schema.train_rows);
}

void TestDataTabular::jsonRoundTripIsExact() {
    TabularSchema schema;
    schema.numeric = {{"a", 0.1 + 0.2, 1.0 / 3.0},
                      {"b \"quoted\"", -1.2345678901234567e-300, 1e300}};
    schema.categorical = {{"colour", {"red", "grün", ""}}};
    schema.target = "label";
    schema.classification = false;
    schema.target_mean = 123456.78901234567;
    schema.target_stddev = 2.0 / 7.0;
    schema.train_rows = 12345678901;
    schema.validation_rows = 7;
    schema.task_reason = "inferred: target is numeric -> regression";
    const std::string json = schema.toJson();
    const TabularSchema back = TabularSchema::fromJson(json);
    QCOMPARE(back.numeric.size(), std::size_t{2});
    for (std::size_t i = 0; i < 2; ++i) {
        QCOMPARE(back.numeric[i].name, schema.numeric[i].name);
        QVERIFY(sameBits(back.numeric[i].mean, schema.numeric[i].mean));
        QVERIFY(sameBits(back.numeric[i].stddev, schema.numeric[i].stddev));
    }
    QCOMPARE(back.categorical[0].name, schema.categorical[0].name);
    QVERIFY(back.categorical[0].categories == schema.categorical[0].categories);
    QCOMPARE(back.target, schema.target);
    QCOMPARE(back.classification, false);
    QVERIFY(sameBits(back.target_mean, schema.target_mean));
    QVERIFY(sameBits(back.target_stddev, schema.target_stddev));
    QCOMPARE(back.train_rows, schema.train_rows);
    QCOMPARE(back.validation_rows, schema.validation_rows);
    QCOMPARE(back.task_reason, schema.task_reason);
    QCOMPARE(back.toJson(), json);

    // An inferred schema survives too, classes included.
    const TabularSchema inferred = inferTabularSchema(spec("x,c\n0.7,u\n1.1,v\n"));
    QCOMPARE(TabularSchema::fromJson(inferred.toJson()).toJson(), inferred.toJson());
    QVERIFY(TabularSchema::fromJson(inferred.toJson()).classes == inferred.classes);
}

void TestDataTabular::jsonRejectsBadInput() {
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, TabularSchema::fromJson("not json"));
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, TabularSchema::fromJson("{\"version\": 1}"));
    std::string json = TabularSchema().toJson();
    json.replace(json.find("\"version\":1"), 11, "\"version\":9");
    try {
        TabularSchema::fromJson(json);
        QFAIL("expected std::runtime_error");
    } catch (const std::runtime_error &error) {
        QVERIFY2(QString(error.what()).contains("version 9"), error.what());
    }
}

void TestDataTabular::badData_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("task");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("problem");
    QTest::newRow("unknown target")
        << QByteArray("a,b,y\n1,2,3\n") << "nope"
        << "auto" << 0 << "unknown target column 'nope'; the header has: a, b, y";
    QTest::newRow("empty target") << QByteArray("a,y\n1,x\n2,\n") << ""
                                  << "auto" << 3 << "the target column 'y' is empty";
    QTest::newRow("regression on text")
        << QByteArray("a,y\n1,2\n2,3\n3,many\n") << ""
        << "regression" << 4 << "task=regression needs a numeric target";
    QTest::newRow("unknown task") << QByteArray("a,y\n1,2\n") << ""
                                  << "clustering" << 0 << "unknown task 'clustering'";
    QTest::newRow("target only") << QByteArray("y\n1\n") << ""
                                 << "auto" << 0 << "at least one feature column";
    QTest::newRow("ragged row") << QByteArray("a,y\n1,2\n3\n") << ""
                                << "auto" << 3 << "row 2 has 1 field, the header has 2";
}

void TestDataTabular::badData() {
    QFETCH(QByteArray, content);
    QFETCH(QString, target);
    QFETCH(QString, task);
    QFETCH(int, line);
    QFETCH(QString, problem);
    DataSpec s = spec(content.toStdString());
    s.target = target.toStdString();
    s.task = task.toStdString();
    try {
        inferTabularSchema(s);
        QFAIL("expected a DataError");
    } catch (const DataError &error) {
        QCOMPARE(error.line(), static_cast<std::int64_t>(line));
        QVERIFY2(QString(error.what()).contains(problem), error.what());
    }
}

void TestDataTabular::rejectsUnusableSetups() {
    auto problemOf = [](auto &&action) -> QString {
        try {
            action();
        } catch (const DataError &error) {
            return error.what();
        }
        return "no error";
    };
    DataSpec held_out = spec("a,y\n1,2\n2,3\n");
    held_out.validation_fraction = 1.0;
    QVERIFY(problemOf([&] {
                inferTabularSchema(held_out);
            }).contains("no training rows: 2 rows read, all in the validation split"));

    DataSpec jsonl = spec("{\"a\": 1}\n");
    jsonl.format = Format::Jsonl;
    QVERIFY(problemOf([&] {
                inferTabularSchema(jsonl);
            }).contains("tabular data must be a CSV file (the format is jsonl)"));

    // A schema from another table: the stream names the missing column and what is there.
    const TabularSchema schema = inferTabularSchema(spec("a,b,y\n1,x,2\n"));
    DataSpec other = spec("a,y\n1,2\n");
    QVERIFY(problemOf([&] { ExampleStream stream(other, Split::Train, nullptr, &schema); })
                .contains("unknown column 'b' (the data settings expect it); the header has: a, "
                          "y"));
}

QTEST_GUILESS_MAIN(TestDataTabular)
#include "test_data_tabular.moc"
