"""Reads and writes safetensors files for the Python references under tests/interop.

safetensors is read and written here directly (8-byte little-endian header length, a JSON
header, raw little-endian data): python3-torch is the only dependency.
"""

import json
import struct

import torch

DTYPES = {"F32": (torch.float32, 4), "I64": (torch.int64, 8)}


def read_safetensors(path):
    with open(path, "rb") as handle:
        blob = handle.read()
    (length,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + length].decode("utf-8"))
    metadata = header.pop("__metadata__", {})
    data = blob[8 + length :]
    tensors = {}
    for name, entry in header.items():
        dtype, _ = DTYPES[entry["dtype"]]
        begin, end = entry["data_offsets"]
        raw = bytearray(data[begin:end])
        flat = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        tensors[name] = flat.clone().reshape(entry["shape"])
    return tensors, metadata


def write_safetensors(path, tensors):
    header = {}
    chunks = []
    offset = 0
    for name in sorted(tensors):
        tensor = tensors[name].detach().contiguous()
        code = "F32" if tensor.dtype == torch.float32 else "I64"
        raw = tensor.numpy().tobytes()
        header[name] = {"dtype": code, "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as handle:
        handle.write(struct.pack("<Q", len(text)))
        handle.write(text)
        for raw in chunks:
            handle.write(raw)
