"""The stored conversations beside the chat, in the manner of elia: open one, rename it,
delete it, or start a new one, without a dialog in the way.

It shows what the app gives it and posts what the user chose; the app, which owns the history
file, does the rest. Its keys are not letters, because letters typed anywhere start a question.
"""
from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ..history import ConversationInfo


@dataclass
class SidebarChose(Message):
    """The user chose to `action` ("open", "rename", "delete") a conversation, or "new"."""

    action: str
    conversation: str = ""


class ConversationSidebar(Vertical):
    """The list of stored conversations, newest first, the current one marked."""

    BINDINGS = [
        # Not in the footer, which keeps the main keys: the sidebar's own line names these.
        Binding("f2", "choose('rename')", "Rename", show=False),
        Binding("delete", "choose('delete')", "Delete", show=False),
        Binding("insert", "new", "New", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.conversations: list[ConversationInfo] = []
        self.current = ""

    def compose(self) -> ComposeResult:
        yield Static("Enter opens · F2 renames · Del deletes · Ctrl+N new", classes="hint",
                     markup=False)
        yield OptionList(id="chat-list")

    def on_mount(self) -> None:
        self.border_title = "Conversations"

    def show(self, conversations: list[ConversationInfo], current: str) -> None:
        """List these conversations, `current` marked and highlighted."""
        self.conversations, self.current = list(conversations), current
        options = self.query_one(OptionList)
        options.clear_options()
        if not conversations:
            options.add_option(Option("No stored conversations yet.", disabled=True))
            return
        options.add_options([Option(_prompt(c, c.id == current), id=c.id)
                             for c in conversations])
        ids = [c.id for c in conversations]
        options.highlighted = ids.index(current) if current in ids else 0

    def _highlighted(self) -> str:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return ""
        return options.get_option_at_index(options.highlighted).id or ""

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(SidebarChose("open", event.option.id))

    def action_choose(self, action: str) -> None:
        """F2 or Delete on the highlighted conversation."""
        conversation = self._highlighted()
        if conversation:
            self.post_message(SidebarChose(action, conversation))

    def action_new(self) -> None:
        """Insert: a new conversation."""
        self.post_message(SidebarChose("new"))


def _prompt(info: ConversationInfo, current: bool) -> Text:
    text = Text()
    text.append(("▶ " if current else "  ") + info.title, style="bold" if current else "")
    text.append(f"\n  {info.started.replace('T', ' ')[:16]} · {info.turns} "
                f"question{'s' if info.turns != 1 else ''}", style="dim")
    return text
