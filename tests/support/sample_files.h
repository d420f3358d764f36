#pragma once

#include <QDir>
#include <QFile>
#include <QString>
#include <QTemporaryDir>

#include <fstream>
#include <string>

// Small data files generated for tests: deterministic, a few kilobytes, no fixtures to ship.
namespace test_support {

inline QString writeFile(const QDir &dir, const QString &name, const QByteArray &bytes) {
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        return {};
    }
    file.write(bytes);
    return path;
}

// Writes bytes exactly (no newline translation) and returns the path, for engine APIs.
inline std::string writeFile(const QTemporaryDir &dir, const QString &name,
                             const std::string &bytes) {
    const std::string path = dir.filePath(name).toStdString();
    std::ofstream out(path, std::ios::binary);
    out << bytes;
    return path;
}

// Repetitive English-like text a tiny model learns quickly.
inline QByteArray storyText(int lines) {
    static const char *const subjects[] = {"The fox", "A robot", "Mira", "The old owl", "Tomas"};
    static const char *const verbs[] = {"found", "carried", "painted", "lost", "shared"};
    static const char *const objects[] = {"a red ball.", "the brass key.", "a paper map.",
                                          "some honey.", "a blue kite."};
    QByteArray text;
    for (int i = 0; i < lines; ++i) {
        text += subjects[i % 5];
        text += ' ';
        text += verbs[(i / 5) % 5];
        text += ' ';
        text += objects[(i * 3 + 1) % 5];
        text += '\n';
    }
    return text;
}

// A CSV where the class follows from the features: x + y > 0 -> "high", else "low".
inline QByteArray tabularCsv(int rows) {
    QByteArray text = "x,y,colour,label\n";
    static const char *const colours[] = {"red", "green", "blue"};
    for (int i = 0; i < rows; ++i) {
        const double x = ((i * 37) % 200 - 100) / 25.0;
        const double y = ((i * 91) % 200 - 100) / 25.0;
        text += QByteArray::number(x, 'f', 2) + ',' + QByteArray::number(y, 'f', 2) + ',' +
                colours[i % 3] + ',' + (x + y > 0 ? "high" : "low") + '\n';
    }
    return text;
}

} // namespace test_support
