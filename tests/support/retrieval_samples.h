#pragma once

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include <iterator>

#ifndef HEADROOM_ENCODER_REFERENCE_DIR
#define HEADROOM_ENCODER_REFERENCE_DIR ""
#endif

// SPLADE test inputs: the tiny random BERT folder the CTest fixture encoder_reference writes
// (tests/interop/encoder/setup.sh), and retrieval records in the words its vocabulary holds.
namespace test_support {

// The BERT masked-LM folder, or empty when the fixture could not generate it (no python3-torch).
inline QString encoderReferenceBert() {
    const QString reference = QStringLiteral(HEADROOM_ENCODER_REFERENCE_DIR);
    QFile status(reference + "/status.txt");
    if (!status.open(QIODevice::ReadOnly) || !status.readAll().startsWith("ok")) {
        return {};
    }
    return reference + "/reference/bert";
}

// Words the fixture's WordPiece vocabulary (tests/data/tokenizers/wordpiece_bert) holds.
inline const char *const kRetrievalWords[] = {"hello", "world", "new",  "york",  "text", "token",
                                              "words", "they",  "cafe", "brown", "caps", "the"};

// A JSON array of records whose positive shares the query's words and whose negative does not.
inline QByteArray retrievalRecords(int records) {
    QJsonArray array;
    const int count = static_cast<int>(std::size(kRetrievalWords));
    for (int i = 0; i < records; ++i) {
        const QString a = kRetrievalWords[i % count];
        const QString b = kRetrievalWords[(i * 5 + 3) % count];
        const QString c = kRetrievalWords[(i * 7 + 1) % count];
        array.append(QJsonObject{{"query", a + " " + b},
                                 {"positive", a + " " + c + " " + b},
                                 {"negatives", QJsonArray{c + " " + c}}});
    }
    return QJsonDocument(array).toJson();
}

} // namespace test_support
