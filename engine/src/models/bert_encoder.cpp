#include "models/bert_encoder.h"

#include "models/activation_checkpoint.h"
#include "models/keyed_dropout.h"
#include "models/model_setup.h"
#include "profile/scopes.h"

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

namespace headroom::models {

namespace {

// Dropout sites within a layer's stride (models/model_setup.h) besides the attention weights':
// the two residual-branch dropouts.
constexpr std::uint64_t kAttentionOutputSite = 2;
constexpr std::uint64_t kFeedForwardOutputSite = 3;

bool isBert(const BertEncoderOptions &options) {
    return options.family() == EncoderFamily::Bert;
}

// An empty module that only names a level of the checkpoint's tree ("attention", "self").
std::shared_ptr<torch::nn::Module> level(torch::nn::Module &parent, const std::string &name) {
    return parent.register_module(name, std::make_shared<torch::nn::Module>());
}

torch::nn::LayerNorm layerNorm(const BertEncoderOptions &options) {
    return torch::nn::LayerNorm(
        torch::nn::LayerNormOptions({options.hidden_size()}).eps(options.layer_norm_eps()));
}

// Under autocast or in a converted model the scores may be narrower than float, where the
// lowest float would round to -inf.
double lowestOf(torch::ScalarType type) {
    switch (type) {
    case torch::kHalf:
        return static_cast<double>(std::numeric_limits<c10::Half>::lowest());
    case torch::kBFloat16:
        return static_cast<double>(std::numeric_limits<c10::BFloat16>::lowest());
    case torch::kDouble:
        return std::numeric_limits<double>::lowest();
    default:
        return std::numeric_limits<float>::lowest();
    }
}

torch::Tensor activate(const torch::Tensor &x, const std::string &activation) {
    if (activation == "gelu_tanh") {
        return torch::gelu(x, "tanh");
    }
    if (activation == "relu") {
        return torch::relu(x);
    }
    return torch::gelu(x);
}

// LayerNorm in the dtype of its weight: under CPU autocast in LibTorch 1.13 a bf16 input (the
// output of a Linear) meets fp32 weights, which layer_norm refuses.
torch::Tensor normalize(torch::nn::LayerNorm &norm, const torch::Tensor &x) {
    return norm(x.to(norm->weight.scalar_type()));
}

} // namespace

void validateBertEncoderOptions(const BertEncoderOptions &options) {
    requirePositiveOption("encoder", options.vocab_size(), "vocab_size");
    requirePositiveOption("encoder", options.hidden_size(), "hidden_size");
    requirePositiveOption("encoder", options.layers(), "layers");
    requirePositiveOption("encoder", options.heads(), "heads");
    requirePositiveOption("encoder", options.intermediate_size(), "intermediate_size");
    requirePositiveOption("encoder", options.max_positions(), "max_positions");
    if (isBert(options)) {
        requirePositiveOption("encoder", options.type_vocab_size(), "type_vocab_size");
    }
    if (options.hidden_size() % options.heads() != 0) {
        throw std::invalid_argument(
            "encoder option hidden_size (" + std::to_string(options.hidden_size()) +
            ") must be divisible by heads (" + std::to_string(options.heads()) + ")");
    }
    if (!(options.layer_norm_eps() > 0)) {
        throw std::invalid_argument("encoder option layer_norm_eps must be positive");
    }
    const std::string &activation = options.activation();
    if (activation != "gelu" && activation != "gelu_tanh" && activation != "relu") {
        throw std::invalid_argument("encoder option activation must be gelu, gelu_tanh or relu, "
                                    "got \"" +
                                    activation + "\"");
    }
    requireProbabilityOption("encoder", options.hidden_dropout(), "hidden_dropout");
    requireProbabilityOption("encoder", options.attention_dropout(), "attention_dropout");
    if (options.pad_token_id() < -1 || options.pad_token_id() >= options.vocab_size()) {
        throw std::invalid_argument("encoder option pad_token_id must be -1 (none) or a token id "
                                    "below vocab_size, got " +
                                    std::to_string(options.pad_token_id()));
    }
}

BertEncoderLayerImpl::BertEncoderLayerImpl(const BertEncoderOptions &options)
    : query(nullptr), key(nullptr), value(nullptr), attention_out(nullptr), ffn_in(nullptr),
      ffn_out(nullptr), options_(options) {
    validateBertEncoderOptions(options_);
    const std::int64_t h = options_.hidden_size();
    const std::int64_t inner = options_.intermediate_size();
    const auto attention = level(*this, "attention");
    if (isBert(options_)) {
        const auto self = level(*attention, "self");
        query = self->register_module("query", torch::nn::Linear(h, h));
        key = self->register_module("key", torch::nn::Linear(h, h));
        value = self->register_module("value", torch::nn::Linear(h, h));
        const auto attention_output = level(*attention, "output");
        attention_out = attention_output->register_module("dense", torch::nn::Linear(h, h));
        attention_norm = attention_output->register_module("LayerNorm", layerNorm(options_));
        ffn_in =
            level(*this, "intermediate")->register_module("dense", torch::nn::Linear(h, inner));
        const auto output = level(*this, "output");
        ffn_out = output->register_module("dense", torch::nn::Linear(inner, h));
        output_norm = output->register_module("LayerNorm", layerNorm(options_));
    } else {
        query = attention->register_module("q_lin", torch::nn::Linear(h, h));
        key = attention->register_module("k_lin", torch::nn::Linear(h, h));
        value = attention->register_module("v_lin", torch::nn::Linear(h, h));
        attention_out = attention->register_module("out_lin", torch::nn::Linear(h, h));
        attention_norm = register_module("sa_layer_norm", layerNorm(options_));
        const auto ffn = level(*this, "ffn");
        ffn_in = ffn->register_module("lin1", torch::nn::Linear(h, inner));
        ffn_out = ffn->register_module("lin2", torch::nn::Linear(inner, h));
        output_norm = register_module("output_layer_norm", layerNorm(options_));
    }
    torch::NoGradGuard no_grad;
    for (torch::nn::Linear *linear : {&query, &key, &value, &attention_out, &ffn_in, &ffn_out}) {
        initLinear(*linear, kInitStd);
    }
    initLayerNorm(attention_norm);
    initLayerNorm(output_norm);
}

torch::Tensor BertEncoderLayerImpl::dropout(const torch::Tensor &x, double p, std::uint64_t which) {
    return p > 0 && is_training() ? keyedDropout(x, p, dropout_site_ + which) : x;
}

torch::Tensor BertEncoderLayerImpl::forward(const torch::Tensor &x,
                                            const torch::Tensor &padded_keys) {
    TORCH_CHECK(x.dim() == 3, "BertEncoderLayer expects [B, T, H], got ", x.sizes());
    const std::int64_t batch = x.size(0);
    const std::int64_t length = x.size(1);
    const std::int64_t heads = options_.heads();
    const std::int64_t head_dim = options_.hidden_size() / heads;
    const auto split = [&](const torch::Tensor &t) { // [B, T, H] -> [B, heads, T, D]
        return t.view({batch, length, heads, head_dim}).transpose(1, 2);
    };
    const double scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
    std::optional<profile::ModuleScope> scope(std::in_place, "attention");
    // The lowest value of the scores' dtype rather than -inf: a row without any real key stays
    // finite (uniform weights), as in transformers.
    torch::Tensor scores = torch::matmul(split(query(x)), split(key(x)).transpose(-1, -2)) * scale;
    scores = scores.masked_fill(padded_keys, lowestOf(scores.scalar_type()));
    const torch::Tensor weights =
        dropout(torch::softmax(scores, -1), options_.attention_dropout(), kAttentionWeightsSite);
    const torch::Tensor context = torch::matmul(weights, split(value(x)))
                                      .transpose(1, 2)
                                      .reshape({batch, length, options_.hidden_size()});
    torch::Tensor attended = attention_out(context);
    if (isBert(options_)) { // DistilBERT has no dropout on the attention output
        attended = dropout(attended, options_.hidden_dropout(), kAttentionOutputSite);
    }
    const torch::Tensor h = normalize(attention_norm, attended + x);
    scope.reset();
    const profile::ModuleScope ffn_scope("ffn");
    const torch::Tensor fed = dropout(ffn_out(activate(ffn_in(h), options_.activation())),
                                      options_.hidden_dropout(), kFeedForwardOutputSite);
    return normalize(output_norm, fed + h);
}

BertEncoderImpl::BertEncoderImpl(const BertEncoderOptions &options) : options_(options) {
    validateBertEncoderOptions(options_);
    const std::int64_t h = options_.hidden_size();
    const bool bert = isBert(options_);
    const auto embeddings = level(*this, "embeddings");
    auto word_options = torch::nn::EmbeddingOptions(options_.vocab_size(), h);
    if (options_.pad_token_id() >= 0) {
        word_options.padding_idx(options_.pad_token_id());
    }
    word_embeddings_ =
        embeddings->register_module("word_embeddings", torch::nn::Embedding(word_options));
    position_embeddings_ = embeddings->register_module(
        "position_embeddings", torch::nn::Embedding(options_.max_positions(), h));
    if (bert) {
        token_type_embeddings_ = embeddings->register_module(
            "token_type_embeddings", torch::nn::Embedding(options_.type_vocab_size(), h));
    }
    embedding_norm_ = embeddings->register_module("LayerNorm", layerNorm(options_));

    auto list = torch::nn::ModuleList();
    for (std::int64_t layer = 0; layer < options_.layers(); ++layer) {
        layers_.emplace_back(options_);
        layers_.back()->setDropoutSite(kLayerSiteStride * static_cast<std::uint64_t>(layer + 1));
        list->push_back(layers_.back());
    }
    level(*this, bert ? "encoder" : "transformer")->register_module("layer", list);

    const torch::Tensor bias = torch::zeros({options_.vocab_size()});
    const auto decoder_weight = [&] {
        return torch::empty({options_.vocab_size(), h});
    };
    if (bert) {
        const auto predictions = level(*level(*this, "cls"), "predictions");
        const auto transform = level(*predictions, "transform");
        transform_ = transform->register_module("dense", torch::nn::Linear(h, h));
        transform_norm_ = transform->register_module("LayerNorm", layerNorm(options_));
        decoder_bias_ = predictions->register_parameter("bias", bias);
        if (!options_.tie_word_embeddings()) {
            untied_decoder_weight_ =
                level(*predictions, "decoder")->register_parameter("weight", decoder_weight());
        }
    } else {
        transform_ = register_module("vocab_transform", torch::nn::Linear(h, h));
        transform_norm_ = register_module("vocab_layer_norm", layerNorm(options_));
        const auto projector = level(*this, "vocab_projector");
        if (!options_.tie_word_embeddings()) {
            untied_decoder_weight_ = projector->register_parameter("weight", decoder_weight());
        }
        decoder_bias_ = projector->register_parameter("bias", bias);
    }
    resetParameters();
}

void BertEncoderImpl::resetParameters() {
    torch::NoGradGuard no_grad;
    for (torch::nn::Embedding *embedding :
         {&word_embeddings_, &position_embeddings_, &token_type_embeddings_}) {
        if (!embedding->is_empty()) {
            torch::nn::init::normal_((*embedding)->weight, 0.0, kInitStd);
        }
    }
    if (options_.pad_token_id() >= 0) {
        word_embeddings_->weight[options_.pad_token_id()].zero_();
    }
    initLayerNorm(embedding_norm_);
    initLinear(transform_, kInitStd);
    initLayerNorm(transform_norm_);
    if (untied_decoder_weight_.defined()) {
        torch::nn::init::normal_(untied_decoder_weight_, 0.0, kInitStd);
    }
    decoder_bias_.zero_();
}

torch::Tensor BertEncoderImpl::hidden(const torch::Tensor &input_ids,
                                      const torch::Tensor &attention_mask) {
    TORCH_CHECK(input_ids.dim() == 2, "BertEncoder expects input_ids [B, T], got ",
                input_ids.sizes());
    TORCH_CHECK(input_ids.scalar_type() == torch::kLong,
                "BertEncoder expects int64 input_ids, got ", input_ids.scalar_type());
    TORCH_CHECK(attention_mask.sizes() == input_ids.sizes(), "BertEncoder attention_mask ",
                attention_mask.sizes(), " must have the shape of input_ids ", input_ids.sizes());
    const std::int64_t length = input_ids.size(1);
    TORCH_CHECK(length >= 1 && length <= options_.max_positions(), "BertEncoder sequence length ",
                length, " is outside 1..", options_.max_positions(), " (max_position_embeddings)");
    torch::Tensor x;
    {
        const profile::ModuleScope scope("embeddings");
        x = word_embeddings_(input_ids);
        if (!token_type_embeddings_.is_empty()) {
            x = x + token_type_embeddings_->weight[0]; // every token is of type 0
        }
        x = x + position_embeddings_->weight.narrow(0, 0, length);
        x = normalize(embedding_norm_, x);
        if (options_.hidden_dropout() > 0 && is_training()) {
            x = keyedDropout(x, options_.hidden_dropout(), kEmbeddingDropoutSite);
        }
    }
    const torch::Tensor padded_keys =
        attention_mask.to(x.device()).eq(0).view({input_ids.size(0), 1, 1, length});
    for (std::size_t index = 0; index < layers_.size(); ++index) {
        BertEncoderLayer layer = layers_[index];
        const bool recompute = checkpoint_every_ > 0 && is_training() &&
                               static_cast<std::int64_t>(index) % checkpoint_every_ == 0;
        // By value: backward calls the block again after hidden() has returned.
        auto run = [layer, padded_keys, index](const torch::Tensor &input) mutable {
            const profile::ModuleScope scope("layers", static_cast<std::int64_t>(index));
            return layer->forward(input, padded_keys);
        };
        x = recompute ? checkpointed(run, x) : run(x);
    }
    return x;
}

torch::Tensor BertEncoderImpl::mlmHead(const torch::Tensor &hidden_states) {
    const profile::ModuleScope scope("mlm_head");
    const torch::Tensor transformed =
        normalize(transform_norm_, activate(transform_(hidden_states), options_.activation()));
    return torch::linear(transformed, decoderWeight(), decoder_bias_);
}

torch::Tensor BertEncoderImpl::mlmLogits(const torch::Tensor &input_ids,
                                         const torch::Tensor &attention_mask) {
    return mlmHead(hidden(input_ids, attention_mask));
}

torch::Tensor BertEncoderImpl::decoderWeight() const {
    return untied_decoder_weight_.defined() ? untied_decoder_weight_ : word_embeddings_->weight;
}

void BertEncoderImpl::setCheckpointEvery(std::int64_t every) {
    if (every < 0) {
        throw std::invalid_argument("checkpointing must be 0 (off) or a layer interval >= 1");
    }
    checkpoint_every_ = every;
}

std::string BertEncoderImpl::checkpointName(const std::string &parameter_name) const {
    for (const char *body : {"embeddings.", "encoder.", "transformer."}) {
        if (parameter_name.rfind(body, 0) == 0) {
            return (isBert(options_) ? "bert." : "distilbert.") + parameter_name;
        }
    }
    return parameter_name;
}

} // namespace headroom::models
