#!/usr/bin/python3
"""Independent pure-torch reference for Hugging Face masked-LM encoders: BertForMaskedLM and
DistilBertForMaskedLM.

What the C++ encoder import and export are checked against. Written from the published
architectures, without transformers or safetensors (the safetensors reader and writer are the
ones of ../pretrained/reference_lm.py):

  BERT        embeddings = LayerNorm(word[ids] + token_type[0] + position[0..T-1]); each layer
              is post-LayerNorm: a = LayerNorm(x + out(attention(x))), then
              LayerNorm(a + down(act(up(a)))); attention scores q k^T / sqrt(head_dim) with
              padded keys (attention_mask 0) pushed to the lowest float before the softmax.
              MLM head: LayerNorm(act(dense(h))) @ decoder^T + bias, the decoder being the word
              embeddings unless tie_word_embeddings is false.
  DistilBERT  the same without token types, under other names (q_lin/k_lin/v_lin/out_lin,
              sa_layer_norm, ffn.lin1/lin2, output_layer_norm, vocab_transform,
              vocab_layer_norm, vocab_projector), LayerNorm eps 1e-12.

Tensor names follow save_pretrained: the body under "bert." / "distilbert." (accepted
without it too), the tied decoder weight absent (or present and ignored), the BERT decoder bias
as cls.predictions.bias or cls.predictions.decoder.bias. Pooler, next-sentence head and
position_ids buffers are ignored; any other unknown tensor is an error (the export must not
write names transformers would not load).

Command line (used by the C++ test on an exported folder):
  reference_encoder.py FOLDER INPUTS.safetensors OUT.safetensors
reads "inputs" (I64 [B, T]) and "attention_mask" (I64 [B, T]) and writes "logits" and "hidden".
"""

import json
import math
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "pretrained"))
import reference_lm as st  # noqa: E402  (safetensors reading and writing only)

ACTIVATIONS = {
    "gelu": lambda x: 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0))),
    "gelu_new": lambda x: 0.5 * x * (1.0 + torch.tanh(
        math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0)))),
    "relu": torch.relu,
}
ACTIVATIONS["gelu_pytorch_tanh"] = ACTIVATIONS["gelu_new"]
ACTIVATIONS["gelu_fast"] = ACTIVATIONS["gelu_new"]


def normalise_names(config, state):
    """Stored names -> the names of the *ForMaskedLM model (body prefixed, aliases resolved)."""
    bert = config["model_type"] == "bert"
    prefix = "bert." if bert else "distilbert."
    out = {}
    for name, tensor in state.items():
        if name.split(".")[0] in ("embeddings", "encoder", "transformer", "pooler"):
            name = prefix + name
        if (name.endswith(".position_ids") or name.startswith(prefix + "pooler.")
                or name.startswith("cls.seq_relationship.")):
            continue
        if name == "cls.predictions.decoder.bias":
            if "cls.predictions.bias" in state:
                continue
            name = "cls.predictions.bias"
        out[name] = tensor
    return out


class ReferenceEncoder:
    def __init__(self, config, state):
        self.config = config
        self.bert = config["model_type"] == "bert"
        if self.bert:
            self.hidden_size = config["hidden_size"]
            self.heads = config["num_attention_heads"]
            self.layers = config["num_hidden_layers"]
            self.eps = config.get("layer_norm_eps", 1e-12)
            self.act = ACTIVATIONS[config.get("hidden_act", "gelu")]
        else:
            self.hidden_size = config["dim"]
            self.heads = config["n_heads"]
            self.layers = config["n_layers"]
            self.eps = 1e-12
            self.act = ACTIVATIONS[config.get("activation", "gelu")]
        self.w = normalise_names(config, state)
        self.used = set()
        self.tied = config.get("tie_word_embeddings", True)

    def get(self, name):
        self.used.add(name)
        return self.w[name]

    def check_all_used(self):
        unknown = set(self.w) - self.used
        if self.tied:
            unknown -= {"cls.predictions.decoder.weight", "vocab_projector.weight"}
        if unknown:
            raise ValueError(f"tensors the model does not have: {sorted(unknown)}")

    def linear(self, name, x):
        return x @ self.get(name + ".weight").t() + self.get(name + ".bias")

    def norm(self, name, x):
        return F.layer_norm(x, (x.shape[-1],), self.get(name + ".weight"),
                            self.get(name + ".bias"), self.eps)

    def names(self):
        if self.bert:
            return dict(body="bert.", layers="bert.encoder.layer.", q="attention.self.query",
                        k="attention.self.key", v="attention.self.value",
                        o="attention.output.dense", norm1="attention.output.LayerNorm",
                        up="intermediate.dense", down="output.dense", norm2="output.LayerNorm",
                        transform="cls.predictions.transform.dense",
                        transform_norm="cls.predictions.transform.LayerNorm",
                        decoder="cls.predictions.decoder.weight", bias="cls.predictions.bias")
        return dict(body="distilbert.", layers="distilbert.transformer.layer.",
                    q="attention.q_lin", k="attention.k_lin", v="attention.v_lin",
                    o="attention.out_lin", norm1="sa_layer_norm", up="ffn.lin1",
                    down="ffn.lin2", norm2="output_layer_norm", transform="vocab_transform",
                    transform_norm="vocab_layer_norm", decoder="vocab_projector.weight",
                    bias="vocab_projector.bias")

    def attention(self, n, p, x, mask):
        b, t, h = x.shape
        d = h // self.heads

        def heads(y):
            return y.view(b, t, self.heads, d).transpose(1, 2)

        q = heads(self.linear(p + n["q"], x))
        k = heads(self.linear(p + n["k"], x))
        v = heads(self.linear(p + n["v"], x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(d)
        scores = scores.masked_fill(mask[:, None, None, :] == 0, torch.finfo(scores.dtype).min)
        context = torch.softmax(scores, dim=-1) @ v
        return self.linear(p + n["o"], context.transpose(1, 2).reshape(b, t, h))

    def hidden(self, ids, mask):
        """ids, mask [B, T] -> last hidden states [B, T, H] (fp32)."""
        n = self.names()
        e = n["body"] + "embeddings."
        t = ids.shape[1]
        x = self.get(e + "word_embeddings.weight")[ids]
        if self.bert:
            x = x + self.get(e + "token_type_embeddings.weight")[0]
        x = x + self.get(e + "position_embeddings.weight")[:t]
        x = self.norm(e + "LayerNorm", x)
        for i in range(self.layers):
            p = f"{n['layers']}{i}."
            x = self.norm(p + n["norm1"], x + self.attention(n, p, x, mask))
            x = self.norm(p + n["norm2"],
                          x + self.linear(p + n["down"], self.act(self.linear(p + n["up"], x))))
        return x

    def logits(self, hidden):
        n = self.names()
        h = self.norm(n["transform_norm"], self.act(self.linear(n["transform"], hidden)))
        decoder = (self.get(n["body"] + "embeddings.word_embeddings.weight") if self.tied
                   else self.get(n["decoder"]))
        return h @ decoder.t() + self.get(n["bias"])

    def forward(self, ids, mask):
        hidden = self.hidden(ids, mask)
        logits = self.logits(hidden)
        self.check_all_used()
        return hidden, logits


def main():
    if len(sys.argv) != 4:
        raise SystemExit("usage: reference_encoder.py FOLDER INPUTS.safetensors OUT.safetensors")
    folder, inputs_path, out_path = sys.argv[1:]
    config, state = st.load_folder(folder)
    inputs = st.load_safetensors(inputs_path)
    model = ReferenceEncoder(config, state)
    with torch.no_grad():
        hidden, logits = model.forward(inputs["inputs"], inputs["attention_mask"])
    st.save_safetensors(out_path, {"hidden": hidden.contiguous(), "logits": logits.contiguous()})


if __name__ == "__main__":
    main()
