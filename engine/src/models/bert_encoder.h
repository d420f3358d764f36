// Bidirectional transformer encoders in the layouts of Hugging Face BertForMaskedLM and
// DistilBertForMaskedLM: learned absolute positions, post-LayerNorm layers, an MLM head
// (dense -> activation -> LayerNorm -> decoder tied to the word embeddings, plus a bias).
// DistilBERT is BERT without token-type embeddings, pooler or dropout after the attention
// output, under other names. The module tree mirrors the checkpoint's without the body prefix:
// named_parameters() are "embeddings.word_embeddings.weight",
// "encoder.layer.0.attention.self.query.weight", "cls.predictions.transform.dense.weight",
// "cls.predictions.bias" (BERT) and "transformer.layer.0.attention.q_lin.weight",
// "vocab_transform.weight", "vocab_projector.bias" (DistilBERT); the body's tensors are
// saved with "bert." / "distilbert." in front.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::models {

enum class EncoderFamily { Bert, DistilBert };

struct BertEncoderOptions {
    TORCH_ARG(EncoderFamily, family) = EncoderFamily::Bert;
    TORCH_ARG(std::int64_t, vocab_size) = 30522;
    TORCH_ARG(std::int64_t, hidden_size) = 768;
    TORCH_ARG(std::int64_t, layers) = 12;
    TORCH_ARG(std::int64_t, heads) = 12;
    TORCH_ARG(std::int64_t, intermediate_size) = 3072;
    TORCH_ARG(std::int64_t, max_positions) = 512;
    TORCH_ARG(std::int64_t, type_vocab_size) = 2; // BERT only
    TORCH_ARG(double, layer_norm_eps) = 1e-12;
    // "gelu" (erf), "gelu_tanh" (tanh approximation) or "relu"; the MLM transform uses it too.
    TORCH_ARG(std::string, activation) = "gelu";
    TORCH_ARG(double, hidden_dropout) = 0.1;
    TORCH_ARG(double, attention_dropout) = 0.1;
    // false: the MLM decoder has a weight of its own ("cls.predictions.decoder.weight",
    // "vocab_projector.weight").
    TORCH_ARG(bool, tie_word_embeddings) = true;
    // The word embedding row that gets no gradient (nn.Embedding's padding_idx); -1 for none.
    TORCH_ARG(std::int64_t, pad_token_id) = -1;
};

// Throws std::invalid_argument naming the bad option.
void validateBertEncoderOptions(const BertEncoderOptions &options);

// One post-LayerNorm transformer layer: self-attention over the unmasked keys, residual,
// LayerNorm; feed-forward, residual, LayerNorm.
class BertEncoderLayerImpl : public torch::nn::Module {
public:
    explicit BertEncoderLayerImpl(const BertEncoderOptions &options);

    // x [B, T, H]; padded_keys [B, 1, 1, T] bool, true where the key is padding.
    torch::Tensor forward(const torch::Tensor &x, const torch::Tensor &padded_keys);
    // Keys the layer's dropout masks (models/keyed_dropout.h).
    void setDropoutSite(std::uint64_t site) { dropout_site_ = site; }

    // The projections, for initialisation and later adapters.
    torch::nn::Linear query, key, value, attention_out, ffn_in, ffn_out;
    torch::nn::LayerNorm attention_norm{nullptr}, output_norm{nullptr};

private:
    torch::Tensor dropout(const torch::Tensor &x, double p, std::uint64_t which);

    BertEncoderOptions options_;
    std::uint64_t dropout_site_ = 0;
};
TORCH_MODULE(BertEncoderLayer);

class BertEncoderImpl : public torch::nn::Module {
public:
    explicit BertEncoderImpl(const BertEncoderOptions &options);

    // input_ids [B, T] int64 (T <= max_positions); attention_mask [B, T], 1 for real tokens and
    // 0 for padding (any integer, bool or floating type): padded keys get no attention. Token
    // types are all 0. Returns the last layer's hidden states [B, T, H].
    torch::Tensor hidden(const torch::Tensor &input_ids, const torch::Tensor &attention_mask);
    // The MLM head over hidden(): [B, T, vocab_size].
    torch::Tensor mlmLogits(const torch::Tensor &input_ids, const torch::Tensor &attention_mask);
    // The MLM head alone, over hidden states [..., H].
    torch::Tensor mlmHead(const torch::Tensor &hidden_states);

    // 0: off; N >= 1: recompute every N-th layer (0, N, 2N, ...) in backward while training
    // (models/activation_checkpoint.h).
    void setCheckpointEvery(std::int64_t every);
    std::int64_t checkpointEvery() const { return checkpoint_every_; }

    const BertEncoderOptions &options() const { return options_; }
    torch::Tensor wordEmbeddingWeight() const { return word_embeddings_->weight; }
    // The decoder's weight: the word embeddings when tied.
    torch::Tensor decoderWeight() const;
    const std::vector<BertEncoderLayer> &layers() const { return layers_; }

    // "bert." or "distilbert." + name for the body's parameters, name for the MLM head's: the
    // tensor name in a save_pretrained checkpoint.
    std::string checkpointName(const std::string &parameter_name) const;

private:
    void resetParameters();

    BertEncoderOptions options_;
    torch::nn::Embedding word_embeddings_{nullptr}, position_embeddings_{nullptr},
        token_type_embeddings_{nullptr};
    torch::nn::LayerNorm embedding_norm_{nullptr};
    std::vector<BertEncoderLayer> layers_;
    torch::nn::Linear transform_{nullptr};
    torch::nn::LayerNorm transform_norm_{nullptr};
    torch::Tensor untied_decoder_weight_; // undefined when tied
    torch::Tensor decoder_bias_;
    std::int64_t checkpoint_every_ = 0;
};
TORCH_MODULE(BertEncoder);

} // namespace headroom::models
