#include "models/keyed_dropout.h"

#include <ATen/CPUGeneratorImpl.h>

namespace headroom::models {

namespace {

std::uint64_t mix(std::uint64_t value) {
    // SplitMix64's finalizer.
    value ^= value >> 30;
    value *= 0xbf58476d1ce4e5b9ULL;
    value ^= value >> 27;
    value *= 0x94d049bb133111ebULL;
    value ^= value >> 31;
    return value;
}

} // namespace

namespace {
thread_local const ScopedDropoutKey::Key *current_key = nullptr;
} // namespace

ScopedDropoutKey::ScopedDropoutKey(std::uint64_t step_seed, std::int64_t first_row,
                                   std::int64_t rows)
    : key_{step_seed, first_row, rows}, previous_(current_key) {
    current_key = &key_;
}

ScopedDropoutKey::~ScopedDropoutKey() {
    current_key = previous_;
}

const ScopedDropoutKey::Key *ScopedDropoutKey::current() {
    return current_key;
}

std::uint64_t dropoutStepSeed(std::uint64_t run_seed, std::int64_t step) {
    return mix(mix(run_seed + 0x9e3779b97f4a7c15ULL) ^ static_cast<std::uint64_t>(step));
}

torch::Tensor keyedDropout(const torch::Tensor &x, double p, std::uint64_t site) {
    if (p <= 0) {
        return x;
    }
    const ScopedDropoutKey::Key *key = current_key;
    if (key == nullptr || !x.device().is_cpu() || key->rows <= 0 || x.numel() % key->rows != 0) {
        return torch::dropout(x, p, true);
    }
    // In x's dtype, as at::dropout makes its noise: the same bytes saved for backward.
    torch::Tensor mask = torch::empty(x.sizes(), x.options());
    const torch::Tensor rows = mask.view({key->rows, -1});
    const std::uint64_t site_seed = mix(key->step_seed ^ mix(site + 0x632be59bd9b4e019ULL));
    for (std::int64_t row = 0; row < key->rows; ++row) {
        const auto example = static_cast<std::uint64_t>(key->first_row + row);
        at::Generator generator = at::detail::createCPUGenerator(mix(site_seed ^ example));
        rows[row].bernoulli_(1.0 - p, generator);
    }
    mask.div_(1.0 - p);
    return x * mask;
}

} // namespace headroom::models
