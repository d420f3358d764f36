#pragma once

#include <QDialog>

#include <memory>

class QComboBox;
class QLabel;
class QSettings;

namespace headroom::ui {

// Application preferences: the interface language, which applies the next time Headroom
// starts (the dialog says so), and the colour theme, which applies at once. OK stores the
// choices, Cancel leaves them alone.
class PreferencesDialog : public QDialog {
    Q_OBJECT

public:
    // Reads and writes the application's settings (QSettings with the app's names).
    explicit PreferencesDialog(QWidget *parent = nullptr);
    // Reads and writes `settings`, which must outlive the dialog (tests pass a temporary file).
    explicit PreferencesDialog(QSettings &settings, QWidget *parent = nullptr);
    ~PreferencesDialog() override;

    // The language code selected in the dialog ("" follows the system).
    QString selectedLanguage() const;
    // "system", "light" or "dark".
    QString selectedTheme() const;

    void accept() override;

private:
    void build();
    void updateRestartNote();

    std::unique_ptr<QSettings> owned_settings_;
    QSettings *settings_ = nullptr;
    QString language_at_open_;
    QComboBox *language_ = nullptr;
    QLabel *restart_note_ = nullptr;
    QComboBox *theme_ = nullptr;
};

} // namespace headroom::ui
