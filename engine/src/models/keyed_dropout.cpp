#include "models/keyed_dropout.h"

#include "data/split.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

namespace headroom::models {

using data::mix64;

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

std::uint64_t dropoutStepSeed(std::uint64_t run_seed, std::int64_t step) {
    return mix64(mix64(run_seed + 0x9e3779b97f4a7c15ULL) ^ static_cast<std::uint64_t>(step));
}

torch::Tensor keyedDropout(const torch::Tensor &x, double p, std::uint64_t site) {
    if (p <= 0) {
        return x;
    }
    const ScopedDropoutKey::Key *key = current_key;
    if (key == nullptr || !x.device().is_cpu() || key->rows <= 0 || x.numel() % key->rows != 0) {
        return torch::dropout(x, p, true);
    }
    // In x's dtype, as at::dropout makes its noise: the same bytes saved for backward. Each
    // element's keep/drop is a hash of (row seed, element index), so a row's mask needs no
    // generator state and the rows can be filled in any order.
    torch::Tensor mask = torch::empty(x.sizes(), x.options());
    const std::int64_t per_row = mask.numel() / key->rows;
    const std::uint64_t site_seed = mix64(key->step_seed ^ mix64(site + 0x632be59bd9b4e019ULL));
    const auto keep_below = static_cast<std::uint64_t>((1.0 - p) * 0x1.0p24);
    const double scale = 1.0 / (1.0 - p);
    AT_DISPATCH_FLOATING_TYPES_AND2(
        at::kBFloat16, at::kHalf, mask.scalar_type(), "keyedDropout", [&] {
            scalar_t *data = mask.data_ptr<scalar_t>();
            const auto kept = static_cast<scalar_t>(scale);
            const auto dropped = static_cast<scalar_t>(0);
            const std::int64_t first_row = key->first_row;
            // Rows are independent by construction: the intra-op threads fill them in parallel.
            at::parallel_for(0, key->rows, 1, [&](std::int64_t begin, std::int64_t end) {
                for (std::int64_t row = begin; row < end; ++row) {
                    const std::uint64_t row_seed =
                        mix64(site_seed ^ static_cast<std::uint64_t>(first_row + row));
                    scalar_t *out = data + row * per_row;
                    for (std::int64_t i = 0; i < per_row; ++i) {
                        const std::uint64_t bits =
                            mix64(row_seed + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(i));
                        out[i] = (bits >> 40) < keep_below ? kept : dropped;
                    }
                }
            });
        });
    return x * mask;
}

} // namespace headroom::models
