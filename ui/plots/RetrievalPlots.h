#pragma once

#include "PlotWidget.h"

namespace headroom::ui {
struct RunSeries;
}

namespace headroom::ui::plots {

// How sparse a SPLADE run's vectors are: the FLOPS regularizers of the step's queries and
// passages (left axis) and the mean non-zero vocabulary weights per query and per passage
// (right axis). Queries are drawn solid, passages dashed, so the pairs read together.
class RetrievalSparsityPlot : public PlotWidget {
    Q_OBJECT

public:
    explicit RetrievalSparsityPlot(QWidget *parent = nullptr);

    void clearData();
    void append(const RunSeries &series, int first_retrieval_step);
    QCPGraph *queryFlopsGraph() const { return flops_q_; }
    QCPGraph *passageFlopsGraph() const { return flops_d_; }
    QCPGraph *queryNonzerosGraph() const { return nonzeros_q_; }
    QCPGraph *passageNonzerosGraph() const { return nonzeros_d_; }

protected:
    void restyle() override;
    void fitRanges() override;

private:
    QCPGraph *flops_q_ = nullptr;
    QCPGraph *flops_d_ = nullptr;
    QCPGraph *nonzeros_q_ = nullptr;
    QCPGraph *nonzeros_d_ = nullptr;
};

// What the validations measured of the ranking: MRR@10 and Recall@100 of the held-out
// queries against the held-out passages, one point per validation, on a 0-1 axis that spans
// the run's steps like the plots above it.
class RetrievalQualityPlot : public PlotWidget {
    Q_OBJECT

public:
    explicit RetrievalQualityPlot(QWidget *parent = nullptr);

    void clearData();
    // Adds the validations from first_ranking_eval on and follows the run's last step.
    void append(const RunSeries &series, int first_ranking_eval);
    QCPGraph *mrrGraph() const { return mrr_; }
    QCPGraph *recallGraph() const { return recall_; }

protected:
    void restyle() override;
    void fitRanges() override;

private:
    QCPGraph *mrr_ = nullptr;
    QCPGraph *recall_ = nullptr;
    double first_step_ = 0;
    double last_step_ = 0;
};

} // namespace headroom::ui::plots
