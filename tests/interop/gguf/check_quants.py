#!/usr/bin/python3
"""Reads Headroom's GGUF files with llama.cpp's own gguf-py and checks the quantized weights.

  check_quants.py GGUF_PY_DIR F32.gguf QUANTIZED.gguf...

Every tensor of each quantized file, dequantized by gguf-py (llama.cpp's reference decoder of the
block formats), must be close to the same tensor of the f32 export: relative RMS error below the
bound of its type. The formats gguf-py also quantizes (q8_0, q4_0, q5_0, q5_1, bf16) must be its
bytes exactly. Prints one line per file (the worst error per type) and exits 1 on a failure.
"""

import sys

sys.path.insert(0, sys.argv[1])
import numpy as np  # noqa: E402
from gguf import GGUFReader  # noqa: E402
from gguf.quants import dequantize, quantize  # noqa: E402

# Gaussian weights: each bit halves the error; q4_0 scales by the largest value only.
EXACT = {"Q8_0", "Q4_0", "Q5_0", "Q5_1", "BF16"}
BOUNDS = {"F32": 0.0, "F16": 1e-3, "BF16": 8e-3, "Q8_0": 0.01, "Q6_K": 0.025, "Q5_0": 0.06,
          "Q5_1": 0.06, "Q5_K": 0.045, "Q4_0": 0.12, "Q4_K": 0.09}


def main():
    reference = {t.name: t for t in GGUFReader(sys.argv[2]).tensors}
    failed = False
    for path in sys.argv[3:]:
        worst = {}
        tensors = GGUFReader(path).tensors
        if sorted(t.name for t in tensors) != sorted(reference):
            print(f"{path}: tensor names differ from the f32 export")
            failed = True
            continue
        for t in tensors:
            got = dequantize(t.data, t.tensor_type).astype(np.float64).reshape(-1)
            want = np.asarray(reference[t.name].data, dtype=np.float64).reshape(-1)
            if got.shape != want.shape:
                print(f"{path}: {t.name} has {got.size} values, the f32 export {want.size}")
                failed = True
                continue
            error = np.sqrt(np.mean((got - want) ** 2)) / max(np.sqrt(np.mean(want ** 2)), 1e-12)
            kind = t.tensor_type.name
            worst[kind] = max(worst.get(kind, 0.0), float(error))
            if kind in EXACT:
                source = np.asarray(reference[t.name].data, dtype=np.float32)
                want_bytes = quantize(source, t.tensor_type).reshape(-1).view(np.uint8)
                got_bytes = np.asarray(t.data).reshape(-1).view(np.uint8)
                differing = int(np.count_nonzero(want_bytes != got_bytes))
                if got_bytes.size != want_bytes.size or differing:
                    print(f"{path}: {t.name} ({kind}) differs from gguf-py's quantization in "
                          f"{differing} of {want_bytes.size} bytes")
                    failed = True
            if kind not in BOUNDS or error > BOUNDS[kind]:
                print(f"{path}: {t.name} ({kind}) relative RMS error {error:.4f}, bound "
                      f"{BOUNDS.get(kind)}")
                failed = True
        print(path, " ".join(f"{k}:{v:.4f}" for k, v in sorted(worst.items())))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
