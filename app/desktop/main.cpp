#include "look/Language.h"
#include "look/Theme.h"
#include "main_window/MainWindow.h"

#include <headroom/engine.h>
#include <headroom/version.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
#include <QTimer>

int main(int argc, char *argv[]) {
    headroom::relaunchWithTunedRuntime(argc, argv);
    headroom::initializeEngine();
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Headroom"));
    QApplication::setOrganizationName(QStringLiteral("Headroom"));
    QApplication::setApplicationVersion(QString::fromLatin1(headroom::kVersion));
    QGuiApplication::setDesktopFileName(QString::fromLatin1(headroom::kApplicationId));
    // The language chosen in Preferences (or the system's), before any text is created.
    const QSettings settings;
    headroom::ui::installLanguage(
        app, headroom::ui::localeForLanguage(headroom::ui::storedLanguage(settings)));
    headroom::ui::applyTheme(app, headroom::ui::storedTheme(settings));

    QCommandLineParser parser;
    parser.setApplicationDescription(QApplication::translate(
        "main", "Train real models on modest hardware without out-of-memory errors."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption smoke(
        QStringLiteral("smoke"),
        QApplication::translate("main", "Start, show the main window once, and exit 0."));
    parser.addOption(smoke);
    parser.addPositionalArgument(QStringLiteral("project"),
                                 QApplication::translate("main", "Project file to open."),
                                 QStringLiteral("[project]"));
    parser.process(app);

    headroom::ui::MainWindow window;
    window.show();
    const QStringList projects = parser.positionalArguments();
    if (!projects.isEmpty()) {
        if (parser.isSet(smoke)) {
            const QString error = window.openProject(projects.first());
            if (!error.isEmpty()) {
                qCritical("cannot open %s: %s", qPrintable(projects.first()), qPrintable(error));
                return 1;
            }
        } else {
            window.openProjectInteractively(projects.first());
        }
    }

    if (parser.isSet(smoke)) {
        // Packaging tests start the installed app this way: it must construct, lay out and
        // paint the window, then leave.
        QTimer::singleShot(0, &app, [&window]() {
            const bool painted = !window.grab().isNull();
            QApplication::exit(painted && window.isVisible() ? 0 : 1);
        });
    }
    return QApplication::exec();
}
