"""The app's entries in the command palette (Ctrl+P).

Actions that need a path or happen rarely live here instead of on a key: the palette lists them
with a line of help each, so they can be found without reading the documentation.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from .app import TragApp


class TragCommands(Provider):
    """Open an index or a conversation, index a folder, copy, retry, export, overrides, help."""

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        app = cast("TragApp", self.app)
        return [
            ("Open an index file…", "Switch to another trag-tui index (.db) file",
             app.action_open_index),
            ("Index a folder…", "Add a folder of documents to the open index, with progress",
             app.action_index_folder),
            ("Open conversation…", "The stored conversations, newest first, searchable",
             app.action_open_conversation),
            ("Copy the selected answer", "The answer and its sources to the clipboard (Ctrl+Y)",
             app.action_copy_answer),
            ("Retry the selected answer with other overrides…",
             "Ask its question again with another as-of date, mode or k (Ctrl+R)",
             app.action_retry_answer),
            ("Export the conversation as Markdown…", "Write the questions and answers to a file",
             app.action_export),
            ("Toggle the explain view", "Show scores per source and how the question was read",
             app.action_toggle_explain),
            ("Overrides: as-of date, mode, decay, k…", "Change how the next answers retrieve",
             app.action_edit_overrides),
            ("Clear overrides", "Back to what each question's own words ask for",
             app.action_clear_overrides),
            ("New conversation", "Start over with an empty conversation (Ctrl+N)",
             app.action_new_conversation),
            ("Build the sample index", "Index the bundled sample corpus into the open index",
             app.action_build_sample),
            ("Keys and commands", "The help screen (F1)", app.action_help),
        ]

    async def discover(self) -> Hits:
        """Every command, in a fixed order, before anything is typed."""
        for name, help_text, callback in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        """Commands whose name fuzzily matches what was typed."""
        matcher = self.matcher(query)
        for name, help_text, callback in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, text=name, help=help_text)
