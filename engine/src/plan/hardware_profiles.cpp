#include <headroom/plan.h>

namespace headroom {

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
    static const std::vector<HardwareProfile> profiles; // placeholder until profiles land
    return profiles;
}

std::vector<HardwareProfile> detectedProfiles(const DeviceReport &) {
    return {};
}

HardwareProfile findHardwareProfile(const std::string &id, const DeviceReport &) {
    throw ConfigError("unknown hardware profile '" + id + "'");
}

void applyHardwareProfile(const HardwareProfile &, Config &) {}

} // namespace headroom
