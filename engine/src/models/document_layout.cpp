#include "models/document_layout.h"

namespace headroom::models {

DocumentLayout documentLayout(const std::vector<std::vector<std::int32_t>> &document_lengths,
                              std::int64_t length, const torch::Device &device) {
    const auto rows = static_cast<std::int64_t>(document_lengths.size());
    torch::Tensor positions = torch::empty({rows, length}, torch::kInt64);
    torch::Tensor documents = torch::empty({rows, length}, torch::kInt64);
    auto *position = positions.data_ptr<std::int64_t>();
    auto *document = documents.data_ptr<std::int64_t>();
    for (std::int64_t row = 0; row < rows; ++row) {
        std::int64_t t = 0;
        std::int64_t index = 0;
        for (const std::int32_t size : document_lengths[static_cast<std::size_t>(row)]) {
            for (std::int64_t i = 0; i < size && t < length; ++i, ++t) {
                position[row * length + t] = i;
                document[row * length + t] = index;
            }
            ++index;
        }
        for (std::int64_t i = 0; t < length; ++i, ++t) {
            position[row * length + t] = i;
            document[row * length + t] = index;
        }
    }
    const torch::Tensor causal = torch::ones({length, length}, torch::kBool).tril_();
    torch::Tensor mask = documents.unsqueeze(2).eq(documents.unsqueeze(1)).logical_and_(causal);
    DocumentLayout layout;
    layout.positions = device.is_cpu() ? positions : positions.to(device);
    mask = mask.unsqueeze(1);
    layout.mask = device.is_cpu() ? mask : mask.to(device);
    return layout;
}

} // namespace headroom::models
