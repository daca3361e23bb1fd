"""Where models come from: a registry, so another package can add an embedder or a generator.

The pattern is llm's, which people in this ecosystem know: the built-ins register themselves
like any plug-in, and an installed package adds its own through an entry point in the group
`trag_tui.embedders` or `trag_tui.generators`. The entry point names a function that receives
`register(name, factory)`:

    [project.entry-points."trag_tui.generators"]
    remote = "my_package:register_generators"

    def register_generators(register):
        register("remote", lambda choice, settings: RemoteGenerator(choice))

A choice (`--model`, `--embedder`, or what an index recorded) goes to the plug-in whose name
it is, or whose name it starts with followed by ":" or "-" ("remote:gpt", "hash-256").
Registries are built on first use, never at import, and a broken plug-in is reported by name
instead of taking the built-ins down with it.
"""
from __future__ import annotations

import functools
import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from ..errors import PluginError

log = logging.getLogger(__name__)

EMBEDDERS = "trag_tui.embedders"
GENERATORS = "trag_tui.generators"




@dataclass(frozen=True)
class Plugin:
    """One registered model kind: its name, what builds it, and which package provided it."""

    name: str
    factory: Callable[..., Any]
    provider: str = "built-in"

    def handles(self, choice: str) -> bool:
        return choice == self.name or choice.startswith((self.name + ":", self.name + "-"))


class Registry:
    """The plug-ins of one entry-point group, built-ins first."""

    def __init__(self, group: str):
        self.group = group
        self._plugins: dict[str, Plugin] = {}
        self.failures: dict[str, str] = {}  # entry point -> why it could not be loaded

    def register(self, name: str, factory: Callable[..., Any], *,
                 provider: str = "built-in") -> None:
        if not isinstance(name, str) or not name.strip() or not callable(factory):
            raise PluginError(f"{provider} registered an unusable {self.group} entry "
                              f"{name!r}: it needs a name and a callable factory")
        if name in self._plugins and self._plugins[name].provider != provider:
            raise PluginError(f"{provider} registers {name!r}, which "
                              f"{self._plugins[name].provider} already provides")
        self._plugins[name] = Plugin(name, factory, provider)

    def load_entry_points(self) -> None:
        for ep in entry_points(group=self.group):
            provider = ep.dist.name if ep.dist is not None else ep.value
            try:
                hook = ep.load()
                hook(functools.partial(self.register, provider=provider))
            except Exception as exc:  # noqa: BLE001 - one bad plug-in must not hide the rest
                self.failures[ep.name] = f"{provider}: {type(exc).__name__}: {exc}"
                log.warning("plug-in %s not loaded: %s", ep.name, self.failures[ep.name])

    def find(self, choice: str) -> Plugin | None:
        """The plug-in for a choice; the longest matching name wins ("a:b" over "a")."""
        matches = [p for p in self._plugins.values() if p.handles(choice)]
        return max(matches, key=lambda p: len(p.name)) if matches else None

    def plugins(self) -> list[Plugin]:
        return sorted(self._plugins.values(), key=lambda p: (p.provider != "built-in", p.name))


# The built-ins are named, not imported: they import this module to register, so importing
# them here would make a loop. Each names a function that receives `register(name, factory)`,
# as an entry point does.
BUILTINS = {
    EMBEDDERS: "trag_tui.models.embedding:register_builtins",
    GENERATORS: "trag_tui.models.generation:register_builtins",
}


def _built(group: str) -> Registry:
    registry = Registry(group)
    module, _, hook = BUILTINS[group].partition(":")
    getattr(importlib.import_module(module), hook)(registry.register)
    registry.load_entry_points()
    return registry


@functools.cache
def embedders() -> Registry:
    """The embedder registry: the bundled MiniLM, the hash embedder, then installed plug-ins."""
    return _built(EMBEDDERS)


@functools.cache
def generators() -> Registry:
    """The generator registry: llama.cpp for GGUF files, then installed plug-ins."""
    return _built(GENERATORS)
