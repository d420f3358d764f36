#include "util/base_format.h"

#include <algorithm>
#include <stdexcept>

namespace headroom {

BaseFormat parseBaseFormat(const std::string &name) {
    for (const BaseFormat format : {BaseFormat::Fp32, BaseFormat::Bf16, BaseFormat::Fp16,
                                    BaseFormat::Int8, BaseFormat::Nf4}) {
        if (name == baseFormatName(format)) {
            return format;
        }
    }
    throw std::invalid_argument("unknown base format '" + name +
                                "' (accepted: fp32, bf16, fp16, int8, nf4)");
}

std::string baseFormatName(BaseFormat format) {
    switch (format) {
    case BaseFormat::Fp32:
        return "fp32";
    case BaseFormat::Bf16:
        return "bf16";
    case BaseFormat::Fp16:
        return "fp16";
    case BaseFormat::Int8:
        return "int8";
    case BaseFormat::Nf4:
        return "nf4";
    }
    return "fp32";
}

bool isQuantized(BaseFormat format) {
    return format == BaseFormat::Int8 || format == BaseFormat::Nf4;
}

int compactness(BaseFormat format) {
    switch (format) {
    case BaseFormat::Fp32:
        return 0;
    case BaseFormat::Bf16:
    case BaseFormat::Fp16:
        return 1;
    case BaseFormat::Int8:
        return 2;
    case BaseFormat::Nf4:
        return 3;
    }
    return 0;
}

double baseBytesPerWeight(BaseFormat format, std::int64_t in) {
    switch (format) {
    case BaseFormat::Fp32:
        return 4.0;
    case BaseFormat::Bf16:
    case BaseFormat::Fp16:
        return 2.0;
    case BaseFormat::Int8:
        return 1.0 + 4.0 / static_cast<double>(std::max<std::int64_t>(1, in));
    case BaseFormat::Nf4:
        return 0.5 + 1.0 / kNf4Block + 8.0 / static_cast<double>(kNf4Block * kNf4Group);
    }
    return 4.0;
}

} // namespace headroom
