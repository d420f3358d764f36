#pragma once

#include <QIcon>
#include <QString>
#include <QStringList>

class QApplication;
class QSettings;

namespace headroom::ui {

// The colour theme: follow the system, or Headroom's own light or dark palette (Fusion
// style), for desktops whose dark mode Qt does not see. Chosen in Preferences, stored in
// QSettings, applied at start and at once when changed.

// "system", "light", "dark".
QStringList themeCodes();
QString themeSettingsKey();

// The stored choice; "system" when nothing or an unknown code is stored.
QString storedTheme(const QSettings &settings);
void storeTheme(QSettings &settings, const QString &code);

// Sets the application's style and palette for `code`. "system" restores what the platform
// gave the application before the first call.
void applyTheme(QApplication &app, const QString &code);

// A toolbar/menu icon by its freedesktop name ("media-playback-start"): the desktop's icon
// theme where it has one (Linux), else Headroom's bundled theme (resources/icons/theme), which
// is all there is on macOS and Windows.
QIcon actionIcon(const QString &name);

} // namespace headroom::ui
