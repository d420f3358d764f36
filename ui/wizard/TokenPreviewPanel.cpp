#include "TokenPreviewPanel.h"

#include "TokenChips.h"
#include "WizardColors.h"
#include "look/DisplayText.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QScrollArea>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace headroom::ui {

namespace {
constexpr int kChipRowsShown = 3;

QString decimal(double value, int digits) {
    return QLocale().toString(value, 'f', digits);
}

QString percent(double share) {
    return QLocale().toString(100.0 * share, 'f', 0) + QStringLiteral(" %");
}
} // namespace

TokenPreviewPanel::TokenPreviewPanel(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("tokenPreview"));
    auto *title = new QLabel(tr("Tokens of a sample:"), this);
    sample_label_ = new QLabel(this);
    sample_label_->setObjectName(QStringLiteral("tokenSample"));
    previous_ = new QToolButton(this);
    previous_->setObjectName(QStringLiteral("previousSample"));
    previous_->setArrowType(Qt::LeftArrow);
    previous_->setAccessibleName(tr("Previous sample"));
    previous_->setToolTip(tr("Previous sample"));
    next_ = new QToolButton(this);
    next_->setObjectName(QStringLiteral("nextSample"));
    next_->setArrowType(Qt::RightArrow);
    next_->setAccessibleName(tr("Next sample"));
    next_->setToolTip(tr("Next sample"));
    auto *header = new QHBoxLayout;
    header->setContentsMargins(0, 0, 0, 0);
    header->addWidget(title);
    header->addWidget(sample_label_, 1);
    header->addWidget(previous_);
    header->addWidget(next_);

    message_ = new QLabel(this);
    message_->setObjectName(QStringLiteral("tokenMessage"));
    message_->setWordWrap(true);
    message_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    chips_ = new TokenChips;
    chips_->setAccessibleName(tr("Tokens of the sample"));
    scroll_ = new QScrollArea(this);
    scroll_->setWidget(chips_);
    scroll_->setWidgetResizable(true);
    scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll_->setFrameShape(QFrame::NoFrame);
    stack_ = new QStackedWidget(this);
    stack_->addWidget(message_);
    stack_->addWidget(scroll_);
    // Room for a few rows of chips, whatever is shown: the page does not jump.
    const int chip_row = QFontMetrics(font()).height() * 2 + 7;
    stack_->setFixedHeight(kChipRowsShown * chip_row + 2);

    stats_ = new QLabel(this);
    stats_->setObjectName(QStringLiteral("tokenStats"));
    stats_->setWordWrap(true);
    stats_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    stats_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    stats_->setMinimumHeight(QFontMetrics(font()).lineSpacing() * 3);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(header);
    layout->addWidget(stack_);
    layout->addWidget(stats_);

    connect(previous_, &QToolButton::clicked, this, [this] { showSample(index_ - 1); });
    connect(next_, &QToolButton::clicked, this, [this] { showSample(index_ + 1); });
    showMessage(QString());
}

QString TokenPreviewPanel::message() const {
    return stack_->currentWidget() == message_ ? message_->text() : QString();
}

void TokenPreviewPanel::showMessage(const QString &text) {
    samples_.clear();
    has_stats_ = false;
    problem_ = false;
    message_->setText(text);
    setTextTone(message_, TextTone::Normal);
    stack_->setCurrentWidget(message_);
    stats_->clear();
    updateNavigation();
}

void TokenPreviewPanel::showProblem(const QString &problem) {
    showMessage(problem);
    problem_ = true;
    setTextTone(message_, TextTone::Problem);
}

void TokenPreviewPanel::showPreview(const TokenPreview &preview) {
    showMessage(QString());
    samples_ = preview.samples;
    pairs_ = preview.stats.pairs;
    has_stats_ = true;
    showStats(preview);
    if (samples_.empty()) {
        message_->setText(tr("No line of the file holds text to tokenize."));
        updateNavigation();
        return;
    }
    showSample(0);
}

void TokenPreviewPanel::showSample(int index) {
    if (index < 0 || index >= sampleCount()) {
        return;
    }
    index_ = index;
    const TokenizedSample &sample = samples_[static_cast<std::size_t>(index)];
    std::vector<TokenChips::Chip> chips;
    chips.reserve(sample.tokens.size());
    for (std::size_t i = 0; i < sample.tokens.size(); ++i) {
        const PreviewToken &token = sample.tokens[i];
        chips.push_back({token.id, QString::fromStdString(token.piece), token.special,
                         static_cast<std::int64_t>(i) < sample.prompt_tokens});
    }
    chips_->setChips(std::move(chips));
    stack_->setCurrentWidget(scroll_);
    scroll_->ensureVisible(0, 0);

    QString text =
        tr("line %1 · %n tokens", nullptr, static_cast<int>(sample.total_tokens)).arg(sample.line);
    if (sample.prompt_tokens > 0) {
        text += tr(" (%n in the prompt)", nullptr, static_cast<int>(sample.prompt_tokens));
    }
    if (pairs_) {
        text += sample.rejected ? tr(" · rejected completion") : tr(" · chosen completion");
    }
    if (static_cast<std::int64_t>(sample.tokens.size()) < sample.total_tokens) {
        text += tr(", the first %1 shown").arg(sample.tokens.size());
    }
    sample_label_->setText(text);
    updateNavigation();
}

void TokenPreviewPanel::updateNavigation() {
    const bool stepping = sampleCount() > 1;
    previous_->setEnabled(stepping && index_ > 0);
    next_->setEnabled(stepping && index_ + 1 < sampleCount());
    previous_->setVisible(sampleCount() > 0);
    next_->setVisible(sampleCount() > 0);
    if (samples_.empty()) {
        sample_label_->clear();
    }
}

void TokenPreviewPanel::showStats(const TokenPreview &preview) {
    const TokenCountStats &stats = preview.stats;
    const int records = static_cast<int>(stats.records);
    QString read = stats.pairs         ? tr("%n preference pairs read", nullptr, records)
                   : stats.instruction ? tr("%n records read", nullptr, records)
                                       : tr("%n lines read", nullptr, records);
    read += stats.whole_file ? tr(" (the whole file)")
                             : tr(" (the first %1)").arg(DisplayText::bytes(stats.bytes));
    const QString per_record =
        (stats.pairs ? tr("tokens per sequence (prompt and chosen or rejected completion): mean "
                          "%1 · median %2 · p95 %3 · max %4")
         : stats.instruction ? tr("tokens per record: mean %1 · median %2 · p95 %3 · max %4")
                             : tr("tokens per line: mean %1 · median %2 · p95 %3 · max %4"))
            .arg(decimal(stats.mean, 1), decimal(stats.median, 1), QLocale().toString(stats.p95),
                 QLocale().toString(stats.max));
    QStringList lines{read + QStringLiteral(" · ") + per_record + QStringLiteral(" · ") +
                      tr("%1 characters per token").arg(decimal(stats.characters_per_token, 2))};
    if (stats.seq_len > 0) {
        const int longer = static_cast<int>(stats.longer_than_window);
        if (longer == 0) {
            lines << tr("All fit the context of %1 tokens (model.seq_len).").arg(stats.seq_len);
        } else if (stats.pairs) {
            lines << tr("%n sequences longer than the context of %1 tokens (model.seq_len): "
                        "training cuts their completions there.",
                        nullptr, longer)
                         .arg(stats.seq_len);
        } else if (stats.instruction) {
            lines << tr("%n records longer than the context of %1 tokens (model.seq_len): "
                        "training cuts them there.",
                        nullptr, longer)
                         .arg(stats.seq_len);
        } else {
            lines << tr("%n lines longer than the context of %1 tokens (model.seq_len): "
                        "training splits them over several windows.",
                        nullptr, longer)
                         .arg(stats.seq_len);
        }
    }
    if (stats.pairs && stats.seq_len > 0) {
        lines << tr("Padding: %1 of the tokens computed, each sequence a row padded to the "
                    "longest of its batch (pairs are not packed).")
                     .arg(percent(stats.padding_unpacked));
    } else if (stats.instruction && stats.seq_len > 0) {
        lines << tr("Padding: %1 of the tokens computed with one record per row (each batch "
                    "padded to its longest), %2 with the records packed side by side.")
                     .arg(percent(stats.padding_unpacked), percent(stats.padding_packed));
    }
    if (preview.trained_on_sample) {
        lines << tr("The %1 tokenizer was trained on these lines for the preview; the project "
                    "trains it on the whole file.")
                     .arg(preview.tokenizer == "bpe" ? QStringLiteral("BPE")
                                                     : QStringLiteral("Unigram"));
    }
    stats_->setText(lines.join(QLatin1Char('\n')));
    setTextTone(stats_, stats.longer_than_window > 0 ? TextTone::Caution : TextTone::Normal);
}

} // namespace headroom::ui
