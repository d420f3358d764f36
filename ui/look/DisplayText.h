#pragma once

// Numbers and device descriptions as the desktop shows them: byte sizes formatted by the
// current QLocale (decimal separator, IEC units), device lines through tr(). The engine's
// formatBytes / describeDevices are the command line's English equivalents.

#include <headroom/devices.h>
#include <headroom/plan.h>

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <cstdint>

class QLabel;

namespace headroom::ui {

class DisplayText {
    Q_DECLARE_TR_FUNCTIONS(DisplayText)

public:
    // "1.5 GiB" / "1,5 GiB"; 0 is "0 B".
    static QString bytes(std::uint64_t bytes);
    // Long paths have no spaces to wrap at: a zero-width space after each separator lets a
    // word-wrapping label break them.
    static QString breakablePaths(const QString &text);
    // The status bar's short form: "CPU · 2 cores · 23.5 GiB".
    static QString deviceStatus(const DeviceReport &report);
    // One line per device kind, as in `headroom-cli devices`.
    static QStringList deviceLines(const DeviceReport &report);
    // A hardware profile's name and where its default budget comes from, translated (the
    // engine's label and note are the command line's English).
    static QString profileLabel(const HardwareProfile &profile, const DeviceReport &report);
    static QString profileNote(const HardwareProfile &profile);

    // Whether a predicted peak fits its budget: tight is above 90 % of it.
    enum class Verdict { Fits, Tight, DoesNotFit, NoBudget };
    static Verdict verdict(const MemoryEstimate &estimate);
    // "<b>Fits</b>: 1.2 GiB of 4.0 GiB (30 %).<br>model · techniques" (rich text).
    static QString verdictHtml(const MemoryEstimate &estimate);
    // Puts verdictHtml on the label, coloured for problems on the label's palette.
    static Verdict showVerdict(QLabel *label, const MemoryEstimate &estimate);
    // The planner's summary and one line per decision (rich text).
    static QString planHtml(const Plan &plan);
};

} // namespace headroom::ui
