#pragma once

#include <QString>
#include <QVector>
#include <QWidget>

namespace headroom {
struct MemoryEstimate;
}

namespace headroom::ui {

// The estimator's predicted peak as one stacked bar (weights, gradients, optimizer state,
// activations, overhead) against the memory budget drawn as a vertical line. Painted by hand
// from the window palette so it follows light and dark themes.
class MemoryBarsWidget : public QWidget {
    Q_OBJECT

public:
    enum Part { Weights, Gradients, Optimizer, Activations, Overhead, PartCount };

    explicit MemoryBarsWidget(QWidget *parent = nullptr);

    // The parts are scaled so they add up to the corrected peak (estimate.peak).
    void setEstimate(const MemoryEstimate &estimate);
    void clear();

    // The values drawn, in bytes (tests read them).
    QVector<quint64> parts() const { return parts_; }
    quint64 total() const;
    quint64 budget() const { return budget_; }

    static QString partName(Part part);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    QColor partColor(int part) const;
    void updateDescription();

    QVector<quint64> parts_;
    quint64 budget_ = 0;
};

} // namespace headroom::ui
