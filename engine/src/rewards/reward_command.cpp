#include "rewards/reward_command.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#if !defined(_WIN32)
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <crt_externs.h>
#else
extern char **environ;
#endif
#endif

namespace headroom::rewards {

#if !defined(_WIN32)

namespace {

using RewardClock = std::chrono::steady_clock;

constexpr std::size_t kRewardStderrTail = 2000;

std::string rewardTrimmedLine(const std::string &line) {
    const char *const spaces = " \t\r\n\f\v";
    const std::size_t begin = line.find_first_not_of(spaces);
    if (begin == std::string::npos) {
        return std::string();
    }
    return line.substr(begin, line.find_last_not_of(spaces) - begin + 1);
}

std::string rewardCommandInput(const std::string &prefix, const std::vector<Sample> &samples) {
    std::string input;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        nlohmann::json record;
        if (!rewardTrimmedLine(samples[i].record_json).empty()) {
            record = nlohmann::json::parse(samples[i].record_json, nullptr, false);
            if (record.is_discarded()) {
                throw RewardError(prefix + "could not be given record " + std::to_string(i + 1) +
                                  ": it is not valid JSON.");
            }
        }
        const nlohmann::json line = {{"prompt", samples[i].prompt},
                                     {"completion", samples[i].completion},
                                     {"record", record}};
        // Generated text may end inside a UTF-8 character: replace such bytes, never throw.
        input += line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        input += '\n';
    }
    return input;
}

// A file descriptor closed when it goes out of scope.
class RewardFd {
public:
    RewardFd() = default;
    RewardFd(const RewardFd &) = delete;
    RewardFd &operator=(const RewardFd &) = delete;
    ~RewardFd() { reset(); }
    int get() const { return fd_; }
    bool open() const { return fd_ >= 0; }
    void reset(int fd = -1) {
        if (fd_ >= 0) {
            ::close(fd_);
        }
        fd_ = fd;
    }

private:
    int fd_ = -1;
};

// A pipe whose ends are not inherited by programs started elsewhere.
bool openRewardPipe(RewardFd &read_end, RewardFd &write_end) {
    int fds[2];
#if defined(__linux__)
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        return false;
    }
#else
    if (::pipe(fds) != 0) {
        return false;
    }
    ::fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    ::fcntl(fds[1], F_SETFD, FD_CLOEXEC);
#endif
    read_end.reset(fds[0]);
    write_end.reset(fds[1]);
    return true;
}

// Writing to a command that stopped reading must give EPIPE, not SIGPIPE (which would end the
// whole program): SIGPIPE stays blocked in this thread while the command runs, and one it raised
// is taken off again before the old mask returns.
class RewardSigpipeGuard {
public:
    RewardSigpipeGuard() {
        sigemptyset(&sigpipe_);
        sigaddset(&sigpipe_, SIGPIPE);
        sigset_t pending;
        sigpending(&pending);
        was_pending_ = sigismember(&pending, SIGPIPE) == 1;
        pthread_sigmask(SIG_BLOCK, &sigpipe_, &old_mask_);
    }
    RewardSigpipeGuard(const RewardSigpipeGuard &) = delete;
    RewardSigpipeGuard &operator=(const RewardSigpipeGuard &) = delete;
    ~RewardSigpipeGuard() {
        sigset_t pending;
        sigpending(&pending);
        if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
#if defined(__APPLE__)
            int taken = 0;
            sigwait(&sigpipe_, &taken);
#else
            const timespec no_wait{0, 0};
            sigtimedwait(&sigpipe_, nullptr, &no_wait);
#endif
        }
        pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
    }

private:
    sigset_t sigpipe_{};
    sigset_t old_mask_{};
    bool was_pending_ = false;
};

// The command's process; killed with its whole group and reaped unless it was reaped already.
class RewardChild {
public:
    RewardChild() = default;
    RewardChild(const RewardChild &) = delete;
    RewardChild &operator=(const RewardChild &) = delete;
    ~RewardChild() {
        if (pid > 0 && !reaped) {
            killGroup();
            waitBlocking();
        }
    }
    void killGroup() const { ::kill(-pid, SIGKILL); }
    void waitBlocking() {
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        reaped = true;
    }
    // True once the process has ended (and was reaped).
    bool tryWait() {
        const pid_t result = ::waitpid(pid, &status, WNOHANG);
        reaped = result == pid || (result < 0 && errno != EINTR);
        return reaped;
    }

    pid_t pid = -1;
    int status = 0;
    bool reaped = false;
};

void spawnRewardCommand(const std::string &prefix, const std::string &command,
                        const std::string &working_directory, RewardChild &child,
                        RewardFd &child_stdin, RewardFd &child_stdout, RewardFd &child_stderr) {
    RewardFd stdin_read, stdout_write, stderr_write;
    if (!openRewardPipe(stdin_read, child_stdin) || !openRewardPipe(child_stdout, stdout_write) ||
        !openRewardPipe(child_stderr, stderr_write)) {
        throw RewardError(prefix + "could not start: " + std::strerror(errno) + ".");
    }
    std::vector<std::string> arguments = {"/bin/sh", "-c", command};
    if (!working_directory.empty()) {
        arguments = {"/bin/sh", "-c", "cd -- \"$0\" && exec /bin/sh -c \"$1\"", working_directory,
                     command};
    }
    std::vector<char *> argv;
    for (std::string &argument : arguments) {
        argv.push_back(argument.data());
    }
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, stdin_read.get(), STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, stdout_write.get(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, stderr_write.get(), STDERR_FILENO);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(
        &attributes,
        static_cast<short>(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF));
    posix_spawnattr_setpgroup(&attributes, 0);
    sigset_t signals;
    sigemptyset(&signals);
    posix_spawnattr_setsigmask(&attributes, &signals);
    sigaddset(&signals, SIGPIPE);
    posix_spawnattr_setsigdefault(&attributes, &signals);
#if defined(__APPLE__)
    char **environment = *_NSGetEnviron();
#else
    char **environment = environ;
#endif
    const int error =
        posix_spawn(&child.pid, "/bin/sh", &actions, &attributes, argv.data(), environment);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (error != 0) {
        child.pid = -1;
        throw RewardError(prefix + "could not start: " + std::strerror(error) + ".");
    }
}

std::string rewardStderrSuffix(const std::string &stderr_text) {
    std::string tail = rewardTrimmedLine(stderr_text);
    if (tail.size() > kRewardStderrTail) {
        std::size_t start = tail.size() - kRewardStderrTail;
        // Start on a whole UTF-8 character.
        while (start < tail.size() && (static_cast<unsigned char>(tail[start]) & 0xC0) == 0x80) {
            ++start;
        }
        tail = tail.substr(start);
    }
    return tail.empty() ? std::string() : "; it printed on stderr: " + tail;
}

std::vector<double> parseRewardOutput(const std::string &prefix, const std::string &output,
                                      std::size_t expected, const std::string &stderr_suffix) {
    std::vector<double> rewards;
    std::istringstream lines(output);
    std::string line;
    for (std::size_t line_number = 1; std::getline(lines, line); ++line_number) {
        line = rewardTrimmedLine(line);
        if (line.empty()) {
            continue;
        }
        const std::optional<double> value = parseRewardNumber(line);
        if (!value) {
            const std::string shown = line.size() > 80 ? line.substr(0, 80) + "..." : line;
            throw RewardError(prefix + "printed line " + std::to_string(line_number) + " \"" +
                              shown + "\", which is not a number; print one number per line" +
                              stderr_suffix);
        }
        rewards.push_back(*value);
    }
    if (rewards.size() != expected) {
        throw RewardError(prefix + "printed " + std::to_string(rewards.size()) + " rewards for " +
                          std::to_string(expected) +
                          " completions; print one number per completion, in order" +
                          stderr_suffix);
    }
    return rewards;
}

} // namespace

std::vector<double> runRewardCommand(const std::string &command, const std::vector<Sample> &samples,
                                     double timeout_s, const std::string &working_directory) {
    const std::string prefix = "reward command `" + command + "` ";
    if (samples.empty()) {
        return {};
    }
    const std::string input = rewardCommandInput(prefix, samples);
    struct stat directory_status {};
    if (!working_directory.empty() && (::stat(working_directory.c_str(), &directory_status) != 0 ||
                                       !S_ISDIR(directory_status.st_mode))) {
        throw RewardError(prefix + "could not start: its working directory \"" + working_directory +
                          "\" is not a directory.");
    }
    const bool has_deadline = timeout_s > 0 && timeout_s < 1e9;
    const RewardClock::time_point deadline =
        RewardClock::now() + std::chrono::duration_cast<RewardClock::duration>(
                                 std::chrono::duration<double>(has_deadline ? timeout_s : 0));

    RewardSigpipeGuard sigpipe_guard;
    RewardChild child;
    RewardFd to_child, from_stdout, from_stderr;
    spawnRewardCommand(prefix, command, working_directory, child, to_child, from_stdout,
                       from_stderr);
    for (const RewardFd *fd : {&to_child, &from_stdout, &from_stderr}) {
        ::fcntl(fd->get(), F_SETFL, ::fcntl(fd->get(), F_GETFL) | O_NONBLOCK);
    }

    std::string output;
    std::string errors; // only its tail is kept
    std::size_t written = 0;
    bool timed_out = false;
    char buffer[65536];
    const auto remaining_ms = [&]() -> int {
        if (!has_deadline) {
            return -1;
        }
        const auto left =
            std::chrono::ceil<std::chrono::milliseconds>(deadline - RewardClock::now()).count();
        return static_cast<int>(std::clamp<decltype(left)>(left, 0, INT_MAX));
    };
    const auto drain = [&](RewardFd &fd, std::string &into, bool keep_tail) {
        const ssize_t count = ::read(fd.get(), buffer, sizeof buffer);
        if (count > 0) {
            into.append(buffer, static_cast<std::size_t>(count));
            if (keep_tail && into.size() > 4 * kRewardStderrTail) {
                into.erase(0, into.size() - 2 * kRewardStderrTail);
            }
        } else if (count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            fd.reset();
        }
    };

    while (to_child.open() || from_stdout.open() || from_stderr.open()) {
        const int wait_ms = remaining_ms();
        if (wait_ms == 0) {
            timed_out = true;
            break;
        }
        pollfd fds[3];
        nfds_t count = 0;
        RewardFd *polled[3];
        for (RewardFd *fd : {&to_child, &from_stdout, &from_stderr}) {
            if (fd->open()) {
                fds[count] = pollfd{fd->get(), fd == &to_child ? short{POLLOUT} : short{POLLIN}, 0};
                polled[count++] = fd;
            }
        }
        if (::poll(fds, count, wait_ms) < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw RewardError(prefix + "could not be read: " + std::strerror(errno) + ".");
        }
        for (nfds_t i = 0; i < count; ++i) {
            if (fds[i].revents == 0) {
                continue;
            }
            if (polled[i] == &to_child) {
                const std::size_t chunk = std::min(input.size() - written, sizeof buffer);
                const ssize_t sent = ::write(to_child.get(), input.data() + written, chunk);
                if (sent > 0) {
                    written += static_cast<std::size_t>(sent);
                } else if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                    to_child.reset(); // the command stopped reading (EPIPE): no more input
                }
                if (written == input.size()) {
                    to_child.reset();
                }
            } else {
                drain(*polled[i], polled[i] == &from_stdout ? output : errors,
                      polled[i] == &from_stderr);
            }
        }
    }
    // The outputs are closed; the process itself may take a moment longer to end.
    for (auto pause = std::chrono::microseconds(200); !timed_out && !child.tryWait();
         pause = std::min(pause * 2, std::chrono::microseconds(10000))) {
        timed_out = remaining_ms() == 0;
        std::this_thread::sleep_for(pause);
    }
    if (timed_out) {
        child.killGroup();
        child.waitBlocking();
        throw RewardError(prefix + "did not finish within " + formatRewardNumber(timeout_s) +
                          " s and was stopped" + rewardStderrSuffix(errors));
    }
    const std::string stderr_suffix = rewardStderrSuffix(errors);
    if (WIFSIGNALED(child.status)) {
        throw RewardError(prefix + "was killed by signal " +
                          std::to_string(WTERMSIG(child.status)) + stderr_suffix);
    }
    if (WIFEXITED(child.status) && WEXITSTATUS(child.status) != 0) {
        throw RewardError(prefix + "exited with status " +
                          std::to_string(WEXITSTATUS(child.status)) + stderr_suffix);
    }
    return parseRewardOutput(prefix, output, samples.size(), stderr_suffix);
}

#else

std::vector<double> runRewardCommand(const std::string &, const std::vector<Sample> &, double,
                                     const std::string &) {
    throw RewardError("command: rewards need a POSIX system; use regex:, format:, exact: or "
                      "length: rewards on Windows.");
}

#endif

} // namespace headroom::rewards
