// The config wizard with "Start from a pretrained model": a Hugging Face folder's facts on the
// data page, a bad folder's problem inline with Next disabled, the base's context and LoRA
// settings on the later pages, and the project createProject writes from them.
#include "sample_files.h"
#include "tiny_hf_model.h"
#include "wizard/BaseModelBox.h"
#include "wizard/ConfigWizard.h"
#include "wizard/DataPage.h"
#include "wizard/LoraControls.h"
#include "wizard/MemoryBarsWidget.h"
#include "wizard/MemoryPlanPage.h"
#include "wizard/ModelSizePage.h"
#include "wizard/ObjectiveBox.h"
#include "wizard/PlanChoiceTable.h"
#include "wizard/ReviewPage.h"
#include "wizard/RewardField.h"
#include "wizard/TokenPreviewPanel.h"

#include <headroom/config.h>
#include <headroom/project.h>

#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include <optional>

using headroom::ui::ConfigWizard;
using test_support::writeFile;

namespace {
constexpr int kTimeout = 60000;

QString text(const QWidget *widget, const char *name) {
    return widget->findChild<QLabel *>(name)->text();
}
} // namespace

class TestPretrainedWizard : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void theFolderShowsTheModelsFacts();
    void aBadFolderBlocksNextWithTheReason_data();
    void aBadFolderBlocksNextWithTheReason();
    void wholeWizardCreatesAPretrainedProject();
    void loraOffOrWithoutTargets();
    void thePlanTableComparesBaseFormats();
    void backToANewModelDropsTheBase();
    void droppingAModelFolderChoosesIt();
    void mixtralOffersItsExperts();
    void preferencePairsOfferTheObjective();
    void preferencePairsNeedAPretrainedModel();
    void unpairedRecordsOfferKto();
    void promptsOfferGrpoWithAReward();

private:
    // Hardware with the defaults, then the data page with the corpus and `base`.
    bool toDataPage(ConfigWizard &wizard, const QString &base);
    bool next(ConfigWizard &wizard);
    // From the data page through the remaining pages to Finish: the created project's config,
    // nothing when a page or the creation failed.
    std::optional<headroom::Config> finishProject(ConfigWizard &wizard, const QString &name);

    QTemporaryDir dir_;
    QString corpus_;
    QString gpt2_;
    QString llama_;
};

void TestPretrainedWizard::initTestCase() {
    QVERIFY(dir_.isValid());
    corpus_ = writeFile(QDir(dir_.path()), "corpus.txt", test_support::storyText(200));
    gpt2_ = test_support::writeTinyHfModel(dir_.filePath("tiny-gpt2"), "gpt2");
    llama_ = test_support::writeTinyHfModel(dir_.filePath("tiny-llama"), "llama");
    QVERIFY(!gpt2_.isEmpty() && !llama_.isEmpty());
}

bool TestPretrainedWizard::next(ConfigWizard &wizard) {
    QAbstractButton *next = wizard.button(QWizard::NextButton);
    if (!QTest::qWaitFor([next] { return next->isEnabled(); }, kTimeout)) {
        qWarning() << "Next stays disabled on page" << wizard.currentId()
                   << text(&wizard, "baseDetails") << text(&wizard, "dataStatus");
        return false;
    }
    const int before = wizard.currentId();
    wizard.next();
    return wizard.currentId() != before;
}

bool TestPretrainedWizard::toDataPage(ConfigWizard &wizard, const QString &base) {
    wizard.show();
    if (!next(wizard) || wizard.currentId() != ConfigWizard::Data) {
        return false;
    }
    wizard.setDataPath(corpus_);
    wizard.setBaseFolder(base);
    return true;
}

void TestPretrainedWizard::theFolderShowsTheModelsFacts() {
    ConfigWizard wizard;
    QVERIFY(toDataPage(wizard, gpt2_));
    auto *box = wizard.dataPage()->baseModelBox();
    QVERIFY(box->isVisible());
    QVERIFY(!wizard.findChild<QComboBox *>("tokenizer")->isVisible()); // the base's own
    QVERIFY(!wizard.findChild<QComboBox *>("target")->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(box->isReady(), kTimeout);
    QCOMPARE(box->problem(), QString());
    const QString details = text(&wizard, "baseDetails");
    for (const char *part :
         {"GPT2LMHeadModel", "parameters", "1 layers", "width 16", "Context length: 512 tokens",
          "F32", "Tokenizer: tokenizer.json", "in fp32", "in bf16"}) {
        QVERIFY2(details.contains(part), qPrintable(part + QString(" in: ") + details));
    }
    QVERIFY2(!details.contains(QString(dir_.path())), qPrintable(details)); // no long paths
    QCOMPARE(box->info()->layers, 1);
    // The weights' memory: 4 and 2 bytes per parameter.
    const std::int64_t parameters = box->info()->parameters;
    QVERIFY(parameters > 5000);
    // What the chosen profile's budget says about it, one way or the other.
    QVERIFY2(details.contains("budget") || details.contains("Memory plan ("), qPrintable(details));
    QTRY_VERIFY_WITH_TIMEOUT(wizard.button(QWizard::NextButton)->isEnabled(), kTimeout);
}

void TestPretrainedWizard::aBadFolderBlocksNextWithTheReason_data() {
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QString>("reason");
    QDir(dir_.path()).mkpath("empty-folder");
    const QString no_weights = dir_.filePath("no-weights");
    QDir().mkpath(no_weights);
    QFile::copy(gpt2_ + "/config.json", no_weights + "/config.json");
    QFile::copy(gpt2_ + "/tokenizer.json", no_weights + "/tokenizer.json");
    QTest::newRow("no such folder") << dir_.filePath("nowhere") << "nowhere";
    QTest::newRow("no config.json") << dir_.filePath("empty-folder") << "config.json";
    QTest::newRow("no weights") << no_weights << "safetensors";
}

void TestPretrainedWizard::aBadFolderBlocksNextWithTheReason() {
    QFETCH(QString, folder);
    QFETCH(QString, reason);
    ConfigWizard wizard;
    QVERIFY(toDataPage(wizard, folder));
    auto *box = wizard.dataPage()->baseModelBox();
    QSignalSpy checked(box, &headroom::ui::BaseModelBox::checked);
    QVERIFY(checked.wait(kTimeout));
    QTRY_VERIFY_WITH_TIMEOUT(!box->isChecking(), kTimeout);
    QVERIFY(!box->isReady());
    QVERIFY2(box->problem().contains(reason), qPrintable(box->problem()));
    // The problem is on the page (with break opportunities in its paths).
    QString shown = text(&wizard, "baseDetails");
    shown.remove(QChar(0x200b));
    QVERIFY2(shown.contains(reason), qPrintable(shown));
    QVERIFY(!wizard.dataPage()->isComplete());
    // The data file alone reads cleanly; the folder keeps Next disabled.
    QTRY_VERIFY_WITH_TIMEOUT(!wizard.dataPage()->isChecking(), kTimeout);
    QVERIFY(!wizard.button(QWizard::NextButton)->isEnabled());

    // A good folder unblocks the page.
    wizard.setBaseFolder(gpt2_);
    QTRY_VERIFY_WITH_TIMEOUT(wizard.button(QWizard::NextButton)->isEnabled(), kTimeout);
    QVERIFY(box->problem().isEmpty());
}

void TestPretrainedWizard::wholeWizardCreatesAPretrainedProject() {
    ConfigWizard wizard;
    QVERIFY(toDataPage(wizard, llama_));
    QVERIFY(next(wizard));

    // (c) The base's size is given; the context is at most the base's.
    QCOMPARE(wizard.currentId(), int(ConfigWizard::ModelSize));
    QVERIFY(!wizard.findChild<QComboBox *>("preset")->isVisible());
    auto *context = wizard.findChild<QSpinBox *>("contextLength");
    QVERIFY(context->isVisible());
    QCOMPARE(context->maximum(), 512);
    QCOMPARE(context->value(), 256); // proposed: at most 256
    QCOMPARE(wizard.modelSizePage()->parameterCount(), qint64(wizard.settings().base->parameters));
    QVERIFY(text(&wizard, "parameterCount").contains("LlamaForCausalLM"));
    context->setValue(32);
    QVERIFY(next(wizard));

    // (d) LoRA on the attention's query and value projections, by the folder's names.
    QCOMPARE(wizard.currentId(), int(ConfigWizard::MemoryPlan));
    QVERIFY(wizard.findChild<QGroupBox *>("fineTuning")->isVisible());
    auto *lora = wizard.findChild<QCheckBox *>("loraEnabled");
    QVERIFY(lora->isChecked());
    for (const char *name :
         {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}) {
        QVERIFY2(wizard.findChild<QCheckBox *>(QString("loraTarget_") + name), name);
    }
    QVERIFY(wizard.findChild<QCheckBox *>("loraTarget_q_proj")->isChecked());
    QVERIFY(wizard.findChild<QCheckBox *>("loraTarget_v_proj")->isChecked());
    QVERIFY(!wizard.findChild<QCheckBox *>("loraTarget_k_proj")->isChecked());
    wizard.findChild<QCheckBox *>("loraTarget_k_proj")->click();
    wizard.findChild<QSpinBox *>("loraRank")->setValue(4);
    QCOMPARE(wizard.settings().config.text("lora.targets"), std::string("q_proj,k_proj,v_proj"));
    // The frozen base held at 4 bits.
    auto *base_format = wizard.findChild<QComboBox *>("baseFormat");
    QVERIFY(base_format && base_format->isEnabled());
    QCOMPARE(base_format->currentData().toString(), QString("fp32"));
    base_format->setCurrentIndex(base_format->findData("nf4"));
    QCOMPARE(wizard.settings().config.text("model.base_dtype"), std::string("nf4"));
    // The planner's bars, or (a planner without pretrained models) the weights' size instead
    // of another model's numbers.
    auto *page = wizard.memoryPlanPage();
    const QString verdict = text(&wizard, "verdict");
    if (page->bars()->total() == 0) {
        QVERIFY2(verdict.contains("does not estimate pretrained models"), qPrintable(verdict));
        QVERIFY(!wizard.findChild<QAbstractButton *>("verify")->isEnabled());
    } else {
        // The planner's estimate of this base: LoRA trains far fewer weights than it has.
        QVERIFY2(verdict.contains("LlamaForCausalLM"), qPrintable(verdict));
        QVERIFY(page->estimate().trainable < page->estimate().parameters);
    }
    // All linear layers greys the single projections out.
    auto *all_linear = wizard.findChild<QCheckBox *>("loraAllLinear");
    all_linear->click();
    QVERIFY(!wizard.findChild<QCheckBox *>("loraTarget_q_proj")->isEnabled());
    QCOMPARE(wizard.settings().config.text("lora.targets"), std::string("all-linear"));
    all_linear->click();
    QVERIFY(next(wizard));

    // (e) Review: the base's keys, not the from-scratch model's.
    QCOMPARE(wizard.currentId(), int(ConfigWizard::Review));
    const QString review = wizard.findChild<QPlainTextEdit *>("reviewSettings")->toPlainText();
    for (const char *line :
         {"tokenizer = base", "model.seq_len = 32", "lora.rank = 4",
          "lora.targets = q_proj,k_proj,v_proj", "train.lr = 0.0002", "model.base_dtype = nf4"}) {
        QVERIFY2(review.contains(line), qPrintable(review));
    }
    QVERIFY2(review.contains("model.base = " + llama_), qPrintable(review));
    QVERIFY2(review.startsWith("What it is: a pretrained causal language model, fine-tuned "
                               "(LlamaForCausalLM, "),
             qPrintable(review));
    QVERIFY2(!review.contains("model.layers"), qPrintable(review));
    wizard.reviewPage()->setProjectPath(dir_.filePath("from-llama.headroom"));
    QSignalSpy accepted(&wizard, &QDialog::accepted);
    wizard.button(QWizard::FinishButton)->click();
    QVERIFY2(accepted.wait(kTimeout), qPrintable(wizard.reviewPage()->errorText()));

    const headroom::Config config = headroom::Config::fromJson(
        headroom::Project::open(wizard.projectPath().toStdString()).configJson());
    const std::pair<const char *, std::string> expected[] = {
        {"recipe", "causal_lm"},
        {"tokenizer", "base"},
        {"model.base", "tiny-llama"}, // next to the project: stored relative to it
        {"model.seq_len", "32"},
        {"lora.rank", "4"},
        {"lora.targets", "q_proj,k_proj,v_proj"},
        {"model.base_dtype", "nf4"},
        {"train.lr", "0.0002"},
        {"data.path", "corpus.txt"}};
    for (const auto &[key, value] : expected) {
        QCOMPARE(QString::fromStdString(config.text(key)), QString::fromStdString(value));
    }
}

// Under LoRA the frozen base's format is one more technique in the planner's table: every
// combination lists fp32, half, int8 and nf4 bases, and using an nf4 row sets the format.
void TestPretrainedWizard::thePlanTableComparesBaseFormats() {
    ConfigWizard wizard;
    QVERIFY(toDataPage(wizard, llama_));
    QVERIFY(next(wizard));
    QVERIFY(next(wizard));
    QCOMPARE(wizard.currentId(), int(ConfigWizard::MemoryPlan));
    headroom::ui::PlanChoiceTable *choices = wizard.memoryPlanPage()->planChoices();
    choices->findChild<QCheckBox *>("showAllChoices")->setChecked(true);
    QSet<QString> formats;
    int nf4_row = -1;
    for (int row = 0; row < choices->rowCount(); ++row) {
        for (const QString &assignment : choices->assignmentsOf(row)) {
            if (assignment.startsWith("model.base_dtype=")) {
                formats.insert(assignment.section('=', 1));
                if (assignment.endsWith("=nf4") && nf4_row < 0) {
                    nf4_row = row;
                }
            }
        }
    }
    QVERIFY2(formats.contains("fp32") && formats.contains("int8") && formats.contains("nf4") &&
                 (formats.contains("bf16") || formats.contains("fp16")),
             qPrintable(QStringList(formats.values()).join(',')));
    QVERIFY(nf4_row >= 0);
    choices->use(nf4_row);
    QCOMPARE(wizard.settings().config.text("model.base_dtype"), std::string("nf4"));
    QCOMPARE(wizard.findChild<QComboBox *>("baseFormat")->currentData().toString(), QString("nf4"));
    // A pretrained base has no model changes to price.
    QCOMPARE(wizard.memoryPlanPage()->modelChanges()->rowCount(), 0);
}

void TestPretrainedWizard::loraOffOrWithoutTargets() {
    ConfigWizard wizard;
    QVERIFY(toDataPage(wizard, gpt2_));
    QVERIFY(next(wizard));
    QVERIFY(next(wizard));
    QCOMPARE(wizard.currentId(), int(ConfigWizard::MemoryPlan));
    // GPT-2's projections; c_attn proposed.
    auto *c_attn = wizard.findChild<QCheckBox *>("loraTarget_c_attn");
    QVERIFY(c_attn && c_attn->isChecked());
    QVERIFY(wizard.findChild<QCheckBox *>("loraTarget_c_fc"));
    QVERIFY(!wizard.findChild<QCheckBox *>("loraTarget_q_proj"));
    // No projection ticked: nothing to adapt, Next waits.
    c_attn->click();
    QVERIFY(!wizard.memoryPlanPage()->isComplete());
    QVERIFY(!wizard.button(QWizard::NextButton)->isEnabled());
    // LoRA off trains every weight with the smaller learning rate.
    wizard.findChild<QCheckBox *>("loraEnabled")->click();
    QVERIFY(!wizard.findChild<QSpinBox *>("loraRank")->isEnabled());
    QVERIFY(!wizard.findChild<QComboBox *>("baseFormat")->isEnabled());
    QCOMPARE(wizard.settings().config.text("model.base_dtype"), std::string("fp32"));
    QVERIFY(wizard.memoryPlanPage()->isComplete());
    QCOMPARE(wizard.settings().config.text("lora.rank"), std::string("0"));
    QCOMPARE(wizard.settings().config.text("train.lr"), std::string("0.00002"));
    QVERIFY(next(wizard));
    wizard.reviewPage()->setProjectPath(dir_.filePath("full-gpt2.headroom"));
    QSignalSpy accepted(&wizard, &QDialog::accepted);
    wizard.button(QWizard::FinishButton)->click();
    QVERIFY2(accepted.wait(kTimeout), qPrintable(wizard.reviewPage()->errorText()));
    const headroom::Config config = headroom::Config::fromJson(
        headroom::Project::open(wizard.projectPath().toStdString()).configJson());
    QCOMPARE(QString::fromStdString(config.text("lora.rank")), QString("0"));
    QCOMPARE(QString::fromStdString(config.text("model.base")), QString("tiny-gpt2"));
}

void TestPretrainedWizard::backToANewModelDropsTheBase() {
    ConfigWizard wizard;
    QVERIFY(toDataPage(wizard, gpt2_));
    QVERIFY(next(wizard));
    QVERIFY(wizard.settings().pretrained());
    wizard.back();
    QCOMPARE(wizard.currentId(), int(ConfigWizard::Data));
    auto *recipe = wizard.findChild<QComboBox *>("recipe");
    recipe->setCurrentIndex(recipe->findData("gpt"));
    QVERIFY(!wizard.dataPage()->baseModelBox()->isVisible());
    QVERIFY(next(wizard));
    QVERIFY(!wizard.settings().pretrained());
    const headroom::Config &config = wizard.settings().config;
    QCOMPARE(config.text("model.base"), std::string());
    QCOMPARE(config.text("tokenizer"), std::string("byte"));
    QCOMPARE(config.text("lora.rank"), std::string("0"));
    QVERIFY(wizard.findChild<QComboBox *>("preset")->isVisible());
    wizard.modelSizePage()->selectPreset("tiny");
    QVERIFY(next(wizard));
    QVERIFY(!wizard.findChild<QGroupBox *>("fineTuning")->isVisible());
}

void TestPretrainedWizard::droppingAModelFolderChoosesIt() {
    ConfigWizard wizard;
    wizard.show();
    QVERIFY(next(wizard));
    auto *page = wizard.dataPage();
    QMimeData data;
    data.setUrls({QUrl::fromLocalFile(gpt2_)});
    const QPoint centre = page->rect().center();
    QDragEnterEvent enter(centre, Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(page, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(centre, Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(page, &drop);
    QVERIFY(page->isPretrained());
    QCOMPARE(wizard.findChild<QLineEdit *>("baseFolder")->text(), gpt2_);
    QCOMPARE(wizard.findChild<QLineEdit *>("dataPath")->text(), QString()); // still to choose
    QTRY_VERIFY_WITH_TIMEOUT(page->baseModelBox()->isReady(), kTimeout);
}

void TestPretrainedWizard::mixtralOffersItsExperts() {
    headroom::PretrainedInfo info;
    info.architecture = "MixtralForCausalLM";
    info.model_type = "mixtral";
    info.experts = 8;
    info.experts_per_token = 2;
    QCOMPARE(headroom::ui::loraProjectionNames(info),
             (QStringList{"q_proj", "k_proj", "v_proj", "o_proj", "w1", "w2", "w3"}));
    QCOMPARE(headroom::ui::defaultLoraTargets(info), QString("q_proj,v_proj"));
    const QString summary = headroom::ui::BaseModelText::summaryHtml(info);
    QVERIFY2(
        summary.contains("Mixture of Experts: 8 experts in every layer, each token routed to 2"),
        qPrintable(summary));
}

namespace {
QByteArray preferencePairs(int count) {
    QByteArray records;
    for (int i = 0; i < count; ++i) {
        records += QString("{\"prompt\": \"Is %1 even?\", \"chosen\": \" %2\", \"rejected\": "
                           "\" %3\"}\n")
                       .arg(i)
                       .arg(i % 2 == 0 ? "yes" : "no")
                       .arg(i % 2 == 0 ? "no" : "yes")
                       .toUtf8();
    }
    return records;
}
} // namespace

// A file of preference pairs on a pretrained causal model: the data page reads them as pairs,
// offers the objective (DPO first) in place of packing, shows each pair's two sequences, and
// the project is made with the objective chosen.
void TestPretrainedWizard::preferencePairsOfferTheObjective() {
    const QString pairs = writeFile(QDir(dir_.path()), "pairs.jsonl", preferencePairs(40));
    ConfigWizard wizard;
    QVERIFY(toDataPage(wizard, llama_));
    headroom::ui::DataPage *page = wizard.dataPage();
    wizard.setDataPath(pairs);
    QTRY_VERIFY_WITH_TIMEOUT(page->isPreferenceData() && !page->isChecking(), kTimeout);
    auto *objective = page->objectiveBox();
    QVERIFY(objective->isVisible());
    QCOMPARE(objective->currentData().toString(), QString("dpo"));
    QVERIFY(!wizard.findChild<QCheckBox *>("packing")->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(!page->isTokenizing() && page->tokenPreview()->sampleCount() > 0,
                             kTimeout);
    QCOMPARE(page->tokenPreview()->sampleCount(), 20); // the first 20 samples: 10 pairs
    const QString chosen = text(page->tokenPreview(), "tokenSample");
    QVERIFY2(chosen.startsWith("line 1") && chosen.contains("chosen completion"),
             qPrintable(chosen));
    page->tokenPreview()->findChild<QAbstractButton *>("nextSample")->click();
    const QString rejected = text(page->tokenPreview(), "tokenSample");
    QVERIFY2(rejected.startsWith("line 1") && rejected.contains("rejected completion"),
             qPrintable(rejected));
    QVERIFY2(text(page->tokenPreview(), "tokenStats").contains("40 preference pairs read"),
             qPrintable(text(page->tokenPreview(), "tokenStats")));
    objective->setCurrentIndex(objective->findData("orpo"));
    QVERIFY(next(wizard));
    QVERIFY(next(wizard));
    QVERIFY(next(wizard));
    QCOMPARE(wizard.currentId(), int(ConfigWizard::Review));
    const QString review = wizard.findChild<QPlainTextEdit *>("reviewSettings")->toPlainText();
    QVERIFY2(review.contains("tuned on preference pairs with ORPO"), qPrintable(review));
    QVERIFY2(review.contains("train.objective = orpo"), qPrintable(review));
    wizard.reviewPage()->setProjectPath(dir_.filePath("pairs.headroom"));
    QSignalSpy accepted(&wizard, &QDialog::accepted);
    wizard.button(QWizard::FinishButton)->click();
    QVERIFY2(accepted.wait(kTimeout), qPrintable(wizard.reviewPage()->errorText()));
    const headroom::Config config = headroom::Config::fromJson(
        headroom::Project::open(wizard.projectPath().toStdString()).configJson());
    QCOMPARE(QString::fromStdString(config.text("train.objective")), QString("orpo"));
    QCOMPARE(QString::fromStdString(config.text("data.packing")), QString("0"));
}

void TestPretrainedWizard::preferencePairsNeedAPretrainedModel() {
    const QString pairs = writeFile(QDir(dir_.path()), "scratch-pairs.jsonl", preferencePairs(20));
    ConfigWizard wizard;
    wizard.show();
    QVERIFY(next(wizard));
    headroom::ui::DataPage *page = wizard.dataPage();
    page->selectRecipe("gpt");
    wizard.setDataPath(pairs);
    QTRY_VERIFY_WITH_TIMEOUT(!page->isChecking() && !page->problem().isEmpty(), kTimeout);
    QVERIFY2(page->problem().contains("Start from a pretrained model"),
             qPrintable(page->problem()));
    QVERIFY(!page->objectiveBox()->isVisible());
    QVERIFY(!wizard.button(QWizard::NextButton)->isEnabled());
}

std::optional<headroom::Config> TestPretrainedWizard::finishProject(ConfigWizard &wizard,
                                                                    const QString &name) {
    for (int page = 0; page < 3; ++page) {
        if (!next(wizard)) {
            return std::nullopt;
        }
    }
    wizard.reviewPage()->setProjectPath(dir_.filePath(name));
    QSignalSpy accepted(&wizard, &QDialog::accepted);
    wizard.button(QWizard::FinishButton)->click();
    if (!accepted.wait(kTimeout)) {
        qWarning() << wizard.reviewPage()->errorText();
        return std::nullopt;
    }
    return headroom::Config::fromJson(
        headroom::Project::open(wizard.projectPath().toStdString()).configJson());
}

// KTO's unpaired records (a boolean "label"): the page offers KTO alone, and the project
// trains with it.
void TestPretrainedWizard::unpairedRecordsOfferKto() {
    QByteArray records;
    for (int i = 0; i < 30; ++i) {
        records +=
            QString("{\"prompt\": \"Is %1 even?\", \"completion\": \" %2\", \"label\": %3}\n")
                .arg(i)
                .arg(i % 3 == 0 ? "yes" : "no")
                .arg((i % 3 == 0) == (i % 2 == 0) ? "true" : "false")
                .toUtf8();
    }
    const QString data = writeFile(QDir(dir_.path()), "kto.jsonl", records);
    ConfigWizard wizard;
    QVERIFY(toDataPage(wizard, llama_));
    headroom::ui::DataPage *page = wizard.dataPage();
    wizard.setDataPath(data);
    QTRY_VERIFY_WITH_TIMEOUT(page->isPreferenceData() && !page->isChecking(), kTimeout);
    auto *objective = page->objectiveBox();
    QVERIFY(objective->isVisible());
    QCOMPARE(objective->count(), 1);
    QCOMPARE(objective->currentData().toString(), QString("kto"));
    const std::optional<headroom::Config> config = finishProject(wizard, "kto.headroom");
    QVERIFY(config);
    QCOMPARE(QString::fromStdString(config->text("train.objective")), QString("kto"));
}

// Prompts without completions: the page offers GRPO and asks for the reward, which it checks
// as the engine does (Next waits for a usable one); the project trains on whole groups.
void TestPretrainedWizard::promptsOfferGrpoWithAReward() {
    QByteArray records;
    for (int i = 0; i < 30; ++i) {
        records += QString("{\"prompt\": \"What is %1 + 1?\", \"answer\": %2}\n")
                       .arg(i)
                       .arg(i + 1)
                       .toUtf8();
    }
    const QString data = writeFile(QDir(dir_.path()), "prompts.jsonl", records);
    ConfigWizard wizard;
    QVERIFY(toDataPage(wizard, llama_));
    headroom::ui::DataPage *page = wizard.dataPage();
    wizard.setDataPath(data);
    QTRY_VERIFY_WITH_TIMEOUT(page->isPreferenceData() && !page->isChecking(), kTimeout);
    auto *objective = page->objectiveBox();
    QCOMPARE(objective->count(), 1);
    QCOMPARE(objective->currentData().toString(), QString("grpo"));
    headroom::ui::RewardField *reward = page->rewardField();
    QVERIFY(reward->isVisible());
    QAbstractButton *next_button = wizard.button(QWizard::NextButton);
    QVERIFY(!next_button->isEnabled()); // no reward yet
    QVERIFY(reward->problem().contains("grpo.reward is empty"));
    reward->setText("exact:answer,regex:(");
    QVERIFY2(reward->problem().contains("term 2") &&
                 reward->problem().contains("not a valid regular expression"),
             qPrintable(reward->problem()));
    QVERIFY(!next_button->isEnabled());
    reward->setText("exact:answer,regex:\\?*0.1");
    QVERIFY2(reward->problem().isEmpty(), qPrintable(reward->problem()));
    const std::optional<headroom::Config> config = finishProject(wizard, "grpo.headroom");
    QVERIFY(config);
    QCOMPARE(QString::fromStdString(config->text("train.objective")), QString("grpo"));
    QCOMPARE(QString::fromStdString(config->text("grpo.reward")),
             QString("exact:answer,regex:\\?*0.1"));
    QCOMPARE(config->integer("train.micro_batch") * config->integer("train.accumulation") %
                 config->integer("grpo.group_size"),
             std::int64_t{0});
}

QTEST_MAIN(TestPretrainedWizard)
#include "test_pretrained_wizard.moc"
