#pragma once

// Numbers and device descriptions as the desktop shows them: byte sizes formatted by the
// current QLocale (decimal separator, IEC units), device lines through tr(). The engine's
// formatBytes / describeDevices are the command line's English equivalents.

#include <headroom/devices.h>

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <cstdint>

namespace headroom::ui {

class DisplayText {
    Q_DECLARE_TR_FUNCTIONS(DisplayText)

public:
    // "1.5 GiB" / "1,5 GiB"; 0 is "0 B".
    static QString bytes(std::uint64_t bytes);
    // The status bar's short form: "CPU · 2 cores · 23.5 GiB".
    static QString deviceStatus(const DeviceReport &report);
    // One line per device kind, as in `headroom-cli devices`.
    static QStringList deviceLines(const DeviceReport &report);
};

} // namespace headroom::ui
