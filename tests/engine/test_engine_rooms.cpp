// The engine's rooms (engine/src/<room>/) form floors: following `#include "room/…"` from one room
// to another never comes back (docs/ARCHITECTURE.md). This reads every source file of the engine
// and fails on a cycle between rooms, naming the includes that make it.
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

using RoomIncludes = std::map<std::string, std::map<std::string, std::vector<std::string>>>;

std::string roomOf(const fs::path &relative) {
    const auto first = relative.begin();
    return std::next(first) == relative.end() ? std::string() : first->string();
}

// The quoted name of an `#include "..."` line, or empty. (A regex literal holding the directive
// here would confuse moc.)
std::string quotedInclude(const std::string &line) {
    std::size_t at = line.find_first_not_of(" \t");
    if (at == std::string::npos || line[at] != '#') {
        return {};
    }
    at = line.find_first_not_of(" \t", at + 1);
    const std::string directive = "include";
    if (at == std::string::npos || line.compare(at, directive.size(), directive) != 0) {
        return {};
    }
    const std::size_t open = line.find_first_not_of(" \t", at + directive.size());
    if (open == std::string::npos || line[open] != '"') {
        return {};
    }
    const std::size_t close = line.find('"', open + 1);
    return close == std::string::npos ? std::string() : line.substr(open + 1, close - open - 1);
}

// room -> included room -> "file -> include" lines, for includes of existing engine files only.
RoomIncludes readRoomIncludes(const fs::path &source_root) {
    RoomIncludes includes;
    for (const auto &entry : fs::recursive_directory_iterator(source_root)) {
        if (!entry.is_regular_file()) {
            continue;
        }
        const fs::path relative = fs::relative(entry.path(), source_root);
        const std::string from = roomOf(relative);
        std::ifstream file(entry.path());
        std::string line;
        while (std::getline(file, line)) {
            const std::string name = quotedInclude(line);
            if (name.empty()) {
                continue;
            }
            const fs::path included(name);
            const std::string to = roomOf(included);
            if (from.empty() || to.empty() || to == from || !fs::exists(source_root / included)) {
                continue;
            }
            includes[from][to].push_back(relative.string() + " -> " + included.string());
        }
    }
    return includes;
}

// A cycle of rooms (first room repeated at the end), or empty.
std::vector<std::string> findCycle(const RoomIncludes &includes) {
    std::map<std::string, int> state; // 0 unseen, 1 on the path, 2 done
    std::vector<std::string> path;
    std::vector<std::string> cycle;
    std::function<bool(const std::string &)> visit = [&](const std::string &room) {
        state[room] = 1;
        path.push_back(room);
        const auto found = includes.find(room);
        if (found != includes.end()) {
            for (const auto &[next, lines] : found->second) {
                if (state[next] == 1) {
                    const auto start = std::find(path.begin(), path.end(), next);
                    cycle.assign(start, path.end());
                    cycle.push_back(next);
                    return true;
                }
                if (state[next] == 0 && visit(next)) {
                    return true;
                }
            }
        }
        path.pop_back();
        state[room] = 2;
        return false;
    };
    for (const auto &[room, targets] : includes) {
        if (state[room] == 0 && visit(room)) {
            break;
        }
    }
    return cycle;
}

} // namespace

class TestEngineRooms : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void roomsIncludeEachOtherOneWay();
    void aCycleIsFound();
};

void TestEngineRooms::roomsIncludeEachOtherOneWay() {
    const fs::path source_root = fs::path(HEADROOM_SOURCE_DIR) / "engine" / "src";
    const RoomIncludes includes = readRoomIncludes(source_root);
    QVERIFY2(includes.count("train") == 1 && includes.at("train").count("optim") == 1,
             "expected train/ to include optim/: is the source root right?");
    const std::vector<std::string> cycle = findCycle(includes);
    if (!cycle.empty()) {
        std::ostringstream message;
        message << "the engine's rooms include each other in a cycle:";
        for (std::size_t i = 0; i + 1 < cycle.size(); ++i) {
            message << "\n  " << cycle[i] << " -> " << cycle[i + 1] << ", e.g. "
                    << includes.at(cycle[i]).at(cycle[i + 1]).front();
        }
        QFAIL(message.str().c_str());
    }
}

void TestEngineRooms::aCycleIsFound() {
    RoomIncludes includes;
    includes["plan"]["train"].push_back("plan/a.cpp -> train/b.h");
    includes["train"]["device"].push_back("train/c.cpp -> device/d.h");
    QVERIFY(findCycle(includes).empty());
    includes["device"]["plan"].push_back("device/e.cpp -> plan/f.h");
    const std::vector<std::string> cycle = findCycle(includes);
    QCOMPARE(cycle.size(), std::size_t{4});
    QCOMPARE(cycle.front(), cycle.back());
}

QTEST_APPLESS_MAIN(TestEngineRooms)
#include "test_engine_rooms.moc"
