#include "look/Theme.h"

#include <QApplication>
#include <QIcon>
#include <QPalette>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace headroom::ui {

namespace {

const QString kSystem = QStringLiteral("system");
const QString kLight = QStringLiteral("light");
const QString kDark = QStringLiteral("dark");

QPalette darkPalette() {
    const QColor window(0x2b, 0x2d, 0x30);
    const QColor base(0x1e, 0x1f, 0x22);
    const QColor text(0xe6, 0xe6, 0xe6);
    const QColor disabled(0x80, 0x80, 0x80);
    const QColor highlight(0x2f, 0x6f, 0xbf);
    QPalette palette;
    palette.setColor(QPalette::Window, window);
    palette.setColor(QPalette::WindowText, text);
    palette.setColor(QPalette::Base, base);
    palette.setColor(QPalette::AlternateBase, window);
    palette.setColor(QPalette::ToolTipBase, base);
    palette.setColor(QPalette::ToolTipText, text);
    palette.setColor(QPalette::PlaceholderText, disabled);
    palette.setColor(QPalette::Text, text);
    palette.setColor(QPalette::Button, window);
    palette.setColor(QPalette::ButtonText, text);
    palette.setColor(QPalette::BrightText, Qt::red);
    palette.setColor(QPalette::Light, window.lighter(150));
    palette.setColor(QPalette::Midlight, window.lighter(125));
    palette.setColor(QPalette::Mid, window.darker(120));
    palette.setColor(QPalette::Dark, window.darker(150));
    palette.setColor(QPalette::Shadow, Qt::black);
    palette.setColor(QPalette::Link, highlight.lighter(140));
    palette.setColor(QPalette::Highlight, highlight);
    palette.setColor(QPalette::HighlightedText, Qt::white);
    for (const QPalette::ColorRole role :
         {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) {
        palette.setColor(QPalette::Disabled, role, disabled);
    }
    return palette;
}

struct SystemLook {
    QString style;
    QPalette palette;
};

// What the platform gave the application, kept before Headroom first changes it.
SystemLook &systemLook(QApplication &app) {
    static SystemLook look{app.style()->name(), app.palette()};
    return look;
}

} // namespace

QStringList themeCodes() {
    return {kSystem, kLight, kDark};
}

QString themeSettingsKey() {
    return QStringLiteral("appearance/theme");
}

QString storedTheme(const QSettings &settings) {
    const QString code = settings.value(themeSettingsKey()).toString();
    return themeCodes().contains(code) ? code : kSystem;
}

void storeTheme(QSettings &settings, const QString &code) {
    if (code == kSystem || !themeCodes().contains(code)) {
        settings.remove(themeSettingsKey());
    } else {
        settings.setValue(themeSettingsKey(), code);
    }
}

void applyTheme(QApplication &app, const QString &code) {
    const SystemLook &system = systemLook(app);
    if (code == kLight || code == kDark) {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(code == kDark ? darkPalette()
                                               : QApplication::style()->standardPalette());
        return;
    }
    QApplication::setStyle(QStyleFactory::create(system.style));
    QApplication::setPalette(system.palette);
}

QIcon actionIcon(const QString &name) {
    static const bool installed = [] {
        QStringList paths = QIcon::themeSearchPaths();
        paths << QStringLiteral(":/icons/theme");
        QIcon::setThemeSearchPaths(paths);
        QIcon::setFallbackThemeName(QStringLiteral("headroom"));
        if (QIcon::themeName().isEmpty()) {
            QIcon::setThemeName(QStringLiteral("headroom"));
        }
        return true;
    }();
    (void)installed;
    return QIcon::fromTheme(name);
}

} // namespace headroom::ui
