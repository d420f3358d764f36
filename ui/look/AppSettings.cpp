#include "look/AppSettings.h"

#include <QFileInfo>

namespace headroom::ui {

AppSettings::AppSettings() : settings_(std::make_unique<QSettings>()) {}

AppSettings::AppSettings(const QString &path)
    : settings_(std::make_unique<QSettings>(path, QSettings::IniFormat)) {}

QStringList AppSettings::recentProjects() const {
    return get(settings::kRecentProjects);
}

void AppSettings::addRecentProject(const QString &path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList recent = recentProjects();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecentProjects) {
        recent.removeLast();
    }
    set(settings::kRecentProjects, recent);
}

void AppSettings::removeRecentProject(const QString &path) {
    QStringList recent = recentProjects();
    recent.removeAll(QFileInfo(path).absoluteFilePath());
    set(settings::kRecentProjects, recent);
}

} // namespace headroom::ui
