#pragma once

#include <QByteArray>
#include <QSettings>
#include <QString>
#include <QStringList>
#include <QVariant>

#include <memory>

namespace headroom::ui {

// A settings key with its type and default, so no caller spells a key or converts a
// QVariant itself (qBittorrent's SettingValue, Tiled's Preference<T>).
template <typename T> struct SettingKey {
    const char *name;
    T default_value;
};

// The app's remembered state: window geometry, recent projects and model folders, plot
// preferences.
class AppSettings {
public:
    static constexpr int kMaxRecentProjects = 8;
    static constexpr int kMaxRecentBaseFolders = 8;

    // The user's settings (organization and application names of the QApplication).
    AppSettings();
    // An INI file at path, for tests.
    explicit AppSettings(const QString &path);

    template <typename T> T get(const SettingKey<T> &key) const {
        return settings_->value(QLatin1String(key.name), QVariant::fromValue(key.default_value))
            .template value<T>();
    }
    template <typename T> void set(const SettingKey<T> &key, const T &value) {
        settings_->setValue(QLatin1String(key.name), QVariant::fromValue(value));
    }

    QStringList recentProjects() const;
    // Moves path to the front, drops duplicates and files beyond kMaxRecentProjects.
    void addRecentProject(const QString &path);
    void removeRecentProject(const QString &path);
    // Pretrained model folders projects were started from, the latest first.
    QStringList recentBaseFolders() const;
    void addRecentBaseFolder(const QString &folder);
    void sync() { settings_->sync(); }

private:
    void addRecent(const SettingKey<QStringList> &key, const QString &path, int limit);

    std::unique_ptr<QSettings> settings_;
};

namespace settings {
inline const SettingKey<QByteArray> kWindowGeometry{"window/geometry", {}};
inline const SettingKey<QByteArray> kWindowState{"window/state", {}};
inline const SettingKey<QStringList> kRecentProjects{"projects/recent", {}};
inline const SettingKey<QString> kLastDirectory{"projects/lastDirectory", {}};
inline const SettingKey<QStringList> kRecentBaseFolders{"models/recentBaseFolders", {}};
inline const SettingKey<double> kLossSmoothing{"plots/lossSmoothing", 0.0};
inline const SettingKey<bool> kLossLogScale{"plots/lossLogScale", false};
inline const SettingKey<bool> kMemoryFullBudget{"plots/memoryFullBudget", false};
// transformers' default max_shard_size
inline const SettingKey<QString> kHfMaxShardSize{"export/hfMaxShardSize", QStringLiteral("5GB")};
} // namespace settings

} // namespace headroom::ui
