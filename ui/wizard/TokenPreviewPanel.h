#pragma once

#include <headroom/token_preview.h>

#include <QWidget>

#include <vector>

class QLabel;
class QScrollArea;
class QStackedWidget;
class QToolButton;

namespace headroom::ui {

class TokenChips;

// The data page's look at the tokenizer at work: one sample record as token chips (stepping
// through the first non-empty records) and the tokens-per-record statistics, or, in the same
// place, why there is nothing to show. Keeps its height whatever it shows.
class TokenPreviewPanel : public QWidget {
    Q_OBJECT

public:
    explicit TokenPreviewPanel(QWidget *parent = nullptr);

    // Work in progress, or what is missing before tokens can be shown.
    void showMessage(const QString &text);
    // Why tokens cannot be shown, in the problem colour.
    void showProblem(const QString &problem);
    void showPreview(const TokenPreview &preview);

    bool hasPreview() const { return !samples_.empty() || has_stats_; }
    QString message() const;
    bool isProblem() const { return problem_; }
    int sampleIndex() const { return index_; }
    int sampleCount() const { return static_cast<int>(samples_.size()); }
    void showSample(int index);
    TokenChips *chips() const { return chips_; }

private:
    void showStats(const TokenPreview &preview);
    void updateNavigation();

    QLabel *sample_label_ = nullptr;
    QToolButton *previous_ = nullptr;
    QToolButton *next_ = nullptr;
    QStackedWidget *stack_ = nullptr;
    QLabel *message_ = nullptr;
    QScrollArea *scroll_ = nullptr;
    TokenChips *chips_ = nullptr;
    QLabel *stats_ = nullptr;
    std::vector<TokenizedSample> samples_;
    int index_ = 0;
    bool has_stats_ = false;
    bool pairs_ = false; // preference pairs: samples come as chosen, rejected
    bool problem_ = false;
};

} // namespace headroom::ui
