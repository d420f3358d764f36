#include <headroom/plan.h>
#include <headroom/units.h>

#include <algorithm>
#include <cstdio>

namespace headroom {

namespace {

constexpr std::uint64_t kGiB = 1024ULL * 1024 * 1024;
constexpr std::uint64_t kMiB = 1024ULL * 1024;

std::string gigabytes(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f GB", static_cast<double>(bytes) / kGiB);
    return text;
}

// The CUDA context, cuDNN/cuBLAS handles and the display take memory the allocator never
// sees: about 6 %, at least 512 MiB.
std::uint64_t cudaBudget(std::uint64_t total) {
    return total - std::max<std::uint64_t>(512 * kMiB, total / 16);
}

// macOS lets Metal use about two thirds of unified memory up to 36 GB, three quarters above
// (recommendedMaxWorkingSetSize).
std::uint64_t mpsBudget(std::uint64_t total) {
    return total <= 36 * kGiB ? total / 3 * 2 : total / 4 * 3;
}

// The OS, the desktop and the data pipeline keep a quarter of RAM, at least 2 GiB.
std::uint64_t cpuBudget(std::uint64_t total) {
    const std::uint64_t reserve = std::max<std::uint64_t>(2 * kGiB, total / 4);
    return total > reserve ? total - reserve : total / 2;
}

HardwareProfile cudaProfile(int gigabytes_total, bool bf16, const char *example) {
    HardwareProfile profile;
    profile.kind = ProfileKind::Cuda;
    profile.memory_bytes = static_cast<std::uint64_t>(gigabytes_total) * kGiB;
    profile.id = "cuda-" + std::to_string(gigabytes_total) + "gb";
    profile.example = example;
    profile.label = "CUDA GPU · " + gigabytes(profile.memory_bytes) + " (" + example + " class)";
    profile.device = "cuda";
    profile.budget_bytes = cudaBudget(profile.memory_bytes);
    profile.bf16 = bf16;
    profile.fp16 = true;
    profile.note = "the CUDA context and libraries keep about 6 % (at least 512 MiB)";
    return profile;
}

HardwareProfile mpsProfile(int gigabytes_total) {
    HardwareProfile profile;
    profile.kind = ProfileKind::Mps;
    profile.memory_bytes = static_cast<std::uint64_t>(gigabytes_total) * kGiB;
    profile.id = "mps-" + std::to_string(gigabytes_total) + "gb";
    profile.label = "Apple silicon · " + gigabytes(profile.memory_bytes) + " unified memory";
    profile.device = "mps";
    profile.budget_bytes = mpsBudget(profile.memory_bytes);
    profile.note = "macOS lets Metal use about 2/3 of unified memory up to 36 GB, 3/4 above";
    return profile;
}

HardwareProfile cpuProfile(std::uint64_t total) {
    HardwareProfile profile;
    profile.kind = ProfileKind::Cpu;
    profile.memory_bytes = total;
    profile.id = "cpu-" + std::to_string((total + kGiB / 2) / kGiB) + "gb";
    profile.label = "CPU only · " + gigabytes(total) + " RAM";
    profile.device = "cpu";
    profile.budget_bytes = cpuBudget(total);
    profile.bf16 = true;
    profile.note = "the OS and desktop keep a quarter of RAM (at least 2 GiB)";
    return profile;
}

std::vector<HardwareProfile> buildCatalogue() {
    std::vector<HardwareProfile> profiles;
    for (const int size : {8, 16, 24, 32, 64, 128}) {
        profiles.push_back(mpsProfile(size));
    }
    profiles.push_back(cudaProfile(4, false, "GTX 1650"));
    profiles.push_back(cudaProfile(6, false, "RTX 2060"));
    profiles.push_back(cudaProfile(8, true, "RTX 3070 / 4060"));
    profiles.push_back(cudaProfile(12, true, "RTX 3060 / 4070"));
    profiles.push_back(cudaProfile(16, true, "RTX 4060 Ti / 4080"));
    profiles.push_back(cudaProfile(24, true, "RTX 3090 / 4090"));
    profiles.push_back(cudaProfile(48, true, "RTX A6000 / L40"));
    profiles.push_back(cudaProfile(80, true, "A100 / H100"));
    for (const int size : {8, 16, 32, 64, 128}) {
        profiles.push_back(cpuProfile(static_cast<std::uint64_t>(size) * kGiB));
    }
    return profiles;
}

} // namespace

std::string toString(ProfileKind kind) {
    switch (kind) {
    case ProfileKind::Cuda:
        return "cuda";
    case ProfileKind::Mps:
        return "mps";
    case ProfileKind::Cpu:
        break;
    }
    return "cpu";
}

int hardwareProfilesVersion() {
    return 1;
}

const std::vector<HardwareProfile> &hardwareProfiles() {
    static const std::vector<HardwareProfile> profiles = buildCatalogue();
    return profiles;
}

std::vector<HardwareProfile> detectedProfiles(const DeviceReport &report) {
    std::vector<HardwareProfile> profiles;
    for (const CudaDeviceInfo &gpu : report.cuda) {
        HardwareProfile profile;
        profile.kind = ProfileKind::Cuda;
        profile.id = "detected-cuda:" + std::to_string(gpu.index);
        profile.label = "This machine · " + gpu.name + " · " + formatBytes(gpu.total_bytes);
        profile.device = "cuda:" + std::to_string(gpu.index);
        profile.memory_bytes = gpu.total_bytes;
        profile.budget_bytes = cudaBudget(gpu.total_bytes);
        profile.bf16 = gpu.supports_bf16;
        profile.fp16 = true;
        profile.detected = true;
        profile.note = "detected; the CUDA context and libraries keep about 6 %";
        profiles.push_back(profile);
    }
    if (report.mps.available) {
        HardwareProfile profile = mpsProfile(0);
        profile.id = "detected-mps";
        profile.memory_bytes = report.mps.unified_memory_bytes;
        profile.budget_bytes = mpsBudget(profile.memory_bytes);
        profile.label = "This Mac · " + formatBytes(profile.memory_bytes) + " unified memory";
        profile.detected = true;
        profiles.push_back(profile);
    }
    HardwareProfile cpu = cpuProfile(report.cpu.total_bytes);
    cpu.id = "detected-cpu";
    cpu.label = "This machine's CPU · " + std::to_string(report.cpu.logical_cores) + " cores · " +
                formatBytes(report.cpu.total_bytes) + " RAM";
    cpu.detected = true;
    profiles.push_back(cpu);
    return profiles;
}

HardwareProfile findHardwareProfile(const std::string &id, const DeviceReport &report) {
    const std::vector<HardwareProfile> detected = detectedProfiles(report);
    if (id == "detected") {
        const std::string preferred = preferredDevice(report);
        for (const HardwareProfile &profile : detected) {
            if (profile.device == preferred) {
                return profile;
            }
        }
        return detected.back(); // the CPU
    }
    std::string known;
    for (const auto *list : {&detected, &hardwareProfiles()}) {
        for (const HardwareProfile &profile : *list) {
            if (profile.id == id) {
                return profile;
            }
            known += (known.empty() ? "" : ", ") + profile.id;
        }
    }
    throw ConfigError("unknown hardware profile '" + id + "'; use detected or one of: " + known);
}

void applyHardwareProfile(const HardwareProfile &profile, Config &config) {
    config.set("device", profile.device);
    config.set("memory.budget", std::to_string(profile.budget_bytes / kMiB) + "MiB");
}

} // namespace headroom
