#!/usr/bin/python3
"""Independent pure-torch reference for Hugging Face causal LMs: GPT-2, Llama, Qwen2, Mistral,
Mixtral.

What the C++ import (pretrained safetensors folders) is checked against. Written from the math of
the transformers modeling code, not copied from it, and without transformers or safetensors:

  * safetensors: 8-byte little-endian header length, a JSON header {name: {dtype, shape,
    data_offsets}} (plus an optional "__metadata__" of strings) padded with spaces to a multiple
    of 8, then the raw little-endian tensor bytes, offsets relative to the end of the header.
  * load_folder(): config.json plus model.safetensors or model.safetensors.index.json shards;
    every tensor becomes fp32.
  * ReferenceLM: the fp32 forward pass over token ids [B, T] -> logits [B, T, vocab], greedy
    generation (the whole prefix recomputed every step), optional LoRA adapters on its linears.

Model math (all fp32):
  GPT-2   learned positions; pre-LayerNorm blocks; Conv1D linears (weights stored [in, out],
          y = x @ W + b); fused c_attn split into q, k, v; scores / sqrt(head_dim); gelu_new (tanh
          approximation) MLP of width n_inner or 4 * n_embd; final ln_f; logits through wte (tied).
  Llama   RMSNorm (x * rsqrt(mean(x^2) + eps), then * weight); rotate_half RoPE (cos/sin of
  Qwen2   positions * inv_freq, the frequency vector repeated twice over the head); grouped-query
  Mistral attention (each k/v head serves num_heads / num_kv_heads consecutive query heads);
          scores * head_dim^-0.5; SwiGLU MLP down(silu(gate(x)) * up(x)); final norm; lm_head or
          the tied embedding. Qwen2 adds q/k/v biases (attention_bias for Llama); Mistral (and
          Qwen2 with use_sliding_window) may limit attention to the last sliding_window keys.
  Mixtral Mistral's attention; the MLP is a sparse MoE block (transformers' modeling_mixtral):
          router logits = gate(x) (no bias); routing weights = softmax over all experts in fp32,
          the top num_experts_per_tok of them (torch.topk), divided by their sum; each expert
          runs w2(silu(w1(x)) * w3(x)) on the tokens routed to it (torch.where over a one-hot
          expert mask, experts in order), scaled by the token's weight and index-added back.
          load_balancing_loss(): transformers' load_balancing_loss_func over the layers' router
          logits (fraction of assignments times mean probability per expert, times experts).
  RoPE    default: inv_freq = 1 / theta^(2i/d); "linear": inv_freq / factor; "llama3": wavelengths
          above original_max / low_freq_factor divided by factor, below original_max /
          high_freq_factor kept, in between blended by s = (original_max / wavelen - low) /
          (high - low) as (1 - s) * inv_freq / factor + s * inv_freq.
"""

import json
import math
import os
import struct
import sys

import torch
import torch.nn.functional as F

if sys.byteorder != "little":
    raise SystemExit("reference_lm.py assumes a little-endian machine")

# ---------------------------------------------------------------------------------------------
# safetensors

SAFETENSORS_DTYPES = {
    "F64": torch.float64,
    "F32": torch.float32,
    "F16": torch.float16,
    "BF16": torch.bfloat16,
    "I64": torch.int64,
    "I32": torch.int32,
    "I16": torch.int16,
    "I8": torch.int8,
    "U8": torch.uint8,
    "BOOL": torch.bool,
}
DTYPE_NAMES = {dtype: name for name, dtype in SAFETENSORS_DTYPES.items()}


def element_size(dtype):
    return torch.empty((), dtype=dtype).element_size()


def tensor_bytes(tensor):
    """The raw little-endian bytes of a tensor, row-major."""
    tensor = tensor.detach().contiguous().cpu()
    if tensor.numel() == 0:
        return b""
    if tensor.dtype == torch.bool:
        tensor = tensor.to(torch.uint8)
    return tensor.reshape(-1).view(torch.uint8).numpy().tobytes()


def safetensors_header(entries, metadata=None):
    """entries: [(name, dtype_name, shape)] in file order -> (header bytes incl. the 8-byte
    length, {name: (begin, end)} data offsets)."""
    header = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    offsets = {}
    position = 0
    for name, dtype_name, shape in entries:
        size = math.prod(shape) * element_size(SAFETENSORS_DTYPES[dtype_name])
        header[name] = {"dtype": dtype_name, "shape": list(shape),
                        "data_offsets": [position, position + size]}
        offsets[name] = (position, position + size)
        position += size
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text, offsets


def save_safetensors(path, tensors, metadata=None):
    """tensors: {name: tensor}, each written in its own dtype, in sorted name order."""
    names = sorted(tensors)
    entries = [(name, DTYPE_NAMES[tensors[name].dtype], tuple(tensors[name].shape))
               for name in names]
    header, _ = safetensors_header(entries, metadata)
    with open(path, "wb") as f:
        f.write(header)
        for name in names:
            f.write(tensor_bytes(tensors[name]))


def read_safetensors_header(path):
    """-> (header dict without __metadata__, metadata dict, byte offset of the data)."""
    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(length).decode("utf-8"))
    metadata = header.pop("__metadata__", {}) or {}
    return header, metadata, 8 + length


def load_safetensors(path):
    """-> {name: tensor in its stored dtype} (and checks the offsets tile the data exactly)."""
    header, _, data_start = read_safetensors_header(path)
    with open(path, "rb") as f:
        f.seek(data_start)
        data = bytearray(f.read())
    spans = sorted((info["data_offsets"][0], info["data_offsets"][1], name)
                   for name, info in header.items())
    position = 0
    tensors = {}
    for begin, end, name in spans:
        info = header[name]
        dtype = SAFETENSORS_DTYPES[info["dtype"]]
        shape = info["shape"]
        if begin != position or end - begin != math.prod(shape) * element_size(dtype):
            raise ValueError(f"{path}: bad data_offsets for {name}")
        position = end
        if end == begin:
            tensors[name] = torch.empty(shape, dtype=dtype)
            continue
        raw = torch.frombuffer(data, dtype=torch.uint8, count=end - begin, offset=begin).clone()
        if dtype == torch.bool:
            tensors[name] = raw.to(torch.bool).reshape(shape)
        else:
            tensors[name] = raw.view(dtype).reshape(shape)
    if position != len(data):
        raise ValueError(f"{path}: {len(data) - position} trailing bytes")
    return tensors


def load_folder(folder, dtype=torch.float32):
    """A Hugging Face model folder -> (config dict, {HF tensor name: tensor in dtype})."""
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    index = os.path.join(folder, "model.safetensors.index.json")
    weight_map = None
    if os.path.exists(index) and not os.path.exists(os.path.join(folder, "model.safetensors")):
        with open(index) as f:
            weight_map = json.load(f)["weight_map"]
        files = sorted(set(weight_map.values()))
    else:
        files = ["model.safetensors"]
    state = {}
    for name in files:
        for key, tensor in load_safetensors(os.path.join(folder, name)).items():
            # As transformers loads shards: each tensor where the index says it is.
            if weight_map is not None and weight_map.get(key) != name:
                raise ValueError(f"{folder}: {key} is in {name}, the index says "
                                 f"{weight_map.get(key)}")
            state[key] = tensor.to(dtype) if tensor.is_floating_point() else tensor
    if weight_map is not None and set(weight_map) != set(state):
        raise ValueError(f"{folder}: the index lists tensors no shard holds: "
                         f"{sorted(set(weight_map) - set(state))}")
    return config, state


# ---------------------------------------------------------------------------------------------
# model

LLAMA_LIKE = ("llama", "qwen2", "mistral", "mixtral")


def rope_inv_freq(config, head_dim):
    """RoPE inverse frequencies [head_dim / 2] (fp32), with the config's rope_scaling."""
    theta = float(config.get("rope_theta", 10000.0))
    partial = float(config.get("partial_rotary_factor", 1.0))
    dim = int(head_dim * partial)
    exponents = torch.arange(0, dim, 2, dtype=torch.int64).float() / dim
    inv_freq = 1.0 / (theta ** exponents)
    scaling = config.get("rope_scaling") or {}
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    if kind == "default":
        return inv_freq
    factor = float(scaling["factor"])
    if kind == "linear":
        return inv_freq / factor
    if kind == "llama3":
        low = float(scaling["low_freq_factor"])
        high = float(scaling["high_freq_factor"])
        original = float(scaling["original_max_position_embeddings"])
        wavelen = 2 * math.pi / inv_freq
        scaled = torch.where(wavelen > original / low, inv_freq / factor, inv_freq)
        smooth = (original / wavelen - low) / (high - low)
        blended = (1 - smooth) * scaled / factor + smooth * scaled
        medium = (wavelen >= original / high) & (wavelen <= original / low)
        return torch.where(medium, blended, scaled)
    raise ValueError(f"rope_scaling type {kind!r} is not in the reference")


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))


def rms_norm(x, weight, eps):
    return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def attention_mask(length, sliding_window=None):
    """Additive [T, T] mask: 0 where query i may see key j (j <= i, and i - j < window)."""
    i = torch.arange(length).view(-1, 1)
    j = torch.arange(length).view(1, -1)
    allowed = j <= i
    if sliding_window:
        allowed &= (i - j) < sliding_window
    mask = torch.zeros(length, length)
    return mask.masked_fill(~allowed, torch.finfo(torch.float32).min)


class ReferenceLM:
    """fp32 forward of a Hugging Face causal LM from its config dict and HF-named state dict."""

    def __init__(self, config, state):
        self.config = config
        self.kind = config["model_type"]
        if self.kind == "gpt2":
            # Old hub files have no "transformer." prefix and carry h.N.attn.bias / masked_bias
            # causal-mask buffers; both are dropped here.
            self.state = {}
            for name, tensor in state.items():
                if name.startswith("transformer."):
                    name = name[len("transformer."):]
                if name.endswith(".attn.bias") or name.endswith(".attn.masked_bias"):
                    continue
                self.state[name] = tensor.float()
            self.layers = config["n_layer"]
            self.heads = config["n_head"]
            self.head_dim = config["n_embd"] // self.heads
            tie = config.get("tie_word_embeddings", True)
            if "lm_head.weight" not in self.state:
                if not tie:
                    raise ValueError("lm_head.weight missing and tie_word_embeddings is false")
                self.state["lm_head.weight"] = self.state["wte.weight"]
        elif self.kind in LLAMA_LIKE:
            self.state = {name: tensor.float() for name, tensor in state.items()}
            self.layers = config["num_hidden_layers"]
            self.heads = config["num_attention_heads"]
            self.kv_heads = config.get("num_key_value_heads") or self.heads
            self.head_dim = config.get("head_dim") or config["hidden_size"] // self.heads
            self.inv_freq = rope_inv_freq(config, self.head_dim)
            tie = config.get("tie_word_embeddings", False)
            if "lm_head.weight" not in self.state:
                if not tie:
                    raise ValueError("lm_head.weight missing and tie_word_embeddings is false")
                self.state["lm_head.weight"] = self.state["model.embed_tokens.weight"]
            window = config.get("sliding_window")
            if self.kind == "qwen2" and not config.get("use_sliding_window", False):
                window = None
            self.sliding_window = window
        else:
            raise ValueError(f"model_type {self.kind!r} is not in the reference")
        # LoRA: {linear name (without .weight): (A [r, in], B [out, r], scale)}.
        self.adapters = {}
        self.masks = {}
        # Mixtral: per layer of the last forward pass, the router logits [B*T, E], the selected
        # experts [B*T, k] and the MoE block's input and output [B*T, dim].
        self.router_logits = []
        self.selected_experts = []
        self.moe_inputs = []
        self.moe_outputs = []

    # -- pieces

    def linear_names(self):
        """The names of the block linears (LoRA targets), without the .weight suffix."""
        if self.kind == "gpt2":
            parts = ("attn.c_attn", "attn.c_proj", "mlp.c_fc", "mlp.c_proj")
            return [f"h.{i}.{p}" for i in range(self.layers) for p in parts]
        parts = ["self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj"]
        if self.kind == "mixtral":
            parts += [f"block_sparse_moe.experts.{e}.{w}"
                      for e in range(self.config.get("num_local_experts", 8))
                      for w in ("w1", "w2", "w3")]
        else:
            parts += ["mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"]
        return [f"model.layers.{i}.{p}" for i in range(self.layers) for p in parts]

    def linear_shape(self, name):
        """(in_features, out_features) of a block linear."""
        weight = self.state[name + ".weight"]
        if self.kind == "gpt2":  # Conv1D: [in, out]
            return weight.shape[0], weight.shape[1]
        return weight.shape[1], weight.shape[0]

    def linear(self, name, x):
        weight = self.state[name + ".weight"]
        bias = self.state.get(name + ".bias")
        if self.kind == "gpt2" and name != "lm_head":
            y = x.matmul(weight)
            if bias is not None:
                y = y + bias
        else:
            y = F.linear(x, weight, bias)
        adapter = self.adapters.get(name)
        if adapter is not None:
            a, b, scale = adapter
            y = y + F.linear(F.linear(x, a), b) * scale
        return y

    def mask(self, length, window):
        key = (length, window)
        if key not in self.masks:
            self.masks[key] = attention_mask(length, window)
        return self.masks[key]

    def attend(self, q, k, v, layer):
        """q [B, H, T, D], k/v [B, KV, T, D] -> [B, T, H * D]."""
        batch, heads, length, head_dim = q.shape
        groups = heads // k.shape[1]
        if groups > 1:  # grouped-query: kv head h serves query heads h*groups ... h*groups+groups-1
            k = k.repeat_interleave(groups, dim=1)
            v = v.repeat_interleave(groups, dim=1)
        scores = q.matmul(k.transpose(-1, -2))
        if self.kind == "gpt2":
            if self.config.get("scale_attn_weights", True):
                scores = scores / (float(head_dim) ** 0.5)
            if self.config.get("scale_attn_by_inverse_layer_idx", False):
                scores = scores / float(layer + 1)
            scores = scores + self.mask(length, None)
        else:
            scores = scores * head_dim ** -0.5
            scores = scores + self.mask(length, self.sliding_window)
        weights = torch.softmax(scores, dim=-1)
        return weights.matmul(v).transpose(1, 2).reshape(batch, length, heads * head_dim)

    # -- forward

    def forward(self, ids):
        """ids: int64 [B, T] -> logits fp32 [B, T, vocab]."""
        if self.kind == "gpt2":
            hidden = self.gpt2_body(ids)
        else:
            hidden = self.llama_body(ids)
        return self.linear("lm_head", hidden)

    __call__ = forward

    def gpt2_body(self, ids):
        s, c = self.state, self.config
        eps = c.get("layer_norm_epsilon", 1e-5)
        batch, length = ids.shape
        dim = c["n_embd"]
        positions = torch.arange(length)
        x = s["wte.weight"][ids] + s["wpe.weight"][positions]
        act = c.get("activation_function", "gelu_new")
        for i in range(self.layers):
            p = f"h.{i}."
            h = F.layer_norm(x, (dim,), s[p + "ln_1.weight"], s[p + "ln_1.bias"], eps)
            qkv = self.linear(p + "attn.c_attn", h)
            q, k, v = (t.view(batch, length, self.heads, self.head_dim).transpose(1, 2)
                       for t in qkv.split(dim, dim=-1))
            x = x + self.linear(p + "attn.c_proj", self.attend(q, k, v, i))
            h = F.layer_norm(x, (dim,), s[p + "ln_2.weight"], s[p + "ln_2.bias"], eps)
            h = self.linear(p + "mlp.c_fc", h)
            if act in ("gelu_new", "gelu_pytorch_tanh", "gelu_fast"):
                h = gelu_new(h)
            elif act == "gelu":
                h = F.gelu(h)
            elif act == "relu":
                h = F.relu(h)
            else:
                raise ValueError(f"activation_function {act!r} is not in the reference")
            x = x + self.linear(p + "mlp.c_proj", h)
        return F.layer_norm(x, (dim,), s["ln_f.weight"], s["ln_f.bias"], eps)

    def llama_body(self, ids):
        s, c = self.state, self.config
        eps = c.get("rms_norm_eps", 1e-6)
        if c.get("hidden_act", "silu") != "silu":
            raise ValueError(f"hidden_act {c['hidden_act']!r} is not in the reference")
        batch, length = ids.shape
        positions = torch.arange(length, dtype=torch.float32)
        freqs = positions.view(-1, 1) * self.inv_freq.view(1, -1)  # [T, D/2]
        angles = torch.cat((freqs, freqs), dim=-1)
        cos, sin = angles.cos(), angles.sin()  # [T, D]
        x = s["model.embed_tokens.weight"][ids]
        self.router_logits, self.selected_experts = [], []
        self.moe_inputs, self.moe_outputs = [], []
        for i in range(self.layers):
            p = f"model.layers.{i}."
            h = rms_norm(x, s[p + "input_layernorm.weight"], eps)
            q = self.linear(p + "self_attn.q_proj", h)
            k = self.linear(p + "self_attn.k_proj", h)
            v = self.linear(p + "self_attn.v_proj", h)
            q = q.view(batch, length, self.heads, self.head_dim).transpose(1, 2)
            k = k.view(batch, length, self.kv_heads, self.head_dim).transpose(1, 2)
            v = v.view(batch, length, self.kv_heads, self.head_dim).transpose(1, 2)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            x = x + self.linear(p + "self_attn.o_proj", self.attend(q, k, v, i))
            h = rms_norm(x, s[p + "post_attention_layernorm.weight"], eps)
            if self.kind == "mixtral":
                x = x + self.sparse_moe(p + "block_sparse_moe.", h)
                continue
            gate = self.linear(p + "mlp.gate_proj", h)
            up = self.linear(p + "mlp.up_proj", h)
            x = x + self.linear(p + "mlp.down_proj", F.silu(gate) * up)
        return rms_norm(x, s["model.norm.weight"], eps)

    def sparse_moe(self, p, h):
        """Mixtral's MixtralSparseMoeBlock on h [B, T, dim] (router_jitter_noise is training-only
        and not modelled)."""
        c = self.config
        experts, top_k = c.get("num_local_experts", 8), c.get("num_experts_per_tok", 2)
        batch, length, dim = h.shape
        flat = h.reshape(-1, dim)
        router_logits = F.linear(flat, self.state[p + "gate.weight"])
        routing_weights = torch.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected = torch.topk(routing_weights, top_k, dim=-1)
        routing_weights = routing_weights / routing_weights.sum(dim=-1, keepdim=True)
        out = torch.zeros_like(flat)
        expert_mask = F.one_hot(selected, num_classes=experts).permute(2, 1, 0)
        for e in range(experts):
            idx, top_x = torch.where(expert_mask[e])
            state = flat[top_x]
            q = f"{p}experts.{e}."
            y = self.linear(q + "w2", F.silu(self.linear(q + "w1", state)) *
                            self.linear(q + "w3", state))
            out.index_add_(0, top_x, y * routing_weights[top_x, idx, None])
        self.router_logits.append(router_logits)
        self.selected_experts.append(selected)
        self.moe_inputs.append(flat)
        self.moe_outputs.append(out)
        return out.view(batch, length, dim)

    def load_balancing_loss(self, rows=None):
        """transformers' load_balancing_loss_func over the last forward pass's router logits (no
        attention mask). rows: the batch's rows, to apply it to each row (sequence) alone and
        average, as Headroom does so a step cut into micro-batches gives the same loss."""
        c = self.config
        experts, top_k = c.get("num_local_experts", 8), c.get("num_experts_per_tok", 2)
        if rows is not None:
            parts = [[logits.view(rows, -1, experts)[r] for logits in self.router_logits]
                     for r in range(rows)]
            return torch.stack([load_balancing_loss_func(part, experts, top_k)
                                for part in parts]).mean()
        return load_balancing_loss_func(self.router_logits, experts, top_k)

    # -- generation

    @torch.no_grad()
    def greedy(self, prompt, max_new_tokens, eos_ids=(), margins=None):
        """prompt: int64 [T] -> the new tokens (int64 [N]); stops after the first eos (kept).
        margins, if a list, gets each step's gap between the best and second-best logit."""
        eos = set(int(t) for t in eos_ids)
        ids = prompt.view(1, -1).clone()
        new = []
        for _ in range(max_new_tokens):
            last = self.forward(ids)[0, -1]
            token = int(torch.argmax(last))
            if margins is not None:
                top = torch.topk(last, 2).values
                margins.append(float(top[0] - top[1]))
            new.append(token)
            ids = torch.cat((ids, torch.tensor([[token]])), dim=1)
            if token in eos:
                break
        return torch.tensor(new, dtype=torch.int64)


def load_balancing_loss_func(gate_logits, num_experts, top_k):
    concatenated = torch.cat(list(gate_logits), dim=0)
    routing_weights = torch.softmax(concatenated, dim=-1)
    _, selected_experts = torch.topk(routing_weights, top_k, dim=-1)
    expert_mask = F.one_hot(selected_experts, num_experts)
    tokens_per_expert = torch.mean(expert_mask.float(), dim=0)
    router_prob_per_expert = torch.mean(routing_weights, dim=0)
    overall_loss = torch.sum(tokens_per_expert * router_prob_per_expert.unsqueeze(0))
    return overall_loss * num_experts


def load_peft_adapter(model, folder):
    """PEFT LoRA adapter folder (adapter_config.json, adapter_model.safetensors) onto the model."""
    with open(os.path.join(folder, "adapter_config.json")) as f:
        config = json.load(f)
    scale = float(config["lora_alpha"]) / float(config["r"])
    tensors = load_safetensors(os.path.join(folder, "adapter_model.safetensors"))
    prefix = "base_model.model."
    for name, a in tensors.items():
        if not name.endswith(".lora_A.weight"):
            continue
        linear = name[len(prefix):-len(".lora_A.weight")]
        if model.kind == "gpt2" and linear.startswith("transformer."):
            linear = linear[len("transformer."):]
        b = tensors[name.replace(".lora_A.", ".lora_B.")]
        model.adapters[linear] = (a.float(), b.float(), scale)


def eos_ids(config):
    """eos_token_id of a config (an int, a list, or absent) as a list."""
    eos = config.get("eos_token_id")
    if eos is None:
        return []
    return list(eos) if isinstance(eos, (list, tuple)) else [eos]


if __name__ == "__main__":
    # reference_lm.py FOLDER [--adapter PEFT_DIR] [ids...]: greedy continuation of the given ids
    # (default: bos), with a PEFT LoRA adapter when given.
    args = sys.argv[1:]
    adapter = None
    if len(args) > 2 and args[1] == "--adapter":
        adapter = args[2]
        del args[1:3]
    cfg, weights = load_folder(args[0])
    model = ReferenceLM(cfg, weights)
    if adapter:
        load_peft_adapter(model, adapter)
    start = [int(t) for t in args[1:]] or [cfg.get("bos_token_id") or 0]
    print(model.greedy(torch.tensor(start), 32, eos_ids(cfg)).tolist())
