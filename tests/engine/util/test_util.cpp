#include "sample_files.h"
#include "util/base64.h"
#include "util/hashing.h"

#include <QCryptographicHash>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

class TestUtil : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sha256KnownVectors_data();
    void sha256KnownVectors();
    void sha256OfAFileMatchesQt();
    void sha256OfAMissingFileNamesIt();
    void digestDependsOnIdsAndOrder();
    void base64MatchesQt();
};

void TestUtil::sha256KnownVectors_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QString>("digest");
    QTest::newRow("empty") << QByteArray()
                           << "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    QTest::newRow("abc") << QByteArray("abc")
                         << "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    QTest::newRow("two blocks")
        << QByteArray("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
        << "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
}

void TestUtil::sha256KnownVectors() {
    QFETCH(QByteArray, input);
    QFETCH(QString, digest);
    QCOMPARE(QString::fromStdString(headroom::util::sha256Hex(
                 input.constData(), static_cast<std::size_t>(input.size()))),
             digest);
}

void TestUtil::sha256OfAFileMatchesQt() {
    QTemporaryDir dir;
    QByteArray bytes(200000, '\0');
    for (char &byte : bytes) {
        byte = static_cast<char>(QRandomGenerator::global()->bounded(256));
    }
    const QString path = test_support::writeFile(QDir(dir.path()), "blob.bin", bytes);
    QCOMPARE(
        QString::fromStdString(headroom::util::sha256File(path.toStdString())),
        QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()));
}

void TestUtil::sha256OfAMissingFileNamesIt() {
    try {
        headroom::util::sha256File("/nonexistent/checkpoint.pt");
        QFAIL("hashed a missing file");
    } catch (const std::runtime_error &error) {
        QVERIFY(QString(error.what()).contains("/nonexistent/checkpoint.pt"));
    }
}

void TestUtil::digestDependsOnIdsAndOrder() {
    using headroom::util::digestIds;
    const std::string digest = digestIds({1, 2, 3});
    QCOMPARE(digest.size(), std::size_t{16});
    QCOMPARE(digestIds({1, 2, 3}), digest);
    QVERIFY(digestIds({1, 3, 2}) != digest);
    QVERIFY(digestIds({1, 2, 4}) != digest);
    QVERIFY(digestIds({}) != digest);
}

void TestUtil::base64MatchesQt() {
    for (int size = 0; size < 70; ++size) {
        QByteArray bytes(size, '\0');
        for (char &byte : bytes) {
            byte = static_cast<char>(QRandomGenerator::global()->bounded(256));
        }
        QCOMPARE(QString::fromStdString(headroom::util::base64Encode(bytes.toStdString())),
                 QString::fromLatin1(bytes.toBase64()));
    }
}

QTEST_GUILESS_MAIN(TestUtil)
#include "test_util.moc"
