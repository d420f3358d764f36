#include "look/AppSettings.h"

#include <QDir>
#include <QFileInfo>

namespace headroom::ui {

AppSettings::AppSettings() : settings_(std::make_unique<QSettings>()) {}

AppSettings::AppSettings(const QString &path)
    : settings_(std::make_unique<QSettings>(path, QSettings::IniFormat)) {}

QStringList AppSettings::recentProjects() const {
    return get(settings::kRecentProjects);
}

void AppSettings::addRecentProject(const QString &path) {
    addRecent(settings::kRecentProjects, path, kMaxRecentProjects);
}

void AppSettings::removeRecentProject(const QString &path) {
    QStringList recent = recentProjects();
    recent.removeAll(QFileInfo(path).absoluteFilePath());
    set(settings::kRecentProjects, recent);
}

QStringList AppSettings::recentBaseFolders() const {
    return get(settings::kRecentBaseFolders);
}

void AppSettings::addRecentBaseFolder(const QString &folder) {
    addRecent(settings::kRecentBaseFolders, folder, kMaxRecentBaseFolders);
}

void AppSettings::addRecent(const SettingKey<QStringList> &key, const QString &path, int limit) {
    const QString absolute = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
    QStringList recent = get(key);
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > limit) {
        recent.removeLast();
    }
    set(key, recent);
}

} // namespace headroom::ui
