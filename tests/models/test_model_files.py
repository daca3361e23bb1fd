"""Finding the GGUF models a user already has, laid out in tmp_path exactly as each tool lays them out."""
from __future__ import annotations

import hashlib
import json
import os
import struct
from pathlib import Path

import pytest
from click.testing import CliRunner

from trag_tui.cli import cli
from trag_tui.errors import GenerationError
from trag_tui.models import files as model_files
from trag_tui.models.files import (
    BUNDLED_NAME,
    default_places,
    find_models,
    identify,
    resolve,
    select,
)
from trag_tui.models.generation import model_path
from trag_tui.models.gguf import FILE_TYPES, quantization_from_name, read_metadata
from trag_tui.settings import Settings

Q4_K_M, Q8_0, Q6_K, F16 = 15, 7, 18, 1


# -- writing small GGUF files ---------------------------------------------------------------


def _str(s: str) -> bytes:
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def gguf_bytes(file_type: int | None = Q4_K_M, arch: str = "llama", *, vocab: int = 0,
               tail: bytes = b"\0" * 64) -> bytes:
    """A minimal valid GGUF v3 header: architecture, name, a token array, then the file type."""
    kvs = [_str("general.architecture") + struct.pack("<I", 8) + _str(arch),
           _str("general.name") + struct.pack("<I", 8) + _str("Test Model"),
           _str("llama.context_length") + struct.pack("<I", 4) + struct.pack("<I", 4096)]
    if vocab:
        # Arrays before the wanted key must be skipped, as real tokenizers often are.
        kvs.append(_str("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, vocab)
                   + b"".join(_str(f"tok{i}") for i in range(vocab)))
        kvs.append(_str("tokenizer.ggml.scores") + struct.pack("<IIQ", 9, 6, vocab)
                   + struct.pack(f"<{vocab}f", *range(vocab)))
    if file_type is not None:
        kvs.append(_str("general.file_type") + struct.pack("<I", 4) + struct.pack("<I", file_type))
    return b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs)) + b"".join(kvs) + tail


def write_gguf(path: Path, file_type: int | None = Q4_K_M, **kw) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gguf_bytes(file_type, **kw))
    return path


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """HOME in tmp_path, every tool's variable unset, Ollama's service folder out of reach."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("OLLAMA_MODELS", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME",
                 "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "LLM_USER_PATH", "TRAG_TUI_MODEL_DIR",
                 "TRAG_TUI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(model_files, "OLLAMA_SERVICE_MODELS", tmp_path / "no-service")
    return home


def found(**kw) -> dict[str, model_files.ModelFile]:
    return {m.name: m for m in find_models(**kw)}


# -- Ollama ---------------------------------------------------------------------------------


def ollama_pull(models: Path, name: str, data: bytes, *, registry="registry.ollama.ai",
                namespace="library", media_type="application/vnd.ollama.image.model") -> Path:
    """Lay a model out as `ollama pull` does: a manifest naming a sha256 blob."""
    model, tag = name.split(":")
    digest = hashlib.sha256(data).hexdigest()
    blob = models / "blobs" / f"sha256-{digest}"
    blob.parent.mkdir(parents=True, exist_ok=True)
    blob.write_bytes(data)
    template = b"{{ .Prompt }}"
    (models / "blobs" / f"sha256-{hashlib.sha256(template).hexdigest()}").write_bytes(template)
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
        "config": {"mediaType": "application/vnd.docker.container.image.v1+json",
                   "digest": "sha256:" + "0" * 64, "size": 2},
        "layers": [
            {"mediaType": media_type, "digest": f"sha256:{digest}", "size": len(data)},
            {"mediaType": "application/vnd.ollama.image.template",
             "digest": "sha256:" + hashlib.sha256(template).hexdigest(), "size": len(template)},
        ],
    }
    path = models / "manifests" / registry / namespace / model / tag
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest))
    return blob


def test_ollama_models_are_listed_under_their_ollama_names(home):
    store = home / ".ollama" / "models"
    blob = ollama_pull(store, "llama3.2:latest", gguf_bytes(Q4_K_M, vocab=50))
    ollama_pull(store, "qwen2.5:0.5b", gguf_bytes(Q8_0, arch="qwen2"))
    ollama_pull(store, "Llama-3.2-1B-Instruct-GGUF:Q6_K", gguf_bytes(Q6_K),
                registry="hf.co", namespace="bartowski")
    ollama_pull(store, "mymodel:v1", gguf_bytes(F16), namespace="someone")
    models = found(bundled=False)
    assert set(models) == {"llama3.2:latest", "qwen2.5:0.5b", "someone/mymodel:v1",
                           "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q6_K"}
    llama = models["llama3.2:latest"]
    assert llama.path == blob and llama.source == "ollama"
    assert llama.quantization == "Q4_K_M" and llama.architecture == "llama"
    assert llama.size == blob.stat().st_size
    assert models["qwen2.5:0.5b"].quantization == "Q8_0"
    assert models["someone/mymodel:v1"].quantization == "F16"


def test_ollama_models_folder_follows_OLLAMA_MODELS(home, tmp_path, monkeypatch):
    ollama_pull(home / ".ollama" / "models", "ignored:latest", gguf_bytes())
    ollama_pull(tmp_path / "elsewhere", "phi3:mini", gguf_bytes())
    monkeypatch.setenv("OLLAMA_MODELS", str(tmp_path / "elsewhere"))
    assert set(found(bundled=False)) == {"phi3:mini"}


def test_broken_ollama_manifests_are_skipped(home):
    store = home / ".ollama" / "models"
    ollama_pull(store, "good:latest", gguf_bytes())
    blob = ollama_pull(store, "gone:latest", gguf_bytes(Q8_0))
    blob.unlink()  # a blob deleted by hand
    ollama_pull(store, "notgguf:latest", b"safetensors, not a GGUF file at all")
    ollama_pull(store, "adapter:latest", gguf_bytes(), media_type="application/vnd.ollama.image.adapter")
    bad = store / "manifests" / "registry.ollama.ai" / "library" / "broken" / "latest"
    bad.parent.mkdir(parents=True)
    bad.write_text("{not json")
    assert set(found(bundled=False)) == {"good:latest"}


# -- LM Studio ------------------------------------------------------------------------------


def test_lmstudio_models_two_levels_down(home):
    models = home / ".lmstudio" / "models"
    write_gguf(models / "lmstudio-community" / "Qwen2.5-1.5B-Instruct-GGUF"
               / "Qwen2.5-1.5B-Instruct-Q4_K_M.gguf")
    write_gguf(models / "lmstudio-community" / "gemma-3-4b-it-GGUF" / "mmproj-model-f16.gguf",
               F16, arch="clip")  # a vision projector, not a chat model
    write_gguf(models / "loose.gguf")  # LM Studio itself ignores files at the top
    write_gguf(home / ".cache" / "lm-studio" / "models" / "TheBloke" / "Mistral-7B-GGUF"
               / "mistral-7b.Q5_K_M.gguf", file_type=None)  # header without a file type
    got = found(bundled=False)
    assert set(got) == {"lmstudio-community/Qwen2.5-1.5B-Instruct-GGUF/Qwen2.5-1.5B-Instruct-Q4_K_M.gguf",
                        "TheBloke/Mistral-7B-GGUF/mistral-7b.Q5_K_M.gguf"}
    assert got["TheBloke/Mistral-7B-GGUF/mistral-7b.Q5_K_M.gguf"].quantization == "Q5_K_M"
    assert {m.source for m in got.values()} == {"lmstudio"}


def test_lmstudio_moved_home_and_custom_models_folder(home, tmp_path):
    lms_home = tmp_path / "big-disk" / ".lmstudio"
    (home / ".lmstudio-home-pointer").write_text(str(lms_home))
    custom = tmp_path / "big-disk" / "gguf"
    lms_home.mkdir(parents=True)
    (lms_home / "settings.json").write_text(json.dumps({"downloadsFolder": str(custom)}))
    write_gguf(custom / "pub" / "repo" / "a-Q8_0.gguf", Q8_0)
    write_gguf(lms_home / "models" / "pub" / "repo2" / "b.gguf")
    assert set(found(bundled=False)) == {"pub/repo/a-Q8_0.gguf", "pub/repo2/b.gguf"}


# -- the Hugging Face hub cache -------------------------------------------------------------


def hf_download(cache: Path, repo_id: str, filename: str, data: bytes, revision: str,
                *, main: bool = True) -> Path:
    """Lay a file out as huggingface_hub does: a blob, and a snapshot symlink to it."""
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    digest = hashlib.sha256(data).hexdigest()
    blob = repo / "blobs" / digest
    blob.parent.mkdir(parents=True, exist_ok=True)
    blob.write_bytes(data)
    link = repo / "snapshots" / revision / filename
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(os.path.relpath(blob, link.parent))
    if main:
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / "main").write_text(revision)
    return link


def test_huggingface_cache_snapshots(home):
    cache = home / ".cache" / "huggingface" / "hub"
    old = hf_download(cache, "bartowski/Llama-3.2-3B-Instruct-GGUF",
                      "Llama-3.2-3B-Instruct-Q4_K_M.gguf", gguf_bytes(Q4_K_M) + b"old", "a" * 40)
    new = hf_download(cache, "bartowski/Llama-3.2-3B-Instruct-GGUF",
                      "Llama-3.2-3B-Instruct-Q4_K_M.gguf", gguf_bytes(Q4_K_M) + b"new!", "b" * 40)
    os.utime(old.parent, (1e9, 1e9))  # the older revision is also the older folder
    for part in (1, 2):
        hf_download(cache, "unsloth/Big-GGUF", f"Q8_0/Big-Q8_0-0000{part}-of-00002.gguf",
                    gguf_bytes(Q8_0) if part == 1 else b"\0" * 1000, "c" * 40)
    (cache / "models--sentence-transformers--all-MiniLM-L6-v2" / "snapshots" / ("d" * 40)).mkdir(
        parents=True)  # a repository without GGUF files
    got = found(bundled=False)
    assert set(got) == {"bartowski/Llama-3.2-3B-Instruct-GGUF/Llama-3.2-3B-Instruct-Q4_K_M.gguf",
                        "unsloth/Big-GGUF/Q8_0/Big-Q8_0-00001-of-00002.gguf"}
    llama = got["bartowski/Llama-3.2-3B-Instruct-GGUF/Llama-3.2-3B-Instruct-Q4_K_M.gguf"]
    assert llama.path == new and llama.source == "huggingface"  # the revision refs/main names
    assert llama.size == new.stat().st_size
    big = got["unsloth/Big-GGUF/Q8_0/Big-Q8_0-00001-of-00002.gguf"]
    assert big.size == len(gguf_bytes(Q8_0)) + 1000 and big.quantization == "Q8_0"


@pytest.mark.parametrize("variable, hub", [("HF_HUB_CACHE", "x"), ("HUGGINGFACE_HUB_CACHE", "x"),
                                           ("HF_HOME", "x/hub"), ("XDG_CACHE_HOME", "x/huggingface/hub")])
def test_huggingface_cache_location_follows_its_variables(home, tmp_path, monkeypatch, variable, hub):
    monkeypatch.setenv(variable, str(tmp_path / "x"))
    hf_download(tmp_path / hub, "org/repo", "m.gguf", gguf_bytes(), "e" * 40)
    assert set(found(bundled=False)) == {"org/repo/m.gguf"}


# -- llm-gguf and the user's own folders ----------------------------------------------------


def test_llm_gguf_registered_and_downloaded_models(home, tmp_path):
    user = home / ".config" / "io.datasette.llm"
    mine = write_gguf(tmp_path / "downloads" / "phi-3-mini-q4.gguf")
    write_gguf(user / "gguf" / "models" / "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf")
    (user / "gguf" / "models.json").write_text(json.dumps({
        "phi-3-mini": {"path": str(mine), "aliases": ["phi3"]},
        "vanished": {"path": str(tmp_path / "deleted.gguf"), "aliases": []},
    }))
    got = found(bundled=False)
    assert set(got) == {"gguf/phi-3-mini", "gguf/Meta-Llama-3.1-8B-Instruct-Q4_K_M"}
    assert got["gguf/phi-3-mini"].aliases == ("phi3",) and got["gguf/phi-3-mini"].path == mine
    assert select("phi3", list(got.values())).path == mine


def test_llm_user_dir_follows_LLM_USER_PATH_and_XDG_CONFIG_HOME(home, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    write_gguf(tmp_path / "cfg" / "io.datasette.llm" / "gguf" / "models" / "a.gguf")
    assert set(found(bundled=False)) == {"gguf/a"}
    monkeypatch.setenv("LLM_USER_PATH", str(tmp_path / "llm"))
    write_gguf(tmp_path / "llm" / "gguf" / "models" / "b.gguf")
    assert set(found(bundled=False)) == {"gguf/b"}


def test_model_dir_setting_takes_several_folders(home, tmp_path, monkeypatch):
    write_gguf(tmp_path / "one" / "deep" / "x-IQ4_XS.gguf", file_type=None)
    write_gguf(tmp_path / "two" / "y.gguf", Q8_0)
    (tmp_path / "two" / "notes.txt").write_text("not a model")
    (tmp_path / "two" / "fake.gguf").write_text("not a GGUF file")
    monkeypatch.setenv("TRAG_TUI_MODEL_DIR", f"{tmp_path / 'one'}{os.pathsep}{tmp_path / 'two'}")
    settings = Settings.load()
    got = found(model_dir=settings.model_dir, bundled=False)
    assert set(got) == {"deep/x-IQ4_XS.gguf", "y.gguf"}
    assert got["deep/x-IQ4_XS.gguf"].quantization == "IQ4_XS" and got["y.gguf"].source == "folder"


def test_a_file_found_twice_is_listed_once_under_its_tool_name(home, monkeypatch):
    models = home / ".lmstudio" / "models"
    write_gguf(models / "pub" / "repo" / "m.gguf")
    monkeypatch.setenv("TRAG_TUI_MODEL_DIR", str(models))
    got = find_models(model_dir=os.environ["TRAG_TUI_MODEL_DIR"], bundled=False)
    assert [(m.name, m.source) for m in got] == [("pub/repo/m.gguf", "lmstudio")]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="root reads every folder, so none is unreadable")
def test_unreadable_folders_are_skipped(home):
    store = home / ".ollama" / "models"
    ollama_pull(store, "ok:latest", gguf_bytes())
    locked = home / ".lmstudio" / "models"
    write_gguf(locked / "pub" / "repo" / "m.gguf")
    locked.chmod(0)
    try:
        assert set(found(bundled=False)) == {"ok:latest"}
    finally:
        locked.chmod(0o755)


def test_folders_that_fail_to_open_are_skipped(home, monkeypatch):
    # The same as above for any user, root included: the folder refuses to be listed.
    store = home / ".ollama" / "models"
    ollama_pull(store, "ok:latest", gguf_bytes())
    ollama_pull(store, "hidden:latest", gguf_bytes(), namespace="private")
    write_gguf(home / ".lmstudio" / "models" / "pub" / "repo" / "m.gguf")
    refused = {home / ".lmstudio" / "models", store / "manifests" / "registry.ollama.ai" / "private"}
    real_scandir = os.scandir

    def scandir(path):
        if Path(path) in refused:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(model_files.os, "scandir", scandir)
    assert set(found(bundled=False)) == {"ok:latest"}


def test_nothing_anywhere_gives_only_the_bundled_model(home):
    got = find_models()
    assert [m.name for m in got] == [BUNDLED_NAME]
    bundled = got[0]
    assert bundled.source == "bundled" and bundled.quantization == "Q4_1"
    assert bundled.architecture == "llama" and bundled.size > 50_000_000
    assert read_metadata(bundled.path)["general.file_type"] == 3  # Q4_1 from the header itself


def test_bundled_model_is_listed_first(home):
    ollama_pull(home / ".ollama" / "models", "aaa:latest", gguf_bytes())
    assert [m.name for m in find_models()] == [BUNDLED_NAME, "aaa:latest"]


# -- the header -----------------------------------------------------------------------------


def test_header_reader_skips_arrays_to_reach_the_file_type(tmp_path):
    path = write_gguf(tmp_path / "m.gguf", Q6_K, vocab=2000)
    meta = read_metadata(path)
    assert meta == {"general.file_type": Q6_K, "general.architecture": "llama"}


def test_header_reader_stops_at_its_budget(tmp_path):
    path = write_gguf(tmp_path / "m-Q5_0.gguf", Q6_K, vocab=2000)
    assert read_metadata(path, budget=1000) == {"general.architecture": "llama"}


def test_damaged_header_falls_back_to_the_file_name(tmp_path):
    data = gguf_bytes(Q8_0)
    path = tmp_path / "model.Q3_K_S.gguf"
    path.write_bytes(data[:40])  # cut inside the first key/value
    assert read_metadata(path) == {}
    assert model_files.describe_file(path, path.name, "folder").quantization == "Q3_K_S"
    (tmp_path / "zip.gguf").write_bytes(b"PK\x03\x04")
    assert read_metadata(tmp_path / "zip.gguf") is None
    assert read_metadata(tmp_path / "missing.gguf") is None


@pytest.mark.parametrize("name, quant", [
    ("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "Q4_K_M"),
    ("llama-3.2-1b-instruct-q4_k_m.gguf", "Q4_K_M"),
    ("SmolLM2-135M-Instruct.Q4_1.gguf", "Q4_1"),
    ("qwen2.5-7b-instruct-iq3_xxs.gguf", "IQ3_XXS"),
    ("gemma-2-9b-it-Q6_K_L.gguf", "Q6_K_L"),
    ("Phi-3-mini-4k-instruct-fp16.gguf", "F16"),
    ("model-bf16.gguf", "BF16"),
    ("gpt-oss-20b-MXFP4.gguf", "MXFP4"),
    ("mistral-7b-instruct.gguf", None),
    ("Q4_K_M/Big-Q4_K_M-00001-of-00002.gguf", "Q4_K_M"),
])
def test_quantization_from_file_names(name, quant):
    assert quantization_from_name(name) == quant


def test_file_type_table_matches_llama_cpp():
    low = pytest.importorskip("llama_cpp.llama_cpp")
    constants = {name[len("LLAMA_FTYPE_"):]: value for name, value in vars(low).items()
                 if name.startswith("LLAMA_FTYPE_") and name != "LLAMA_FTYPE_GUESSED"}
    assert len(constants) > 25
    for name, value in constants.items():
        expected = name.removeprefix("MOSTLY_").removeprefix("ALL_")
        assert FILE_TYPES.get(value) == expected, (name, value)


# -- choosing by name -----------------------------------------------------------------------


@pytest.fixture
def zoo(home, tmp_path) -> list[model_files.ModelFile]:
    store = home / ".ollama" / "models"
    ollama_pull(store, "llama3.2:latest", gguf_bytes())
    ollama_pull(store, "llama3.2:1b", gguf_bytes(Q8_0))
    ollama_pull(store, "qwen2.5:0.5b", gguf_bytes(Q6_K))
    write_gguf(home / ".lmstudio" / "models" / "lmstudio-community" / "Qwen2.5-7B-Instruct-GGUF"
               / "Qwen2.5-7B-Instruct-Q4_K_M.gguf")
    write_gguf(home / ".lmstudio" / "models" / "bartowski" / "Mistral-Nemo-GGUF"
               / "Mistral-Nemo-Q6_K.gguf", Q6_K)
    return find_models()


def test_select_exact_then_case_then_latest_then_part(zoo):
    def pick(q):
        return select(q, zoo).name

    assert pick("llama3.2:1b") == "llama3.2:1b"
    assert pick("LLAMA3.2:1B") == "llama3.2:1b"
    assert pick("llama3.2") == "llama3.2:latest"  # Ollama's own rule for a missing tag
    assert pick("qwen2.5:") == "qwen2.5:0.5b"  # a part of one name only
    assert pick("nemo") == "bartowski/Mistral-Nemo-GGUF/Mistral-Nemo-Q6_K.gguf"  # a unique part
    assert pick("smollm2") == BUNDLED_NAME
    assert pick("bundled") == BUNDLED_NAME


def test_ambiguous_name_lists_the_candidates_on_one_line(zoo):
    with pytest.raises(GenerationError) as err:
        select("qwen", zoo)
    message = str(err.value)
    assert "\n" not in message and "matches 2 models" in message
    assert "qwen2.5:0.5b" in message and "Qwen2.5-7B-Instruct-Q4_K_M.gguf" in message


def test_unknown_name_suggests_close_matches(zoo):
    with pytest.raises(GenerationError) as err:
        select("llama3.3:1b", zoo)
    assert "no model file or model named 'llama3.3:1b'" in str(err.value)
    assert "close matches: llama3.2:1b" in str(err.value)
    with pytest.raises(GenerationError) as err:
        select("zzzzzz", zoo)
    assert "trag-tui models" in str(err.value)


def test_model_setting_takes_a_name_or_a_path(zoo, home, tmp_path):
    blob = next(m.path for m in zoo if m.name == "llama3.2:1b")
    assert model_path(Settings(model="llama3.2:1b")) == blob
    own = write_gguf(tmp_path / "own.gguf")
    assert model_path(Settings(model=str(own))) == own
    with pytest.raises(GenerationError, match="model file not found: .*absent.gguf"):
        model_path(Settings(model=str(tmp_path / "absent.gguf")))
    with pytest.raises(GenerationError, match="matches 2 models"):
        model_path(Settings(model="qwen"))


def test_model_dir_from_settings_reaches_model_path(home, tmp_path):
    write_gguf(tmp_path / "mine" / "tiny-Q8_0.gguf", Q8_0)
    settings = Settings(model="tiny", model_dir=str(tmp_path / "mine"))
    assert model_path(settings) == tmp_path / "mine" / "tiny-Q8_0.gguf"
    assert resolve("tiny", str(tmp_path / "mine")) == tmp_path / "mine" / "tiny-Q8_0.gguf"


def test_identify_names_the_model_that_answers(zoo, tmp_path):
    blob = next(m.path for m in zoo if m.name == "qwen2.5:0.5b")
    assert identify(blob).label == "qwen2.5:0.5b (Q6_K, ollama)"
    loose = write_gguf(tmp_path / "loose-Q8_0.gguf", Q8_0)
    assert identify(loose).label == "loose-Q8_0.gguf (Q8_0, file)"


def test_default_places_follow_the_home_folder(home):
    places = default_places()
    assert places.ollama[0] == home / ".ollama" / "models"
    assert home / ".lmstudio" / "models" in places.lmstudio
    assert places.huggingface == home / ".cache" / "huggingface" / "hub"


# -- the command line -----------------------------------------------------------------------


def test_models_command_lists_every_source(zoo, tmp_path, monkeypatch):
    r = CliRunner().invoke(cli, ["models", "--json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    assert rows[0]["name"] == BUNDLED_NAME and rows[0]["selected"] is True
    assert {row["source"] for row in rows} == {"bundled", "ollama", "lmstudio"}
    llama = next(row for row in rows if row["name"] == "llama3.2:latest")
    assert llama["quantization"] == "Q4_K_M" and llama["size"] == len(gguf_bytes())
    assert Path(llama["path"]).name.startswith("sha256-")
    r = CliRunner().invoke(cli, ["models"])
    assert r.exit_code == 0
    lines = r.output.splitlines()
    assert lines[0].split() == ["NAME", "SIZE", "QUANT", "SOURCE", "PATH"]
    assert any(line.startswith("*") and BUNDLED_NAME in line for line in lines)
    assert any("qwen2.5:0.5b" in line and "Q6_K" in line and "ollama" in line for line in lines)


def test_models_command_marks_the_model_chosen_by_name(zoo, monkeypatch):
    monkeypatch.setenv("TRAG_TUI_MODEL", "llama3.2")
    rows = json.loads(CliRunner().invoke(cli, ["models", "--json"]).output)
    assert [row["name"] for row in rows if row["selected"]] == ["llama3.2:latest"]


def test_models_command_says_where_it_looked(home):
    r = CliRunner().invoke(cli, ["models"])  # stderr is part of `output` here
    assert r.exit_code == 0
    assert "No other GGUF files found; looked in: ollama " in r.output
    assert str(home / ".lmstudio" / "models") in r.output


def test_ask_with_an_unknown_model_name_is_one_clear_line(home, tmp_path, monkeypatch):
    monkeypatch.setenv("TRAG_TUI_EMBEDDER", "hash")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("---\ndate: 2019-05-01\ntitle: A\n---\nInflation was 2 per cent.")
    db = str(tmp_path / "t.db")
    assert CliRunner().invoke(cli, ["-d", db, "index", str(docs)]).exit_code == 0
    r = CliRunner().invoke(cli, ["-d", db, "ask", "What was inflation?", "--model", "no-such-model"])
    assert r.exit_code == 1, r.output
    assert "no model file or model named 'no-such-model'" in r.output
    assert "Traceback" not in r.output


# -- a real model, found and loaded by name -------------------------------------------------


@pytest.mark.real_models
def test_a_real_model_pulled_into_ollama_is_loaded_by_name(home):
    """The bundled SmolLM2, stored as `ollama pull` stores it, answers under its Ollama name."""
    from trag_tui.models.files import bundled_model_path
    from trag_tui.models.generation import load_generator

    data = bundled_model_path().read_bytes()
    blob = ollama_pull(home / ".ollama" / "models", "smollm2:135m", data)
    listed = {m.name: m for m in find_models()}["smollm2:135m"]
    assert listed.quantization == "Q4_1" and listed.size == len(data)
    generator = load_generator(Settings(model="smollm2:", n_ctx=512), shared=False)
    try:
        assert generator.path == blob
        pieces = list(generator.stream([{"role": "user", "content": "Say hello."}],
                                       max_tokens=8, temperature=0.0))
        assert "".join(pieces).strip()
    finally:
        generator.close()
