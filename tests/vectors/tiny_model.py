"""A tiny BERT model directory the tests build themselves (when no weights are installed).

Same files and tensor names as the packaged all-MiniLM-L6-v2 (``config.json``,
``vocab.txt``, ``model.safetensors`` with ``embeddings.*`` / ``encoder.layer.N.*``), with
seeded random weights: 2 layers, hidden size 32, 4 heads, and a vocabulary of the
special tokens, the letters (and their ``##`` continuations) and a few hundred words.
Random weights still give a deterministic embedder whose vectors depend on the words.
"""

from __future__ import annotations

import json
import string
from pathlib import Path

import numpy as np

_TEXT = ("the a of to and in is for on with by as it that this be are from or not "
         "def class return self import none true false if else raise error value key "
         "file path name list dict get set add remove open close read write cache store "
         "database query connection user session request response url view model form "
         "field test date time zone json http server client token index search vector "
         "embed memory graph node edge tree merge sync replica delta state")
WORDS = tuple(_TEXT.split())
HIDDEN, LAYERS, HEADS, FFN = 32, 2, 4, 64


def vocabulary() -> list[str]:
    """Specials, unused slots, letters and digits with continuations, then the words."""
    chars = list(string.ascii_lowercase + string.digits + string.punctuation)
    return (["[PAD]"] + [f"[unused{i}]" for i in range(4)] + ["[UNK]", "[CLS]", "[SEP]",
            "[MASK]"] + chars + ["##" + c for c in chars] + list(dict.fromkeys(WORDS)))


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    """The safetensors layout: header length, JSON header, raw little-endian float32."""
    header, blobs, offset = {}, [], 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    path.write_bytes(len(raw).to_bytes(8, "little") + raw + b"".join(blobs))


def build(directory: Path, seed: int = 7) -> Path:
    """Write the tiny model into ``directory`` and return it."""
    directory.mkdir(parents=True, exist_ok=True)
    vocab = vocabulary()
    rng = np.random.default_rng(seed)

    def rand(*shape: int) -> np.ndarray:
        return rng.normal(0, 0.2, size=shape).astype(np.float32)

    w = {"embeddings.word_embeddings.weight": rand(len(vocab), HIDDEN),
         "embeddings.position_embeddings.weight": rand(64, HIDDEN),
         "embeddings.token_type_embeddings.weight": rand(2, HIDDEN),
         "embeddings.LayerNorm.weight": np.ones(HIDDEN, np.float32),
         "embeddings.LayerNorm.bias": np.zeros(HIDDEN, np.float32)}
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."
        for n in ("query", "key", "value"):
            w[f"{p}attention.self.{n}.weight"] = rand(HIDDEN, HIDDEN)
            w[f"{p}attention.self.{n}.bias"] = rand(HIDDEN)
        w[f"{p}attention.output.dense.weight"] = rand(HIDDEN, HIDDEN)
        w[f"{p}attention.output.dense.bias"] = rand(HIDDEN)
        w[f"{p}intermediate.dense.weight"] = rand(FFN, HIDDEN)
        w[f"{p}intermediate.dense.bias"] = rand(FFN)
        w[f"{p}output.dense.weight"] = rand(HIDDEN, FFN)
        w[f"{p}output.dense.bias"] = rand(HIDDEN)
        for ln in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[f"{p}{ln}.weight"] = np.ones(HIDDEN, np.float32)
            w[f"{p}{ln}.bias"] = np.zeros(HIDDEN, np.float32)
    write_safetensors(directory / "model.safetensors", w)
    (directory / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    (directory / "config.json").write_text(json.dumps({
        "hidden_size": HIDDEN, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
        "intermediate_size": FFN, "layer_norm_eps": 1e-12, "vocab_size": len(vocab)}))
    return directory
