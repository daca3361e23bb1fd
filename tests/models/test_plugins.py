"""Models as plug-ins: built-ins register like any package, others arrive by entry point."""
from __future__ import annotations

import json
from importlib.metadata import EntryPoint

import pytest
from click.testing import CliRunner

from tests.fakes import ScriptedGenerator
from trag_tui.cli import cli
from trag_tui.models import registry as plugins
from trag_tui.models.embedding import HashEmbedder, embedder_name, load_embedder
from trag_tui.models.generation import load_generator
from trag_tui.settings import Settings


def register_tiny(register) -> None:
    register("tiny", lambda choice, settings: HashEmbedder(16))


def register_clash(register) -> None:
    register("hash", lambda choice, settings: HashEmbedder(8))


@pytest.fixture
def installed(monkeypatch):
    """Entry points as installed packages would declare them (real EntryPoint objects)."""
    def use(*eps: EntryPoint) -> None:
        monkeypatch.setattr(plugins, "entry_points",
                            lambda group: [ep for ep in eps if ep.group == group])
        plugins.embedders.cache_clear()
        plugins.generators.cache_clear()

    yield use
    plugins.embedders.cache_clear()
    plugins.generators.cache_clear()


def test_the_built_ins_register_themselves(installed):
    installed()
    assert [p.name for p in plugins.embedders().plugins()] == ["all-MiniLM-L6-v2", "hash"]
    assert [p.name for p in plugins.generators().plugins()] == ["llama"]
    assert all(p.provider == "built-in" for p in plugins.embedders().plugins())


def test_an_installed_generator_answers_and_is_still_checked(installed, tmp_path):
    installed(EntryPoint("echo", "tests.fakes:register_echo", plugins.GENERATORS))
    gen = load_generator(Settings(model="echo:Made up [1]."))
    assert isinstance(gen, ScriptedGenerator)
    assert "".join(gen.stream([], max_tokens=5)) == "Made up [1]."
    assert plugins.generators().find("echo:anything").provider == "tests.fakes:register_echo"


def test_an_installed_embedder_is_found_by_name_and_recorded_as_it(installed):
    installed(EntryPoint("tiny", "tests.models.test_plugins:register_tiny", plugins.EMBEDDERS))
    assert embedder_name("tiny") == "tiny"
    assert load_embedder("tiny").dim == 16
    assert load_embedder("hash-32").dim == 32  # the built-in is still there


def test_a_broken_or_clashing_plugin_is_reported_and_the_rest_still_work(installed):
    installed(EntryPoint("gone", "tests.no_such_module:register", plugins.EMBEDDERS),
              EntryPoint("clash", "tests.models.test_plugins:register_clash", plugins.EMBEDDERS))
    failures = plugins.embedders().failures
    assert set(failures) == {"gone", "clash"}
    assert "ModuleNotFoundError" in failures["gone"] and "already provides" in failures["clash"]
    assert load_embedder("hash-8").dim == 8
    result = CliRunner().invoke(cli, ["plugins", "--json"])
    assert result.exit_code == 0, result.output
    listed = json.loads(result.output)
    assert {"kind": "embedder", "name": "hash", "provider": "built-in"} in listed["plugins"]
    assert {f["entry_point"] for f in listed["failures"]} == {"gone", "clash"}


def test_llama_names_the_bundled_or_a_given_gguf_file(installed, tmp_path):
    installed()
    bad = tmp_path / "x.gguf"
    bad.write_bytes(b"nope")
    with pytest.raises(Exception, match="not a GGUF model file"):
        load_generator(Settings(model=f"llama:{bad}"))
