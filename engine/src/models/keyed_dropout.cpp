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
    : key_{step_seed, first_row, rows, nullptr}, previous_(current_key) {
    current_key = &key_;
}

ScopedDropoutKey::ScopedDropoutKey(std::uint64_t step_seed, std::vector<std::int64_t> row_ids)
    : key_{step_seed, 0, static_cast<std::int64_t>(row_ids.size()),
           std::make_shared<const std::vector<std::int64_t>>(std::move(row_ids))},
      previous_(current_key) {
    current_key = &key_;
}

ScopedDropoutKey::ScopedDropoutKey(const Key &key) : key_(key), previous_(current_key) {
    current_key = &key_;
}

const ScopedDropoutKey::Key *ScopedDropoutKey::current() {
    return current_key;
}

ScopedDropoutKey::~ScopedDropoutKey() {
    current_key = previous_;
}

std::uint64_t dropoutStepSeed(std::uint64_t run_seed, std::int64_t step) {
    return mix64(mix64(run_seed + 0x9e3779b97f4a7c15ULL) ^ static_cast<std::uint64_t>(step));
}

namespace {

constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

std::uint64_t siteSeed(const ScopedDropoutKey::Key &key, std::uint64_t site) {
    return mix64(key.step_seed ^ mix64(site + 0x632be59bd9b4e019ULL));
}

std::uint64_t rowSeed(std::uint64_t site_seed, std::int64_t row) {
    return mix64(site_seed ^ static_cast<std::uint64_t>(row));
}

// 24 random bits of element `index` of a row.
std::uint64_t elementBits(std::uint64_t row_seed, std::int64_t index) {
    return mix64(row_seed + kGolden * static_cast<std::uint64_t>(index)) >> 40;
}

// The scope that keys x's noise, or nullptr where the global generator serves instead.
const ScopedDropoutKey::Key *keyFor(const torch::Tensor &x) {
    const ScopedDropoutKey::Key *key = current_key;
    if (key == nullptr || !x.device().is_cpu() || key->rows <= 0 || x.numel() % key->rows != 0) {
        return nullptr;
    }
    return key;
}

} // namespace

torch::Tensor keyedDropout(const torch::Tensor &x, double p, std::uint64_t site) {
    if (p <= 0) {
        return x;
    }
    const ScopedDropoutKey::Key *key = keyFor(x);
    if (key == nullptr) {
        return torch::dropout(x, p, true);
    }
    // In x's dtype, as at::dropout makes its noise: the same bytes saved for backward. Each
    // element's keep/drop is a hash of (row seed, element index), so a row's mask needs no
    // generator state and the rows can be filled in any order.
    torch::Tensor mask = torch::empty(x.sizes(), x.options());
    const std::int64_t per_row = mask.numel() / key->rows;
    const std::uint64_t site_seed = siteSeed(*key, site);
    const auto keep_below = static_cast<std::uint64_t>((1.0 - p) * 0x1.0p24);
    const double scale = 1.0 / (1.0 - p);
    AT_DISPATCH_FLOATING_TYPES_AND2(
        at::kBFloat16, at::kHalf, mask.scalar_type(), "keyedDropout", [&] {
            scalar_t *data = mask.data_ptr<scalar_t>();
            const auto kept = static_cast<scalar_t>(scale);
            const auto dropped = static_cast<scalar_t>(0);
            // Rows are independent by construction: the intra-op threads fill them in parallel.
            at::parallel_for(0, key->rows, 1, [&](std::int64_t begin, std::int64_t end) {
                for (std::int64_t row = begin; row < end; ++row) {
                    const std::uint64_t row_seed = rowSeed(site_seed, key->row(row));
                    scalar_t *out = data + row * per_row;
                    for (std::int64_t i = 0; i < per_row; ++i) {
                        out[i] = elementBits(row_seed, i) < keep_below ? kept : dropped;
                    }
                }
            });
        });
    return x * mask;
}

torch::Tensor keyedDropoutRows(const torch::Tensor &x, double p, std::uint64_t site,
                               const torch::Tensor &positions, std::int64_t tokens) {
    if (p <= 0) {
        return x;
    }
    const ScopedDropoutKey::Key *key = current_key;
    if (key == nullptr || !x.device().is_cpu() || key->rows <= 0 || tokens % key->rows != 0 ||
        x.dim() < 1 || x.size(0) != positions.numel()) {
        return torch::dropout(x, p, true);
    }
    torch::Tensor mask = torch::empty(x.sizes(), x.options());
    const std::int64_t count = x.size(0);
    if (count == 0) {
        return x;
    }
    const std::int64_t width = mask.numel() / count;
    const std::int64_t tokens_per_row = tokens / key->rows;
    const torch::Tensor where = positions.to(torch::kCPU, torch::kLong).contiguous();
    const std::int64_t *position = where.data_ptr<std::int64_t>();
    const std::uint64_t site_seed = siteSeed(*key, site);
    const auto keep_below = static_cast<std::uint64_t>((1.0 - p) * 0x1.0p24);
    const double scale = 1.0 / (1.0 - p);
    AT_DISPATCH_FLOATING_TYPES_AND2(
        at::kBFloat16, at::kHalf, mask.scalar_type(), "keyedDropoutRows", [&] {
            scalar_t *data = mask.data_ptr<scalar_t>();
            const auto kept = static_cast<scalar_t>(scale);
            const auto dropped = static_cast<scalar_t>(0);
            at::parallel_for(0, count, 16, [&](std::int64_t begin, std::int64_t end) {
                for (std::int64_t m = begin; m < end; ++m) {
                    const std::int64_t token = position[m];
                    TORCH_CHECK(token >= 0 && token < tokens, "keyedDropoutRows: position ", token,
                                " is outside 0..", tokens - 1);
                    // The element's index within its example, as keyedDropout counts it.
                    const std::int64_t first = (token % tokens_per_row) * width;
                    const std::uint64_t row_seed =
                        rowSeed(site_seed, key->row(token / tokens_per_row));
                    scalar_t *out = data + m * width;
                    for (std::int64_t j = 0; j < width; ++j) {
                        out[j] = elementBits(row_seed, first + j) < keep_below ? kept : dropped;
                    }
                }
            });
        });
    return x * mask;
}

torch::Tensor keyedUniform(const torch::Tensor &x, double low, double high, std::uint64_t site) {
    const ScopedDropoutKey::Key *key = keyFor(x);
    if (key == nullptr) {
        return torch::empty(x.sizes(), x.options().dtype(torch::kFloat)).uniform_(low, high);
    }
    torch::Tensor noise = torch::empty(x.sizes(), x.options().dtype(torch::kFloat));
    const std::int64_t per_row = noise.numel() / key->rows;
    const std::uint64_t site_seed = siteSeed(*key, site);
    const double span = (high - low) * 0x1.0p-24;
    float *data = noise.data_ptr<float>();
    at::parallel_for(0, key->rows, 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t row = begin; row < end; ++row) {
            const std::uint64_t row_seed = rowSeed(site_seed, key->row(row));
            float *out = data + row * per_row;
            for (std::int64_t i = 0; i < per_row; ++i) {
                out[i] =
                    static_cast<float>(low + span * static_cast<double>(elementBits(row_seed, i)));
            }
        }
    });
    return noise;
}

} // namespace headroom::models
