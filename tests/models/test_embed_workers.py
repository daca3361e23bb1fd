"""Embedding across worker processes, and on the device asked for."""
from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from tests.conftest import SAMPLE_CORPUS
from trag_tui.cli import cli
from trag_tui.errors import EmbedderError
from trag_tui.models.embedding import load_embedder, resolve_device
from trag_tui.settings import Settings


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def test_devices_are_checked():
    assert resolve_device(None) == "cpu" and resolve_device("cpu") == "cpu"
    assert resolve_device("auto") == ("cuda" if _cuda() else "cpu")
    with pytest.raises(EmbedderError):
        resolve_device("tpu")
    if not _cuda():
        with pytest.raises(EmbedderError, match="no CUDA"):
            resolve_device("cuda")


@pytest.mark.slow
@pytest.mark.skipif(_cuda(), reason="this machine has CUDA")
def test_index_refuses_cuda_where_there_is_none_in_one_line(tmp_path):
    out = CliRunner().invoke(cli, ["-d", str(tmp_path / "t.db"), "index", str(SAMPLE_CORPUS), "--device", "cuda"])
    assert out.exit_code == 1 and out.output.startswith("Error: ") and "CUDA" in out.output
    assert "Traceback" not in out.output


@pytest.mark.real_models
def test_two_workers_embed_what_one_process_does():
    texts = [f"The Bank raised Bank Rate to {i / 4:.2f} per cent in meeting number {i}." for i in range(24)]
    one = load_embedder(None, Settings(embed_batch=8))
    two = load_embedder(None, Settings(embed_batch=8, embed_workers=2))
    try:
        alone = one.encode(texts)
        pooled = two.encode(texts)
        assert two._pool is not None  # a batch bigger than one encode call went to the workers
        assert pooled.shape == alone.shape == (24, 384)
        assert np.allclose(pooled, alone, atol=1e-5)
        two.encode(["a question"])  # small batches stay in this process
    finally:
        two.close()
    assert two._pool is None
