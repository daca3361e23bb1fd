"""Parity with a real Qdrant server, as users run it (local mode is for tests only).

The server is QDRANT_URL when set; otherwise a `qdrant` binary on PATH, started here on free
ports with its storage in a temporary folder and stopped afterwards. Where neither exists the
test is skipped: no package on PyPI ships the server.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("qdrant_client")

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ready(url: str, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(f"{url}/readyz", timeout=2) as r:
                if r.status == 200:
                    return True
        except OSError:
            time.sleep(0.3)
    return False


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if url := os.environ.get("QDRANT_URL"):
        yield url.rstrip("/")
        return
    binary = shutil.which("qdrant")
    if binary is None:
        pytest.skip("no Qdrant server: set QDRANT_URL or put a `qdrant` binary on PATH")
    folder = tmp_path_factory.mktemp("qdrant")
    http, grpc = _free_port(), _free_port()
    env = {**os.environ, "QDRANT__SERVICE__HTTP_PORT": str(http),
           "QDRANT__SERVICE__GRPC_PORT": str(grpc), "QDRANT__SERVICE__HOST": "127.0.0.1",
           "QDRANT__STORAGE__STORAGE_PATH": str(folder / "storage"),
           "QDRANT__STORAGE__SNAPSHOTS_PATH": str(folder / "snapshots"),
           "QDRANT__TELEMETRY_DISABLED": "true"}
    proc = subprocess.Popen([binary], cwd=folder, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{http}"
    try:
        if not _ready(url, 60):
            pytest.fail("the qdrant binary did not answer on its port within 60 s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_the_parity_bench_holds_against_a_server(server):
    out = subprocess.run(
        [sys.executable, str(REPO / "bench" / "qdrant_parity.py"), "--corpus", "sample",
         "--url", server],
        capture_output=True, text=True, timeout=900, check=True,
        env={**os.environ, "PYTHONPATH": str(REPO)}).stdout
    report = json.loads(out)
    assert report["qdrant"] == server
    sample = report["sample"]
    assert sample["recall_gap"] <= 0.02
    for side in ("sqlite", "qdrant"):
        assert sample[side]["leak_rate"] == 0
        assert sample[side]["comparison_contamination"] == 0
