#include "rewards/reward_command.h"
#include "rewards/rewards.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <sys/wait.h>

using namespace headroom::rewards;

namespace {

// Runs `call` and returns the message of the E it throws ("" when it throws nothing).
template <typename E, typename F> QString messageOf(F call) {
    try {
        call();
    } catch (const E &error) {
        return QString::fromStdString(error.what());
    }
    return QString();
}

Sample sampleWith(const std::string &completion, const std::string &record_json = "{}",
                  std::int64_t tokens = 0) {
    return Sample{"Question?", completion, tokens, record_json};
}

// The scores of a one-term spec.
std::vector<double> scoresOf(const std::string &spec, const std::vector<Sample> &samples) {
    std::vector<double> column;
    for (const auto &row : RewardSet(parseRewardSpec(spec), RewardOptions()).score(samples)) {
        column.push_back(row.at(0));
    }
    return column;
}

bool noChildLeft() {
    const pid_t result = ::waitpid(-1, nullptr, WNOHANG);
    return result == 0 || (result == -1 && errno == ECHILD);
}

// The message of the RewardError that `command` throws for `count` samples ("" when none).
QString commandError(const std::string &command, std::size_t count = 1, double timeout_s = 10) {
    const std::vector<Sample> samples(count, sampleWith("a"));
    return messageOf<RewardError>([&] { runRewardCommand(command, samples, timeout_s, ""); });
}

// "KIND NAME [ARGUMENT] *WEIGHT" per term, joined by " | ".
QString described(const std::vector<RewardTerm> &terms) {
    QStringList parts;
    for (const RewardTerm &term : terms) {
        parts << QString("%1 %2 [%3] *%4")
                     .arg(int(term.kind))
                     .arg(QString::fromStdString(term.name), QString::fromStdString(term.argument))
                     .arg(QString::number(term.weight, 'g', QLocale::FloatingPointShortest));
    }
    return parts.join(" | ");
}

} // namespace

class TestRewards : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsesEveryKind();
    void weightIsTakenOnlyWhenANumberFollowsTheLastStar();
    void commaSeparatesOnlyBeforeAKind();
    void refusalsNameTheTerm_data();
    void refusalsNameTheTerm();
    void formatReadsBackTheSameTerms();
    void dotMatchesLineBreaks();
    void regexFormatAndLengthScores();
    void answersMatch_data();
    void answersMatch();
    void finalAnswerTakesTheLastMatch();
    void exactComparesTheFinalAnswer();
    void exactRefusesMissingFieldsAndBadPatterns();
    void combineWeighsTheTerms();
    void longCompletionsDoNotExhaustTheStack();
    void commandScoresEachCompletion();
    void commandSeesTheRecord();
    void commandRunsOncePerScoreInItsDirectory();
    void commandFailureShowsItsStderr();
    void commandOutputIsChecked();
    void commandTimeoutKillsItsGroup();
    void largeInputAndOutputDoNotDeadlock();
    void commandThatStopsReadingIsFine();
};

void TestRewards::parsesEveryKind() {
    QCOMPARE(described(parseRewardSpec("regex:\\d+,exact:answer,format:<think>.*</think>*0.2,"
                                       "length:200*-0.5,command:echo 1")),
             QString("0 regex:\\d+ [\\d+] *1 | 1 exact:answer [answer] *1 | "
                     "2 format:<think>.*</think> [<think>.*</think>] *0.2 | "
                     "3 length:200 [200] *-0.5 | 4 command:echo 1 [echo 1] *1"));
}

void TestRewards::weightIsTakenOnlyWhenANumberFollowsTheLastStar() {
    const std::pair<const char *, const char *> cases[] = {
        {"regex:a.*", "0 regex:a.* [a.*] *1"},
        {"format:<think>.*</think>*0.2", "2 format:<think>.*</think> [<think>.*</think>] *0.2"},
        {"regex:a*1e-1", "0 regex:a [a] *0.1"},
        {"regex:x*-0.5", "0 regex:x [x] *-0.5"},
        {"regex:a*b", "0 regex:a*b [a*b] *1"},
        {"regex:a**2", "0 regex:a* [a*] *2"},
        {"exact: answer * 3", "1 exact:answer [answer] *3"},
        {"length:10*0", "3 length:10 [10] *0"}};
    for (const auto &[spec, expected] : cases) {
        QCOMPARE(described(parseRewardSpec(spec)), QString(expected));
    }
}

void TestRewards::commaSeparatesOnlyBeforeAKind() {
    QCOMPARE(described(parseRewardSpec("regex:a{1,3},exact:answer")),
             QString("0 regex:a{1,3} [a{1,3}] *1 | 1 exact:answer [answer] *1"));
    QCOMPARE(described(parseRewardSpec("regex:a,b,c")), QString("0 regex:a,b,c [a,b,c] *1"));
    QCOMPARE(described(parseRewardSpec("regex:x, length:10*2 ,command:printf '1,2'")),
             QString("0 regex:x [x] *1 | 3 length:10 [10] *2 | "
                     "4 command:printf '1,2' [printf '1,2'] *1"));
}

void TestRewards::refusalsNameTheTerm_data() {
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QStringList>("parts");
    const auto row = [](const char *name, const char *spec, const QStringList &parts) {
        QTest::newRow(name) << QString(spec) << parts;
    };
    row("empty", "  ", {"grpo.reward is empty", "regex:PATTERN"});
    row("bad regex", "regex:a,exact:x,regex:(",
        {"grpo.reward: term 3 \"regex:(\"", "is not a valid regular expression: "});
    row("bad format", "format:[a", {"term 1 \"format:[a\"", "regular"});
    row("unknown kind", "regexp:a", {"term 1 \"regexp:a\"", "unknown kind \"regexp\""});
    row("no argument", "exact:a,regex:*2", {"term 2 \"regex:*2\"", "needs an argument"});
    row("bare kind", "length", {"term 1 \"length\"", "length:N"});
    row("empty argument", "exact:", {"term 1", "exact:FIELD"});
    row("zero length", "length:0", {"\"length:0\"", "positive whole"});
    row("fractional length", "length:2.5", {"\"length:2.5\"", "length"});
    row("negative length", "length:-5", {"\"length:-5\"", "positive"});
    row("bad weight", "exact:answer*x", {"\"exact:answer*x\"", "bad weight \"x\""});
    row("empty term", ",regex:a", {"term 1 is empty"});
}

void TestRewards::refusalsNameTheTerm() {
    QFETCH(QString, spec);
    QFETCH(QStringList, parts);
    const QString message =
        messageOf<std::invalid_argument>([&] { parseRewardSpec(spec.toStdString()); });
    QVERIFY2(!message.isEmpty(), "no std::invalid_argument");
    for (const QString &part : parts) {
        QVERIFY2(message.contains(part), qPrintable(message));
    }
}

void TestRewards::formatReadsBackTheSameTerms() {
    QCOMPARE(formatRewardSpec(parseRewardSpec("exact:answer*1, regex:a{1,3}*0.2")),
             std::string("exact:answer,regex:a{1,3}*0.2"));
    QCOMPARE(formatRewardSpec(parseRewardSpec("regex:a*1e-1")), std::string("regex:a*0.1"));
    // "a*2" read literally must keep a weight, or it would read back as "a" with weight 2.
    QCOMPARE(formatRewardSpec(parseRewardSpec("regex:a*2*1")), std::string("regex:a*2*1"));
    const auto terms = parseRewardSpec("format:<think>.*</think>*0.3,length:200*-1.5,"
                                       "command:echo 1,regex:x*0.1234567890123,regex:a.**1e-7");
    QCOMPARE(described(parseRewardSpec(formatRewardSpec(terms))), described(terms));
}

void TestRewards::dotMatchesLineBreaks() {
    QVERIFY(std::regex_search("a\nb", compileRewardPattern("a.b")));
    QVERIFY(!std::regex_search("a\nb", compileRewardPattern("a\\.b")));
    QVERIFY(!std::regex_search("a\nb", compileRewardPattern("a[.]b")));
    QVERIFY(std::regex_search("a.b", compileRewardPattern("a[.]b")));
    QVERIFY(std::regex_search("a\\\nb", compileRewardPattern("a\\\\.b")));
    QVERIFY(std::regex_search("aa", compileRewardPattern("(a)\\1"))); // back-references work
}

void TestRewards::regexFormatAndLengthScores() {
    const std::vector<Sample> samples = {sampleWith("<think>\nstep\n</think>\n42\n"),
                                         sampleWith("42 <think>x</think>"), sampleWith("no tags")};
    QCOMPARE(scoresOf("regex:<think>.*</think>", samples), (std::vector<double>{1, 1, 0}));
    QCOMPARE(scoresOf("format:<think>.*</think>\\s*\\d+", samples), (std::vector<double>{1, 0, 0}));
    QCOMPARE(scoresOf("regex:^no", samples), (std::vector<double>{0, 0, 1}));
    std::vector<Sample> lengths;
    for (std::int64_t tokens : {200, 100, 300, 150, 500, 0}) {
        lengths.push_back(sampleWith("x", "{}", tokens));
    }
    QCOMPARE(scoresOf("length:200", lengths), (std::vector<double>{1, 0.5, 0.5, 0.75, 0, 0}));
}

void TestRewards::answersMatch_data() {
    QTest::addColumn<QString>("given");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<bool>("match");
    const auto row = [](const char *name, const char *given, const char *expected, bool match) {
        QTest::newRow(name) << QString(given) << QString(expected) << match;
    };
    row("thousands", "1,234", "1234", true);
    row("trailing dot", "72.", "72", true);
    row("dollar", "$5", "5.0", true);
    row("leading dot", "0.5", ".5", true);
    row("spaces", " 18\n", "18", true);
    row("text", "abc", "abc", true);
    row("not a number", "7", "7a", false);
    row("different", "7", "8", false);
    row("sign", "-3", "3", false);
    row("tolerance", "1000000.5", "1000000", true);
    row("beyond tolerance", "1.00001", "1", false);
    row("text case", "Paris", "paris", false);
}

void TestRewards::answersMatch() {
    QFETCH(QString, given);
    QFETCH(QString, expected);
    QFETCH(bool, match);
    QCOMPARE(headroom::rewards::answersMatch(given.toStdString(), expected.toStdString()), match);
}

void TestRewards::finalAnswerTakesTheLastMatch() {
    const std::regex numbers = compileRewardPattern(RewardOptions().answer_pattern);
    QCOMPARE(finalAnswer("2 apples and 1,234.5 pears, so -7 then 42.", numbers),
             std::optional<std::string>("42"));
    QCOMPARE(finalAnswer("no digits", numbers), std::optional<std::string>());
    const std::regex tagged = compileRewardPattern("<answer>(.*?)</answer>");
    QCOMPARE(finalAnswer("<answer>1</answer> wait <answer>\n12\n</answer> done", tagged),
             std::optional<std::string>("\n12\n"));
    const std::regex either = compileRewardPattern("=(\\d+)|#(\\w+)");
    QCOMPARE(finalAnswer("=12 #ab", either), std::optional<std::string>("ab"));
    QCOMPARE(finalAnswer("#ab =12", either), std::optional<std::string>("12"));
}

void TestRewards::exactComparesTheFinalAnswer() {
    const std::vector<Sample> samples = {
        sampleWith("So 70 + 2 = 72.", R"({"answer": 72})"),
        sampleWith("It is 1,234 in total", R"({"answer": "1234"})"),
        sampleWith("72 or maybe 71", R"({"answer": 72})"),
        sampleWith("I do not know", R"({"answer": 72})"),
        sampleWith("half: 0.5", R"({"answer": 0.5, "other": [1]})")};
    QCOMPARE(scoresOf("exact:answer", samples), (std::vector<double>{1, 1, 0, 0, 1}));
    RewardOptions options;
    options.answer_pattern = "<answer>(.*)</answer>";
    const RewardSet tagged(parseRewardSpec("exact:city"), options);
    const auto scores = tagged.score({sampleWith("<answer> Paris </answer>", R"({"city":"Paris"})"),
                                      sampleWith("Paris", R"({"city":"Paris"})")});
    QCOMPARE(scores[0][0], 1.0);
    QCOMPARE(scores[1][0], 0.0);
}

void TestRewards::exactRefusesMissingFieldsAndBadPatterns() {
    const RewardSet rewards(parseRewardSpec("exact:answer"), RewardOptions());
    QString message = messageOf<RewardError>(
        [&] { rewards.score({sampleWith("42", R"({"question": "q", "solution": "42"})")}); });
    QVERIFY2(message.contains("field \"answer\"") && message.contains("question, solution"),
             qPrintable(message));
    message = messageOf<RewardError>([&] { rewards.score({sampleWith("42", "")}); });
    QVERIFY2(message.contains("\"answer\""), qPrintable(message));
    message =
        messageOf<RewardError>([&] { rewards.score({sampleWith("42", R"({"answer":[4]})")}); });
    QVERIFY2(message.contains("not a string or a number"), qPrintable(message));
    RewardOptions options;
    options.answer_pattern = "(unclosed";
    message = messageOf<std::invalid_argument>(
        [&] { RewardSet(parseRewardSpec("exact:answer"), options); });
    QVERIFY2(message.startsWith("grpo.answer_pattern"), qPrintable(message));
}

void TestRewards::combineWeighsTheTerms() {
    const RewardSet rewards(parseRewardSpec("regex:a*2,regex:b*-0.5,length:10"), RewardOptions());
    QCOMPARE(rewards.terms().size(), std::size_t{3});
    QCOMPARE(rewards.combine({{1, 1, 0.5}, {0, 1, 1}, {0, 0, 0}}),
             (std::vector<double>{2.0, 0.5, 0.0}));
    QVERIFY(!messageOf<std::invalid_argument>([&] { rewards.combine({{1, 1}}); }).isEmpty());
}

void TestRewards::longCompletionsDoNotExhaustTheStack() {
    const std::string thoughts(300000, 'x');
    const std::vector<Sample> samples = {sampleWith("<think>" + thoughts + "</think> 5")};
    QCOMPARE(scoresOf("format:<think>.*</think>\\s*\\d+", samples), std::vector<double>{1});
    QCOMPARE(scoresOf("regex:<think>.*?</think>", samples), std::vector<double>{1});
}

void TestRewards::commandScoresEachCompletion() {
    const std::vector<Sample> samples = {sampleWith("a good\nanswer"), sampleWith("bad"),
                                         sampleWith("good")};
    const std::string command = R"(while read -r line; do case "$line" in *good*) echo 1;; )"
                                R"(*) echo -0.25;; esac; done)";
    QCOMPARE(runRewardCommand(command, samples, 10, ""), (std::vector<double>{1, -0.25, 1}));
    QCOMPARE(runRewardCommand(command, {}, 10, ""), std::vector<double>{});
}

void TestRewards::commandSeesTheRecord() {
    std::vector<Sample> samples = {sampleWith("x", R"({"answer": "42", "id": 1})"),
                                   sampleWith("x", R"({"answer": "7"})"), sampleWith("x", "")};
    samples[1].prompt = "P\"2";
    const std::string command =
        R"(while read -r line; do case "$line" in *'"record":{"answer":"42","id":1}'*) echo 1;; )"
        R"(*'"prompt":"P\"2"'*) echo 2;; *'"record":null'*) echo 3;; *) echo 0;; esac; done)";
    QCOMPARE(runRewardCommand(command, samples, 10, ""), (std::vector<double>{1, 2, 3}));
}

void TestRewards::commandRunsOncePerScoreInItsDirectory() {
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    RewardOptions options;
    options.working_directory = directory.path().toStdString();
    const RewardSet rewards(
        parseRewardSpec("command:echo run >> calls; while read -r l; do echo 0.5; done*2,"
                        "regex:b"),
        options);
    const auto scores = rewards.score({sampleWith("a"), sampleWith("b"), sampleWith("c")});
    QCOMPARE(scores, (std::vector<std::vector<double>>{{0.5, 0}, {0.5, 1}, {0.5, 0}}));
    QCOMPARE(rewards.combine(scores), (std::vector<double>{1, 2, 1}));
    QFile calls(directory.filePath("calls"));
    QVERIFY(calls.open(QIODevice::ReadOnly));
    QCOMPARE(calls.readAll(), QByteArray("run\n"));
    const QString message = messageOf<RewardError>(
        [] { runRewardCommand("echo 1", {sampleWith("a")}, 10, "/nonexistent/dir"); });
    QVERIFY2(message.contains("could not start") && message.contains("/nonexistent/dir"),
             qPrintable(message));
}

void TestRewards::commandFailureShowsItsStderr() {
    QString message = commandError("echo 1; echo 'no model file' >&2; exit 3");
    QVERIFY2(message.startsWith("reward command `echo 1; echo 'no model file' >&2; exit 3` "),
             qPrintable(message));
    QVERIFY2(message.contains("exited with status 3"), qPrintable(message));
    QVERIFY2(message.endsWith("; it printed on stderr: no model file"), qPrintable(message));
    message = commandError("kill -9 $$");
    QVERIFY2(message.contains("killed by signal 9"), qPrintable(message));
    message = commandError("head -c 5000 /dev/zero | tr '\\0' x >&2; echo END >&2; exit 1");
    const QString shown = message.mid(message.indexOf("stderr: ") + 8);
    QVERIFY2(shown.size() == 2000 && shown.endsWith("xxEND"), qPrintable(message.left(200)));
}

void TestRewards::commandOutputIsChecked() {
    QString message = commandError("echo 1", 3);
    QVERIFY2(message.contains("printed 1 rewards for 3 completions"), qPrintable(message));
    message = commandError("echo 1; echo; echo abc; echo 1", 3);
    QVERIFY2(message.contains("line 3 \"abc\", which is not a number"), qPrintable(message));
    message = commandError("echo 1; echo nan; echo 1", 3);
    QVERIFY2(message.contains("\"nan\", which is not a number"), qPrintable(message));
    message = commandError("echo 1; echo inf; echo 1", 3);
    QVERIFY2(message.contains("\"inf\", which is not a number"), qPrintable(message));
    const std::vector<Sample> three(3, sampleWith("a"));
    QCOMPARE(runRewardCommand("printf '1\\r\\n\\n 2.5e-1 \\n-3'", three, 10, ""),
             (std::vector<double>{1, 0.25, -3}));
}

void TestRewards::commandTimeoutKillsItsGroup() {
    QElapsedTimer timer;
    timer.start();
    QString message = commandError("echo waiting >&2; sleep 5", 1, 0.5);
    QVERIFY2(message.contains("did not finish within 0.5 s"), qPrintable(message));
    QVERIFY2(message.endsWith("stderr: waiting"), qPrintable(message));
    QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
    QVERIFY(noChildLeft());
    // A background process that keeps the output open is part of the command, and killed too.
    QTemporaryDir directory;
    const QString pid_file = directory.filePath("pid");
    timer.restart();
    message = commandError("sleep 5 & echo $! > '" + pid_file.toStdString() + "'; echo 1", 1, 0.5);
    QVERIFY2(message.contains("did not finish"), qPrintable(message));
    QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
    QVERIFY(noChildLeft());
    QFile pid(pid_file);
    QVERIFY(pid.open(QIODevice::ReadOnly));
    const QString stat = "/proc/" + QString::fromLatin1(pid.readAll().trimmed()) + "/stat";
    const auto ended = [&] { // Linux only; ended: a zombie or gone
        QFile file(stat);
        return !file.open(QIODevice::ReadOnly) || file.readAll().contains(") Z ");
    };
    QTRY_VERIFY_WITH_TIMEOUT(ended(), 1000);
}

void TestRewards::largeInputAndOutputDoNotDeadlock() {
    const std::vector<Sample> samples(2000, sampleWith(std::string(2048, 'y')));
    QCOMPARE(runRewardCommand("cat >/dev/null; yes 1 | head -n 2000", samples, 20, ""),
             std::vector<double>(2000, 1.0));
    // 300 KB on stderr before reading any input: a sequential writer would wait forever.
    QCOMPARE(runRewardCommand("head -c 300000 /dev/zero | tr '\\0' x >&2; cat >/dev/null; "
                              "yes 0.5 | head -n 2000",
                              samples, 20, ""),
             std::vector<double>(2000, 0.5));
    QVERIFY(noChildLeft());
}

void TestRewards::commandThatStopsReadingIsFine() {
    // Writing into a closed pipe must not raise SIGPIPE in this process.
    const std::vector<Sample> samples(500, sampleWith(std::string(4096, 'z')));
    QCOMPARE(runRewardCommand("exec 0<&-; yes 1 | head -n 500", samples, 20, ""),
             std::vector<double>(500, 1.0));
    QCOMPARE(runRewardCommand("head -c 10 >/dev/null; yes 2 | head -n 500", samples, 20, ""),
             std::vector<double>(500, 2.0));
}

QTEST_GUILESS_MAIN(TestRewards)
#include "test_rewards.moc"
