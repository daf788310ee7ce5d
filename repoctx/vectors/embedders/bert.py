"""vectors/embedders/bert — a BERT encoder (all-MiniLM-L6-v2's shape) in numpy: no torch, no
network.

Reads a sentence-transformers model directory as the weights packages ship it
(``model.safetensors``, ``config.json``, ``vocab.txt``) and runs the forward pass in
float32 numpy: embeddings, ``num_hidden_layers`` post-norm blocks (12-head attention,
GELU feed-forward), mean pooling over the real tokens. The tokenizer is BERT's uncased
WordPiece: lower-case, accents stripped, split on white space and punctuation, then
greedy longest-prefix pieces with ``##`` continuations (``[UNK]`` past 100 characters
or when no piece fits). Words are memoised, so code — which repeats its names — is
tokenised at dictionary speed. Pure apart from reading the directory.
"""

from __future__ import annotations

import json
import math
import re
import struct
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from repoctx.errors import EmbedderError

MAX_TOKENS = 256
"""Word pieces per text, [CLS] and [SEP] included (sentence-transformers' max_seq_length)."""
_SHORT = 16
"""Sequences up to this length take the stacked attention path."""
_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
_SPLIT = re.compile(r"[^\W_]+|[^\w\s]|_")  # BERT splits at every punctuation mark, "_" too


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a ``.safetensors`` file as a numpy array (read-only views of one
    buffer: an 8-byte header length, a JSON header, then the raw little-endian data)."""
    try:
        data = path.read_bytes()
        size = struct.unpack("<Q", data[:8])[0]
        header = json.loads(data[8:8 + size])
    except (OSError, ValueError, struct.error) as exc:
        raise EmbedderError(f"cannot read the weights {path}: {exc}") from exc
    body = memoryview(data)[8 + size:]
    out: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] not in _DTYPES:
            continue
        start, end = info["data_offsets"]
        out[name] = np.frombuffer(body[start:end], dtype=_DTYPES[info["dtype"]]).reshape(
            info["shape"])
    return out


def words(text: str) -> list[str]:
    """The words of ``text`` as BERT's pre-tokenizer splits them, case kept."""
    return _SPLIT.findall(text)


class WordPiece:
    """BERT's uncased WordPiece tokenizer over a ``vocab.txt`` (one piece per line)."""

    def __init__(self, vocab: Sequence[str]) -> None:
        self.vocab = {piece: i for i, piece in enumerate(vocab)}
        self.pieces = list(vocab)
        self.unk, self.cls, self.sep = (self.vocab[t] for t in ("[UNK]", "[CLS]", "[SEP]"))
        self.word_ids = lru_cache(maxsize=200_000)(self._word_ids)

    @classmethod
    def from_file(cls, path: Path) -> WordPiece:
        """The tokenizer of ``vocab.txt``."""
        return cls(path.read_text(encoding="utf-8").splitlines())

    def ids(self, text: str, limit: int = MAX_TOKENS - 2) -> list[int]:
        """The piece ids of ``text`` (no [CLS]/[SEP]), at most ``limit`` of them."""
        out: list[int] = []
        for word in _SPLIT.findall(text):
            out.extend(self.word_ids(word))
            if len(out) >= limit:
                return out[:limit]
        return out

    def _word_ids(self, word: str) -> tuple[int, ...]:
        word = _normalise(word)
        if not word:
            return ()
        if len(word) > 100:
            return (self.unk,)
        out, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    out.append(self.vocab[piece])
                    break
                end -= 1
            if end == start:
                return (self.unk,)
            start = end
        return tuple(out)


def _normalise(word: str) -> str:
    """Lower case with accents stripped (NFD, combining marks dropped)."""
    word = word.lower()
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFD", word)
                   if unicodedata.category(c) != "Mn")


@dataclass(frozen=True)
class _Layer:
    qkv_w: np.ndarray
    qkv_b: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray
    ln1: tuple[np.ndarray, np.ndarray]
    up_w: np.ndarray
    up_b: np.ndarray
    down_w: np.ndarray
    down_b: np.ndarray
    ln2: tuple[np.ndarray, np.ndarray]


class Bert:
    """The encoder of a model directory; ``encode`` gives mean-pooled sentence vectors."""

    def __init__(self, directory: Path) -> None:
        try:
            config = json.loads((directory / "config.json").read_text())
        except (OSError, ValueError) as exc:
            raise EmbedderError(f"no BERT config.json in {directory}: {exc}") from exc
        w = read_safetensors(directory / "model.safetensors")
        w = {k.removeprefix("bert."): v for k, v in w.items()}
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.tokenizer = WordPiece.from_file(directory / "vocab.txt")
        self.words = w["embeddings.word_embeddings.weight"]
        self.positions = w["embeddings.position_embeddings.weight"]
        self.type0 = w["embeddings.token_type_embeddings.weight"][0]
        self.ln0 = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers = [_layer(w, f"encoder.layer.{i}.")
                       for i in range(int(config["num_hidden_layers"]))]
        self.dim = int(self.words.shape[1])

    def encode_ids(self, batch: Sequence[Sequence[int]]) -> np.ndarray:
        """Mean-pooled last hidden states of id sequences (each already framed by
        [CLS]/[SEP]); padded to the batch's longest, pads masked out."""
        ids, mask = padded(batch)
        n, length = ids.shape
        x = self.words[ids] + self.positions[:length] + self.type0
        x = _layer_norm(x, *self.ln0, self.eps)
        bias = (1.0 - mask)[:, None, :] * np.float32(-1e9)
        for layer in self.layers:
            x = self._block(x, layer, bias)
        summed = (x * mask[:, :, None]).sum(axis=1)
        return (summed / np.maximum(mask.sum(axis=1, keepdims=True), 1.0)).astype(np.float32)

    def encode(self, texts: Sequence[str], batch: int = 16,
               run: Callable[[list[list[int]]], np.ndarray] | None = None) -> np.ndarray:
        """One mean-pooled vector per text (truncated at ``MAX_TOKENS`` pieces); texts of
        similar length are batched together so padding stays small. ``run`` replaces
        ``encode_ids`` (another runtime over the same weights, ``bench/onnx_minilm.py``)."""
        run = run or self.encode_ids
        framed = [[self.tokenizer.cls, *self.tokenizer.ids(t), self.tokenizer.sep]
                  for t in texts]
        order = sorted(range(len(framed)), key=lambda i: len(framed[i]))
        out = np.zeros((len(framed), self.dim), dtype=np.float32)
        for start in range(0, len(order), batch):
            part = order[start:start + batch]
            out[part] = run([framed[i] for i in part])
        return out

    def _block(self, x: np.ndarray, layer: _Layer, bias: np.ndarray) -> np.ndarray:
        n, length, dim = x.shape
        head = dim // self.heads
        flat = x.reshape(n * length, dim)  # 2-D products go straight to BLAS
        qkv = (flat @ layer.qkv_w + layer.qkv_b).reshape(n, length, 3, self.heads, head)
        q, k, v = (qkv[:, :, i].transpose(0, 2, 1, 3).reshape(n * self.heads, length, head)
                   for i in range(3))
        scale = np.float32(1 / math.sqrt(head))
        if length <= _SHORT:  # tiny products: one stacked call beats a Python loop
            scores = np.matmul(q, k.transpose(0, 2, 1)) * scale + np.repeat(bias, self.heads, 0)
            context = np.matmul(_softmax(scores), v)
        else:
            context = np.empty((n * self.heads, length, head), dtype=np.float32)
            for i in range(n * self.heads):  # 2-D products: the stacked matmul skips BLAS
                context[i] = _softmax((q[i] @ k[i].T) * scale + bias[i // self.heads]) @ v[i]
        context = context.reshape(n, self.heads, length, head).transpose(0, 2, 1, 3).reshape(
            n * length, dim)
        flat = _layer_norm(flat + context @ layer.out_w + layer.out_b, *layer.ln1, self.eps)
        hidden = _gelu(flat @ layer.up_w + layer.up_b)
        out = _layer_norm(flat + hidden @ layer.down_w + layer.down_b, *layer.ln2, self.eps)
        return out.reshape(n, length, dim)


def padded(batch: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """``batch``'s id sequences zero-padded to the longest, and the mask of real tokens."""
    n, length = len(batch), max(len(ids) for ids in batch)
    ids = np.zeros((n, length), dtype=np.int64)
    mask = np.zeros((n, length), dtype=np.float32)
    for row, seq in enumerate(batch):
        ids[row, :len(seq)] = seq
        mask[row, :len(seq)] = 1.0
    return ids, mask


def _layer(w: dict[str, np.ndarray], p: str) -> _Layer:
    """One encoder block's weights, transposed for ``x @ W`` and Q/K/V fused."""
    att = p + "attention."
    qkv_w = np.concatenate([w[f"{att}self.{n}.weight"].T for n in ("query", "key", "value")],
                           axis=1)
    qkv_b = np.concatenate([w[f"{att}self.{n}.bias"] for n in ("query", "key", "value")])
    return _Layer(
        np.ascontiguousarray(qkv_w), qkv_b,
        np.ascontiguousarray(w[f"{att}output.dense.weight"].T), w[f"{att}output.dense.bias"],
        (w[f"{att}output.LayerNorm.weight"], w[f"{att}output.LayerNorm.bias"]),
        np.ascontiguousarray(w[p + "intermediate.dense.weight"].T),
        w[p + "intermediate.dense.bias"],
        np.ascontiguousarray(w[p + "output.dense.weight"].T), w[p + "output.dense.bias"],
        (w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]))


def _softmax(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, in place."""
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    return scores


def _layer_norm(x: np.ndarray, gain: np.ndarray, shift: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return ((x - mean) / np.sqrt(var + np.float32(eps)) * gain + shift).astype(np.float32)


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x·Φ(x), with erf from Abramowitz & Stegun 7.1.26 (error below
    1.5e-7); in place on ``x``'s buffer where it can be."""
    z = np.abs(x)
    z *= np.float32(1 / math.sqrt(2))
    t = z * np.float32(0.3275911)
    t += 1.0
    np.reciprocal(t, out=t)
    poly = t * np.float32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(c)
        poly *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z
    poly *= np.float32(0.5)  # the normal tail beyond |x|: Phi(-|x|)
    poly *= x
    return np.where(x >= 0, x - poly, poly)
