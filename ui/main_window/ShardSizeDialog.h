#pragma once

#include <QDialog>

#include <cstdint>
#include <optional>

class QLabel;
class QLineEdit;

namespace headroom::ui {

class AppSettings;

// Asked after the folder of a Hugging Face export is chosen: the largest weight file, as
// `headroom-cli export --max-shard-size` and transformers' save_pretrained take it ("5GB",
// "500MB", "2GiB" or bytes). Starts from the size used last; OK with a size that does not read
// keeps the dialog open and says why; an accepted size is remembered.
class ShardSizeDialog : public QDialog {
    Q_OBJECT

public:
    explicit ShardSizeDialog(AppSettings &settings, QWidget *parent = nullptr);

    QString text() const;
    // The accepted size in bytes (transformers' default, 5GB, before OK).
    std::uint64_t bytes() const { return bytes_; }
    // The bytes `text` stands for, or nothing with the reason in *error.
    static std::optional<std::uint64_t> parse(const QString &text, QString *error);

    void accept() override;

private:
    AppSettings &settings_;
    QLineEdit *size_ = nullptr;
    QLabel *error_ = nullptr;
    std::uint64_t bytes_;
};

} // namespace headroom::ui
