#include "cli/local_ranks.h"

#include "cli/exit_codes.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <ostream>
#include <thread>

#if defined(__linux__)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace headroom::cli {

#if defined(__linux__)

namespace {

std::atomic<bool> g_stop_requested{false};

extern "C" void requestStop(int) {
    g_stop_requested.store(true);
}

// A port nobody listens on now; rank 0's store binds it a moment later (a race with another
// program is possible but rare, and ends in a clear rendezvous error).
std::optional<int> freeLoopbackPort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        return std::nullopt;
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof address;
    std::optional<int> port;
    if (::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) == 0) {
        port = ntohs(address.sin_port);
    }
    ::close(fd);
    return port;
}

struct Rank {
    int index = 0;
    pid_t pid = -1;
    int out = -1; // read ends; -1 once closed
    int err = -1;
    std::string out_pending; // a partial line
    std::string err_pending;
    bool ended = false;
    bool killed_here = false; // by the grace period below, not the cause of the failure
    int status = 0;
};

struct Forwarder {
    Streams streams;

    // Whole lines only, so lines of different ranks never interleave mid-line.
    void forward(Rank &rank, bool from_err, const char *data, std::size_t size) {
        std::string &pending = from_err ? rank.err_pending : rank.out_pending;
        pending.append(data, size);
        std::size_t newline;
        while ((newline = pending.find('\n')) != std::string::npos) {
            emit(rank, from_err, pending.substr(0, newline + 1));
            pending.erase(0, newline + 1);
        }
    }
    void finish(Rank &rank, bool from_err) {
        std::string &pending = from_err ? rank.err_pending : rank.out_pending;
        if (!pending.empty()) {
            emit(rank, from_err, pending + "\n");
            pending.clear();
        }
    }
    void emit(const Rank &rank, bool from_err, const std::string &line) {
        if (rank.index == 0) {
            (from_err ? streams.err : streams.out) << line << std::flush;
        } else if (from_err) {
            streams.err << "[rank " << rank.index << "] " << line << std::flush;
        }
    }
};

std::string describeEnd(int status) {
    if (WIFSIGNALED(status)) {
        const int signal = WTERMSIG(status);
        const char *name = ::strsignal(signal);
        return "was killed by signal " + std::to_string(signal) +
               (name != nullptr ? std::string(" (") + name + ")" : std::string());
    }
    return "exited with status " + std::to_string(WEXITSTATUS(status));
}

bool succeeded(int status) {
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

pid_t startRank(const std::string &program, const std::vector<std::string> &arguments, int index,
                int ranks, int port, const std::string &threads, int out[2], int err[2]) {
    const pid_t pid = ::fork();
    if (pid != 0) {
        return pid;
    }
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    for (int fd : {out[0], out[1], err[0], err[1]}) {
        ::close(fd);
    }
    ::setenv("RANK", std::to_string(index).c_str(), 1);
    ::setenv("LOCAL_RANK", std::to_string(index).c_str(), 1);
    ::setenv("WORLD_SIZE", std::to_string(ranks).c_str(), 1);
    ::setenv("LOCAL_WORLD_SIZE", std::to_string(ranks).c_str(), 1);
    ::setenv("MASTER_ADDR", "127.0.0.1", 1);
    ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
    if (!threads.empty()) {
        ::setenv("OMP_NUM_THREADS", threads.c_str(), 0);
    }
    std::vector<char *> argv;
    argv.push_back(const_cast<char *>("headroom-cli"));
    for (const std::string &argument : arguments) {
        argv.push_back(const_cast<char *>(argument.c_str()));
    }
    argv.push_back(nullptr);
    ::execv(program.c_str(), argv.data());
    const std::string message = "headroom-cli: cannot start rank " + std::to_string(index) + ": " +
                                std::strerror(errno) + "\n";
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, message.data(), message.size());
    ::_exit(kExitInternalError);
}

} // namespace

int runLocalRanks(const LocalRanksRequest &request, Streams streams) {
    for (const char *name : {"RANK", "WORLD_SIZE"}) {
        if (std::getenv(name) != nullptr) {
            streams.err << "headroom-cli: --nproc starts its own ranks, but " << name
                        << " is already set: unset it, or run without --nproc under your "
                           "launcher\n";
            return kExitBadInput;
        }
    }
    char program[4096];
    const ssize_t length = ::readlink("/proc/self/exe", program, sizeof program - 1);
    const std::optional<int> port = freeLoopbackPort();
    if (length <= 0 || !port) {
        streams.err << "headroom-cli: cannot prepare the local ranks (own path or a free "
                       "loopback port): "
                    << std::strerror(errno) << '\n';
        return kExitInternalError;
    }
    program[length] = '\0';
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const std::string threads =
        std::to_string(std::max(1u, cores / static_cast<unsigned>(request.ranks)));
    streams.err << "starting " << request.ranks << " local ranks (rendezvous 127.0.0.1:" << *port
                << ", " << threads << " thread" << (threads == "1" ? "" : "s")
                << " each unless OMP_NUM_THREADS is set)\n"
                << std::flush;

    std::vector<Rank> ranks(static_cast<std::size_t>(request.ranks));
    for (int index = 0; index < request.ranks; ++index) {
        int out[2];
        int err[2];
        if (::pipe(out) != 0 || ::pipe(err) != 0) {
            streams.err << "headroom-cli: cannot start rank " << index << ": "
                        << std::strerror(errno) << '\n';
            return kExitInternalError;
        }
        Rank &rank = ranks[static_cast<std::size_t>(index)];
        rank.index = index;
        rank.pid =
            startRank(program, request.arguments, index, request.ranks, *port, threads, out, err);
        ::close(out[1]);
        ::close(err[1]);
        rank.out = out[0];
        rank.err = err[0];
    }

    g_stop_requested.store(false);
    auto previous_term = std::signal(SIGTERM, requestStop);
    bool stop_forwarded = false;
    Forwarder forwarder{streams};
    std::optional<std::size_t> first_failure;
    std::chrono::steady_clock::time_point kill_at{};
    for (;;) {
        std::vector<pollfd> fds;
        std::vector<std::pair<Rank *, bool>> owners;
        for (Rank &rank : ranks) {
            for (const bool from_err : {false, true}) {
                const int fd = from_err ? rank.err : rank.out;
                if (fd >= 0) {
                    fds.push_back({fd, POLLIN, 0});
                    owners.emplace_back(&rank, from_err);
                }
            }
        }
        if (fds.empty() &&
            std::all_of(ranks.begin(), ranks.end(), [](const Rank &rank) { return rank.ended; })) {
            break;
        }
        if (!fds.empty()) {
            ::poll(fds.data(), fds.size(), 200);
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        for (std::size_t i = 0; i < fds.size(); ++i) {
            if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) {
                continue;
            }
            auto [rank, from_err] = owners[i];
            char buffer[8192];
            const ssize_t got = ::read(fds[i].fd, buffer, sizeof buffer);
            if (got > 0) {
                forwarder.forward(*rank, from_err, buffer, static_cast<std::size_t>(got));
            } else if (got == 0 || errno != EINTR) {
                forwarder.finish(*rank, from_err);
                ::close(fds[i].fd);
                (from_err ? rank->err : rank->out) = -1;
            }
        }
        for (std::size_t i = 0; i < ranks.size(); ++i) {
            Rank &rank = ranks[i];
            if (rank.ended || ::waitpid(rank.pid, &rank.status, WNOHANG) != rank.pid) {
                continue;
            }
            rank.ended = true;
            if (succeeded(rank.status)) {
                continue;
            }
            streams.err << "headroom-cli: rank " << rank.index << " " << describeEnd(rank.status)
                        << '\n'
                        << std::flush;
            if (!first_failure) {
                first_failure = i;
                kill_at = std::chrono::steady_clock::now() + request.grace;
            }
        }
        if (g_stop_requested.load() && !stop_forwarded) {
            stop_forwarded = true;
            for (const Rank &rank : ranks) {
                if (!rank.ended) {
                    ::kill(rank.pid, SIGTERM);
                }
            }
        }
        if (first_failure && std::chrono::steady_clock::now() > kill_at) {
            for (Rank &rank : ranks) {
                if (!rank.ended) {
                    streams.err << "headroom-cli: rank " << rank.index << " did not stop within "
                                << request.grace.count() << " s of rank "
                                << ranks[*first_failure].index << "'s end; killing it\n";
                    ::kill(rank.pid, SIGKILL);
                    rank.killed_here = true;
                }
            }
            kill_at = std::chrono::steady_clock::time_point::max();
        }
    }
    std::signal(SIGTERM, previous_term);

    if (!first_failure) {
        return kExitSuccess;
    }
    // A rank that was killed is the cause when the others then failed at their exchange with
    // it, even where the reaping order says otherwise (both can end within one poll).
    const auto killed = std::find_if(ranks.begin(), ranks.end(), [](const Rank &rank) {
        return WIFSIGNALED(rank.status) && !rank.killed_here;
    });
    const Rank &failed = killed != ranks.end() ? *killed : ranks[*first_failure];
    std::string others;
    for (const Rank &rank : ranks) {
        if (&rank != &failed && !succeeded(rank.status)) {
            others += (others.empty() ? "" : ", ") + std::string("rank ") +
                      std::to_string(rank.index) + " " + describeEnd(rank.status);
        }
    }
    // Every rank ending with "cannot continue" is a pause the ranks agreed on (an
    // out-of-memory error with nothing left to try): the ranks said why; not a failure.
    const bool agreed_pause = std::all_of(ranks.begin(), ranks.end(), [](const Rank &rank) {
        return WIFEXITED(rank.status) && WEXITSTATUS(rank.status) == kExitCannotContinue;
    });
    if (agreed_pause) {
        streams.err << "headroom-cli: every rank paused at the same step; continue with train "
                       "--resume\n";
        return kExitCannotContinue;
    }
    streams.err << "headroom-cli: the distributed run failed: rank " << failed.index << " "
                << describeEnd(failed.status)
                << (others.empty() ? std::string() : "; then " + others) << '\n';
    if (WIFSIGNALED(failed.status)) {
        return kExitCannotContinue;
    }
    const int code = WEXITSTATUS(failed.status);
    return code >= kExitInternalError && code <= kExitCannotContinue ? code : kExitInternalError;
}

#else

int runLocalRanks(const LocalRanksRequest &, Streams streams) {
    streams.err << "headroom-cli: --nproc is available on Linux only for now; start the ranks "
                   "with torchrun-style variables (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) "
                   "instead\n";
    return kExitBadInput;
}

#endif

} // namespace headroom::cli
