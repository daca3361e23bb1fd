"""The first start without an index: offer to build one from the bundled sample corpus.

Without this a new user meets an error about a missing file; with it, the app answers
questions within a minute of installing it.
"""
from __future__ import annotations

from importlib import resources
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static


def sample_corpus() -> Path | None:
    """The sample corpus the package ships (`trag_tui.sample_corpus`), or None when this
    install has none."""
    try:
        marker = resources.files("trag_tui.sample_corpus").joinpath("questions.jsonl")
        folder = Path(str(marker)).parent
    except (ModuleNotFoundError, TypeError):
        # An editable install's finder does not map a data-only subpackage: the checkout has
        # the corpus beside the package.
        import trag_tui

        folder = Path(trag_tui.__file__).resolve().parents[1] / "sample_corpus"
    return folder if (folder / "questions.jsonl").is_file() else None


# Files beside the documents that describe or evaluate the corpus and are not part of it.
_NOT_DOCUMENTS = ("README", "LICENSE", "QUESTIONS")


def corpus_paths(folder: Path) -> list[Path]:
    """What to index of a corpus folder: everything except its own README, licence and
    evaluation questions, which would otherwise be answered from as if they were documents."""
    return [p for p in sorted(folder.iterdir())
            if not p.name.startswith(".")
            and not (p.is_file() and p.name.upper().startswith(_NOT_DOCUMENTS))]


def count_files(paths: list[Path]) -> int:
    """How many files the paths hold (for the offer's wording)."""
    return sum(1 if p.is_file() else sum(1 for f in p.rglob("*") if f.is_file()) for p in paths)


class FirstRunScreen(ModalScreen[bool]):
    """Dismisses with True when the user wants the sample index built."""

    BINDINGS = [Binding("escape", "later", "Not now")]

    def __init__(self, db: Path, corpus: Path | None) -> None:
        super().__init__()
        self.db, self.corpus = db, corpus

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="first-run"):
            yield Label("No index yet", classes="dialog-title")
            if self.corpus is not None:
                n = count_files(corpus_paths(self.corpus))
                text = (f"There is no index at {self.db}.\n\nBuild one now from the bundled sample "
                        f"corpus ({n} files of dated parliamentary records)? It takes a minute the "
                        "first time; the app is usable as soon as it finishes.\n\nFor your own "
                        "documents: Ctrl+P → “Index a folder”, or `trag-tui index FOLDER`.")
            else:
                text = (f"There is no index at {self.db}, and this installation has no bundled "
                        "sample corpus to build one from.\n\nIndex your own documents with "
                        "Ctrl+P → “Index a folder”, or run `trag-tui index FOLDER`.")
            yield Static(text, markup=False, id="first-run-text")
            with Horizontal(classes="buttons"):
                if self.corpus is not None:
                    yield Button("Build the sample index", variant="primary", id="build")
                yield Button("Not now", id="later")

    def on_mount(self) -> None:
        self.query_one(Button).focus()

    @on(Button.Pressed, "#build")
    def build(self) -> None:
        """Accept the offer."""
        self.dismiss(True)

    @on(Button.Pressed, "#later")
    def action_later(self) -> None:
        """Decline; the app stays open without an index."""
        self.dismiss(False)
