#pragma once

#include "PlotWidget.h"

namespace headroom::ui {
struct RunSeries;
}

namespace headroom::ui::plots {

// What online RL (GRPO) learns, step by step: the mean reward of the step's sampled
// completions (solid) and the mean spread of the rewards within their groups (dashed; a group
// whose completions all earn the same teaches nothing) on the left axis, the mean completion
// length in tokens on the right axis.
class GrpoPlot : public PlotWidget {
    Q_OBJECT

public:
    explicit GrpoPlot(QWidget *parent = nullptr);

    void clearData();
    void append(const RunSeries &series, int first_grpo_step);
    QCPGraph *rewardGraph() const { return reward_; }
    QCPGraph *spreadGraph() const { return spread_; }
    QCPGraph *lengthGraph() const { return length_; }

protected:
    void restyle() override;
    void fitRanges() override;

private:
    QCPGraph *reward_ = nullptr;
    QCPGraph *spread_ = nullptr;
    QCPGraph *length_ = nullptr;
};

} // namespace headroom::ui::plots
