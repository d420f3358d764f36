#include "export/output_folder.h"

#include <headroom/config.h>

#include <filesystem>
#include <fstream>

namespace headroom::exporting {

namespace fs = std::filesystem;

void prepareOutputFolder(const std::string &folder) {
    std::error_code error;
    if (fs::exists(folder, error) && !fs::is_directory(folder, error)) {
        throw InputError(folder + " exists and is not a folder");
    }
    if (fs::is_directory(folder, error) && !fs::is_empty(folder, error)) {
        throw InputError(folder + " is not empty; export into a new or empty folder");
    }
    fs::create_directories(folder, error);
    if (error) {
        throw InputError("cannot create " + folder + ": " + error.message());
    }
}

void writeTextFile(const std::string &path, const std::string &text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
        throw InputError("cannot write " + path + " (disk full?)");
    }
}

} // namespace headroom::exporting
