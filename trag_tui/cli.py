"""The `trag-tui` command: argument parsing and printing over the library API, nothing more.

A bare `trag-tui` opens the chat app; every other command is headless and never imports
Textual. Errors reach the user as one line, never a traceback.
"""
from __future__ import annotations

import datetime as dt
import json
import logging
import sys
import time
from pathlib import Path

import click

from . import params
from .errors import IndexFileError, TragError
from .settings import CHOICES, RANGES, Settings
from .text.safe import clean_question, safe, safe_json, safe_line


def _choice(name: str) -> click.Choice:
    """The choices of a setting, as the settings object checks them."""
    return click.Choice(CHOICES[name])


def _settings(ctx: click.Context, **overrides) -> Settings:
    base: Settings = ctx.obj["settings"]
    return base.replace(**overrides)


def _database(command):
    """-d/--database on the command as well as before it, as sqlite-utils and llm have it:
    `trag-tui index ./debates -d debates.db`."""
    def use(ctx: click.Context, param, value: Path | None) -> None:
        if value is not None:
            ctx.obj["settings"] = ctx.obj["settings"].replace(db=value)

    return click.option("-d", "--database", type=click.Path(dir_okay=False, path_type=Path),
                        expose_value=False, callback=use, is_eager=True,
                        help="Index file (default trag.db; env TRAG_TUI_DB).")(command)


def _log_to_stderr(level: int) -> None:
    # A new handler per run: the stream is whatever stderr is now. Without -v only errors
    # show; what a command reports itself (failed files, dropped sentences) is not repeated.
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("trag_tui")
    root.handlers[:] = [handler]
    root.setLevel(level)


def _batch_rows(batch):
    """(line number, row, as-of date) for each non-empty JSON line of a --batch file.

    A line that is not a JSON object, or whose as-of date is not a date, stops the batch with
    one line naming it, as a line that is not JSON does. String fields lose undecodable
    characters (a lone surrogate becomes U+FFFD) here, once.
    """
    from .temporal.calendar import row_day
    from .text.safe import json_object

    for n, line in enumerate(batch, 1):
        if not line.strip():
            continue
        try:
            row = {k: clean_question(v) if isinstance(v, str) else v
                   for k, v in json_object(line).items()}
            when = row_day(row, "as_of", "question_date") or dt.date.today()
        except ValueError as exc:  # InputError is one
            raise click.ClickException(f"line {n}: {exc}") from None
        yield n, row, when


def _row_question(row: dict, *keys: str) -> tuple[str, str | None]:
    """A batch row's question, or why there is none (the row is answered with that error)."""
    text = next((row[k] for k in keys if row.get(k) not in (None, "")), "")
    if not isinstance(text, str):
        return "", f"the question is not text ({type(text).__name__})"
    return text, None if text.strip() else "the question is empty"


def _echo(text: str, **kw) -> None:
    """Print text from documents or files with control characters shown escaped."""
    click.echo(safe(text), **kw)


def _echo_json(data, **kw) -> None:
    """Print JSON with what json.dumps leaves raw (C1, bidi, lone surrogates) escaped."""
    click.echo(safe_json(json.dumps(data, ensure_ascii=False, **kw)))


def _open(settings: Settings, *, create: bool = False):
    from .storage.index import open_index

    idx = open_index(settings.db, settings, create=create)
    if idx.readonly:
        click.echo(f"read-only: searching only ({safe_line(str(idx.path))} or its folder cannot "
                   "be written)", err=True)
    return idx


class _Group(click.Group):
    """Turns the library's errors for the user into one printable line, for every command."""

    def invoke(self, ctx: click.Context):
        from .storage.db import busy, io_failure, is_busy, sqlite3

        try:
            return super().invoke(ctx)
        except click.ClickException as exc:
            # Click's own errors keep their class (usage errors print the usage line too).
            exc.message = safe(exc.message)  # type: ignore[misc]
            raise
        except TragError as exc:
            raise click.ClickException(safe_line(exc.message)) from None
        except sqlite3.DatabaseError as exc:
            what = io_failure(exc)
            if what is not None:
                raise click.ClickException(f"{what}: {exc}") from None
            path = safe_line(str(ctx.obj["settings"].db)) if ctx.obj else "the index file"
            if is_busy(exc):  # another process holds a sound file: not damage
                raise click.ClickException(busy(path).message) from None
            raise click.ClickException(
                f"{path} is damaged ({exc}); `trag-tui doctor {path}` can write a clean copy"
            ) from None
        except OSError as exc:
            what = io_failure(exc)
            if what != "disk full":
                raise
            raise click.ClickException(f"{what}: {safe_line(str(exc))}") from None
        except Exception as exc:  # a Qdrant server that is unreachable or refuses
            from .retrieval.backends.qdrant import failure

            what = failure(exc)
            if what is None:
                raise
            raise click.ClickException(safe_line(what)) from None


@click.group(cls=_Group, invoke_without_command=True)
@click.option("-d", "--database", "db", type=click.Path(dir_okay=False, path_type=Path),
              envvar="TRAG_TUI_DB", help="Index file (default trag.db; env TRAG_TUI_DB).")
@click.option("-v", "--verbose", count=True,
              help="Log what the engine decides on stderr (-v: steps, -vv: details).")
@click.option("--backend", help="Answer from the Qdrant collection this file was pushed to: "
              "qdrant://HOST:PORT/COLLECTION or a local folder (env TRAG_TUI_BACKEND).")
@click.version_option(package_name="trag-tui")
@click.pass_context
def cli(ctx: click.Context, db: Path | None, verbose: int, backend: str | None) -> None:
    """Time-aware question answering over dated documents, in one SQLite file."""
    _log_to_stderr(logging.ERROR if not verbose else logging.INFO if verbose == 1 else
                   logging.DEBUG)
    try:
        settings = Settings.load(db=db, backend=backend)
    except (ValueError, OSError) as exc:
        raise click.ClickException(f"settings: {exc}")
    ctx.obj = {"settings": settings}
    if ctx.invoked_subcommand is None:
        ctx.invoke(tui)


# -- index ----------------------------------------------------------------------------------


class _Bar:
    """A one-line progress bar on stderr (only where stderr is a terminal)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.last = 0.0

    def __call__(self, p) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.last < 0.2 and p.files_done < p.files_total:
            return
        self.last = now
        frac = p.bytes_done / p.bytes_total if p.bytes_total else 1.0
        width = 24
        filled = int(width * min(frac, 1.0))
        elapsed = now - p.started
        eta = elapsed * (1 - frac) / frac if frac > 0.01 else 0
        line = (f"\r[{'#' * filled}{'.' * (width - filled)}] {frac:4.0%} files {p.files_done}/"
                f"{p.files_total} docs {p.documents} chunks {p.chunks_embedded}+{p.chunks_reused} "
                f"reused {p.rate:5.1f}/s eta {int(eta)}s ")
        click.echo(line, nl=False, err=True)

    def close(self) -> None:
        if self.enabled:
            click.echo("", err=True)


@cli.command()
@_database
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--embedder", help="A local sentence-transformers model folder (default: bundled MiniLM).")
@click.option("--default-date", type=params.DAY, help="Date (YYYY-MM-DD) for documents where none is found.")
@click.option("--prune", is_flag=True, help="Remove documents whose files are gone.")
@click.option("--workers", type=params.WORKERS, help="Embedding processes (default 1).")
@click.option("--device", type=_choice("device"), help="Where to embed (default cpu).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.pass_context
def index(ctx, paths, embedder, default_date, prune, workers, device, as_json):
    """Build or update the index from files and folders (XML, JSONL, .txt, .md)."""
    from .indexer import Indexer

    settings = _settings(ctx, embedder=embedder, embed_workers=workers, device=device)
    idx = _open(settings, create=True)
    bar = _Bar(sys.stderr.isatty() and not as_json)
    try:
        indexer = Indexer(idx.conn, idx.path, idx.embedder, settings,
                          default_date=default_date, progress=bar)
        try:
            summary = indexer.run(paths, prune=prune)
        except KeyboardInterrupt:
            bar.close()
            raise click.ClickException("interrupted: what was written is kept; run again to resume")
        except BaseException:
            bar.close()
            raise
        bar.close()
        if as_json:
            _echo_json(summary.to_dict(), indent=2)
        else:
            _print_summary(summary)
        total_docs = summary.documents_added + summary.documents_kept
        if total_docs == 0 and summary.files_failed:
            ctx.exit(1)
    finally:
        idx.close()


def _print_summary(s) -> None:
    click.echo(
        f"{s.files_seen} files: {s.files_indexed} indexed, {s.files_unchanged} unchanged, "
        f"{len(s.files_skipped)} skipped, {len(s.files_failed)} failed")
    click.echo(
        f"documents: {s.documents_added} added, {s.documents_kept} unchanged, "
        f"{s.documents_removed} removed; {s.undated_documents} without a date")
    click.echo(f"chunks: {s.chunks_embedded} embedded, {s.chunks_reused} reused; {s.seconds:.1f}s")
    if s.files_pruned:
        click.echo(f"pruned {s.files_pruned} files that are gone")
    if s.files_moved:
        click.echo(f"moved {len(s.files_moved)} files: their documents were kept, not added again")
    # Names and reasons come from the user's files: one line each, whatever they hold.
    for path, why in s.files_skipped:
        click.echo(f"  skipped {safe_line(path)}: {safe_line(why)}")
    for path, why in s.files_failed:
        click.echo(f"  failed  {safe_line(path)}: {safe_line(why)}")
    for path, note in s.notes[:20]:
        click.echo(f"  note    {safe_line(path)}: {safe_line(note)}")
    if len(s.notes) > 20:
        click.echo(f"  ... and {len(s.notes) - 20} more notes")


# -- stats ----------------------------------------------------------------------------------


@cli.command()
@_database
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def stats(ctx, as_json):
    """Documents, chunks, date range, documents per year, embedding model, file size."""
    from .stats import index_stats, render_stats

    idx = _open(_settings(ctx))
    try:
        data = index_stats(idx)
    finally:
        idx.close()
    if as_json:
        _echo_json(data, indent=2)
    else:
        _echo(render_stats(data))


# -- parse ----------------------------------------------------------------------------------


@cli.command()
@click.argument("question", required=False, type=params.QUESTION)
@click.option("--as-of", type=params.DAY, help="The date the question is asked from (default today).")
@click.option("--batch", type=params.BATCH, help="JSONL with `query` and `as_of` per line.")
@click.option("--json", "as_json", is_flag=True)
def parse(question, as_of, batch, as_json):
    """Show how the time in a question is read: intent, period(s), as-of."""
    from .temporal.question import parse as parse_question

    if batch is not None:
        for _, row, when in _batch_rows(batch):
            text, why = _row_question(row, "query", "question")
            if why:
                out = {"error": why}
            else:
                out = parse_question(text, when).to_dict()
            if "id" in row:
                out = {"id": row["id"], **out}
            _echo_json(out)
        return
    if question is None:
        raise click.UsageError("give a QUESTION or --batch FILE")
    tq = parse_question(question, as_of or dt.date.today())
    d = tq.to_dict()
    if as_json:
        _echo_json(d, indent=2)
        return
    for key in ("intent", "start", "end", "periods", "semantic_query", "as_of", "confidence",
                "expressions", "reason"):
        click.echo(f"{key:15} {safe_line(str(d[key]))}")


# -- search ---------------------------------------------------------------------------------


@cli.command()
@_database
@click.argument("question", required=False, type=params.QUESTION)
@click.option("--as-of", type=params.DAY, help="The date the question is asked from (default today).")
@click.option("-k", "--k", "k", type=params.K, help="Number of hits.")
@click.option("--mode", type=click.Choice(["hard_filter", "decay", "evolution", "comparison", "hybrid"]),
              help="Force a retrieval mode instead of the one the question's time picks.")
@click.option("--decay", type=_choice("decay"))
@click.option("--alpha", type=params.ALPHA, help="Weight of recency against relevance (0..1).")
@click.option("--lambda", "lam", type=params.LAMBDA, help="Rational decay rate per year (>= 0).")
@click.option("--tau", type=params.TAU,
              help="Recency time scale in days, used as given by the current mode and the hybrid "
                   "mode's mild prior (0: from the publication cadence).")
@click.option("--fusion", type=_choice("fusion"))
@click.option("--scope", type=_choice("scope"),
              help="auto (default): keep to the speakers and sources the question names; none: off.")
@click.option("--time", "time_", type=_choice("time"),
              help="Match a period by the question's reading (auto, default), by publication "
                   "date only (said), or also by the periods documents speak of (about).")
@click.option("--expand", help="Modes in which a second pass searches, inside the same period, for "
                                "the named things of the first pass's best hits (comma-separated "
                                "of hybrid, hard_filter, comparison, evolution; none: off, the "
                                "default).")
@click.option("--no-halt", is_flag=True, help="Always return k hits (no early stopping).")
@click.option("--explain", is_flag=True, help="Show every score per hit and why the mode was chosen.")
@click.option("--batch", type=params.BATCH, help="JSONL with id, question, question_date.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def search(ctx, question, as_of, k, mode, decay, alpha, lam, tau, fusion, scope, time_, expand,
           no_halt, explain, batch, as_json):
    """Find dated passages for a question (hybrid BM25 + dense, time-aware)."""
    from .retrieval.modes import Retriever
    from .retrieval.modes import search as run_search

    settings = _settings(ctx, k=k, decay=decay, alpha=alpha, lam=lam, tau=tau, fusion=fusion, scope=scope,
                         time=time_, expand=expand)
    idx = _open(settings)
    try:
        retriever = Retriever(idx, settings)
        if batch is not None:
            for n, row, when in _batch_rows(batch):
                if "question" not in row:
                    raise click.ClickException(f"line {n}: no 'question' field")
                text, why = _row_question(row, "question")
                if why:
                    _echo_json({"id": row.get("id"), "error": why})
                    continue
                res = run_search(idx, text, as_of=when, k=settings.k, mode=mode,
                                 settings=settings, halt=not no_halt, retriever=retriever)
                d = res.to_dict()
                out = {"id": row.get("id"), "intent": d["intent"], "start": d["start"], "end": d["end"],
                       "periods": d["periods"],
                       "hits": [{k2: h[k2] for k2 in ("doc_id", "chunk_id", "date", "score", "group")}
                                for h in d["hits"]]}
                _echo_json(out)
            return
        if not question:
            raise click.UsageError("give a QUESTION or --batch FILE")
        res = run_search(idx, question, as_of=as_of, k=settings.k, mode=mode,
                         settings=settings, halt=not no_halt, retriever=retriever)
        if as_json:
            _echo_json(res.to_dict(explain=explain), indent=2)
        else:
            from .render import render_search
            _echo(render_search(res, explain=explain))
    finally:
        idx.close()


# -- ask ----------------------------------------------------------------------------------


@cli.command()
@_database
@click.argument("question", required=False, type=params.QUESTION)
@click.option("--as-of", type=params.DAY, help="The date the question is asked from (default today).")
@click.option("--model", help="A GGUF file, or a name from `trag-tui models` (default: the bundled SmolLM2-135M).")
@click.option("-k", "--k", "k", type=params.K, help="Number of sources.")
@click.option("--mode", type=click.Choice(["hard_filter", "decay", "evolution", "comparison", "hybrid"]),
              help="Force a retrieval mode.")
@click.option("--max-tokens", type=params.MAX_TOKENS, help="Longest answer in tokens.")
@click.option("--evidence-only", is_flag=True, help="Skip the model: the answer is quoted from the sources.")
@click.option("--scope", type=_choice("scope"),
              help="auto (default): keep to the speakers and sources the question names; none: off.")
@click.option("--time", "time_", type=_choice("time"),
              help="Match a period by the question's reading (auto, default), by publication "
                   "date only (said), or also by the periods documents speak of (about).")
@click.option("--batch", type=params.BATCH,
              help="JSONL with id, question, question_date per line; one JSON answer per line.")
@click.option("--judge", help="Check each source with this model (a name the model registry knows, "
                               "e.g. llama for the bundled one) before answering; off by default.")
@click.option("--judge-seconds", type=click.FloatRange(*RANGES["judge_seconds"]),
              help="The relevance judge's time budget per question (default 20).")
@click.option("--hot", type=_choice("hot"),
              help="A question about the present: the latest sources on it lead the answer "
                   "(default off).")
@click.option("--explain", is_flag=True,
              help="Also show the hot window and the relevance judge's kept and dropped sources.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object: the answer, its claims, what was dropped, the sources.")
@click.pass_context
def ask(ctx, question, as_of, model, k, mode, max_tokens, evidence_only, scope, time_, judge,
        judge_seconds, hot, explain, batch, as_json):
    """Answer a question from the index, streamed, every sentence checked against its dated source."""
    import threading

    from .answering.events import Done, Quoted, Retrieved, Token
    from .answering.pipeline import ask as run_ask
    from .answering.pipeline import sigint_cancels
    from .render import render_answer, render_answer_explain
    from .retrieval.modes import Retriever

    settings = _settings(ctx, model=model, k=k, max_tokens=max_tokens, scope=scope, time=time_,
                         judge=judge, judge_seconds=judge_seconds, hot=hot)
    if batch is None and not question:
        raise click.UsageError("give a QUESTION or --batch FILE")
    idx = _open(settings)
    cancel = threading.Event()
    try:
        retriever = Retriever(idx, settings)
        if batch is not None:
            # One process, the models loaded once: one JSON line per question, in order.
            for n, row, when in _batch_rows(batch):
                text, why = _row_question(row, "question", "query")
                if why:
                    _echo_json({"id": row.get("id"), "error": why})
                    continue
                done = None
                try:
                    for event in run_ask(idx, text, as_of=when, settings=settings, mode=mode,
                                         retriever=retriever, cancel=cancel,
                                         evidence_only=evidence_only):
                        if isinstance(event, Done):
                            done = event
                except TragError as exc:
                    raise click.ClickException(f"line {n}: {exc.message}")
                if done is not None:
                    _echo_json({"id": row.get("id"), **done.to_dict()})
            return
        done, quoted = None, None
        with sigint_cancels(cancel):
            events = run_ask(idx, question, as_of=as_of, settings=settings, mode=mode,
                             retriever=retriever, cancel=cancel, evidence_only=evidence_only)
            for event in events:
                if isinstance(event, Retrieved) and not as_json:
                    res = event.result
                    scope = f"; {res.scope.label()}" if res.scope else ""
                    _echo(safe_line(f"({res.mode}: {res.reason}; as of {res.query.as_of.isoformat()}"
                                    f"{scope})") + "\n", err=True)
                elif isinstance(event, (Quoted, Token)) and not as_json:
                    # The quote first, the moment it is known; the model's checked sentences
                    # as a paragraph beneath it.
                    text, quoted = _streamed(event, quoted)
                    _echo(text, nl=False)
                    sys.stdout.flush()
                elif isinstance(event, Done):
                    done = event
    finally:
        idx.close()
    if done is None:
        raise click.ClickException("no answer was produced")
    if as_json:
        _echo_json(done.to_dict(), indent=2)
        return
    rest = render_answer(done, with_answer=False)
    if explain:
        rest += "\n" + render_answer_explain(done)
    printed = done.answer or done.no_documents or quoted is not None
    _echo("\n\n" + rest if printed else rest, nl=False)


def _streamed(event, quoted: str | None) -> tuple[str, str | None]:
    """The text to print for a Quoted or Token event, and what is known of the quote after it
    (None: no quote yet; "": the quote and then a generated sentence were printed)."""
    from .answering.events import Quoted, paragraph_beneath

    if isinstance(event, Quoted):
        return event.shown, event.shown
    if event.repeat:
        return "", quoted
    if quoted:
        return paragraph_beneath(event.text), ""
    return event.text, quoted


# -- eval ---------------------------------------------------------------------------------


@cli.command(name="eval")
@_database
@click.argument("qa_file", type=params.QA_FILE)
@click.option("-k", "--k", "k", type=params.K, default=5, show_default=True)
@click.option("--category", multiple=True, help="Only questions of this category (repeatable).")
@click.option("--limit", type=click.IntRange(min=1), help="At most this many questions.")
@click.option("--decay", type=_choice("decay"))
@click.option("--fusion", type=_choice("fusion"))
@click.option("--scope", type=_choice("scope"),
              help="auto (default): keep to the speakers and sources a question names; none: off.")
@click.option("--time", "time_", type=_choice("time"),
              help="Match a period by the question's reading (auto, default), by publication "
                   "date only (said), or also by the periods documents speak of (about).")
@click.option("--expand", help="Modes in which a second pass searches, inside the same period, for "
                                "the named things of the first pass's best hits (comma-separated "
                                "of hybrid, hard_filter, comparison, evolution; none: off, the "
                                "default).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def eval_(ctx, qa_file, k, category, limit, decay, fusion, scope, time_, expand, as_json):
    """Recall@k, MRR, temporal precision, leak rate: the engine beside a time-blind baseline."""
    from .evaluation import evaluate, load_qa, render_table

    settings = _settings(ctx, decay=decay, fusion=fusion, scope=scope, time=time_, expand=expand)
    try:
        qas = load_qa(qa_file, category or None, limit)
    except OSError as exc:
        raise click.ClickException(f"cannot read {safe_line(str(qa_file))}: {exc.strerror or exc}")
    idx = _open(settings)
    try:
        report = evaluate(idx, qas, k=k, settings=settings)
    finally:
        idx.close()
    if as_json:
        _echo_json(report, indent=2)
    else:
        _echo(render_table(report))


# -- push -----------------------------------------------------------------------------------


def _chunk_bar(show: bool):
    """A progress callback (chunks done, chunks in all) drawing a one-line bar on stderr."""
    def progress(done: int, total: int) -> None:
        if show:
            filled = int(24 * done / total) if total else 24
            click.echo(f"\r[{'#' * filled}{'.' * (24 - filled)}] {done}/{total} chunks ", nl=False, err=True)

    return progress


@cli.command()
@_database
@click.option("--to", "to", required=True,
              help="qdrant://HOST:PORT/COLLECTION (API key from QDRANT_API_KEY), or a folder (local mode).")
@click.option("--shard-by", type=click.Choice(["auto", "decade", "year"]), default="auto", show_default=True,
              help="Time partition of a new collection (a custom shard key per period on a server).")
@click.option("--batch", type=click.IntRange(min=1), default=256, show_default=True, help="Chunks per request.")
@click.option("--replace", is_flag=True,
              help="Replace what the collection holds (another index's points, a folder that cannot be checked).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def push(ctx, to, shard_by, batch, replace, as_json):
    """Copy the index to a Qdrant collection: vectors as stored, only what changed since the last push."""
    from .retrieval.backends.push import push as push_index
    from .retrieval.backends.qdrant import parse_target
    from .storage.index import open_index

    settings = _settings(ctx)
    target = parse_target(to)
    idx = open_index(settings.db, settings, write=True)
    show = sys.stderr.isatty() and not as_json
    progress = _chunk_bar(show)

    try:
        report = push_index(idx, target, shard_by=shard_by, batch=batch, progress=progress, replace=replace)
    except KeyboardInterrupt:
        raise click.ClickException("interrupted: what the target acknowledged is recorded; push again to resume")
    finally:
        if show:
            click.echo("", err=True)
        idx.close()
    if as_json:
        _echo_json(report.to_dict(), indent=2)
        return
    rate = report.to_dict()["chunks_per_second"]
    _echo(f"{report.target}: {report.sent} chunks sent, {report.deleted} deleted, {report.unchanged} unchanged "
          f"of {report.chunks} in {report.seconds:.1f}s" + (f" ({rate}/s)" if rate else "")
          + f"; periods by {report.shard_by}" + (" as shard keys" if report.sharded else " (payload filter)"))


# -- pull -----------------------------------------------------------------------------------


@cli.command()
@_database
@click.option("--from", "source", required=True,
              help="qdrant://HOST:PORT/COLLECTION (API key from QDRANT_API_KEY), or a folder a local push wrote.")
@click.option("--period", help='A period as a question names it: "2019", "March 2019", "Q4 2023", "the 1990s".')
@click.option("--since", type=params.DAY, help="First day to pull (YYYY-MM-DD).")
@click.option("--until", type=params.DAY, help="Last day to pull (YYYY-MM-DD).")
@click.option("--facet", "facets", multiple=True,
              help='A speaker or source, by name or alias ("Keir Starmer"); repeat for several.')
@click.option("--batch", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Chunks per written batch (whole documents).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def pull(ctx, source, period, since, until, facets, batch, as_json):
    """Write a slice of a Qdrant collection (a period, speakers, sources) into the index file, vectors as pushed."""
    from .retrieval.backends.pull import pull as pull_slice
    from .retrieval.backends.pull import slice_of
    from .retrieval.backends.qdrant import parse_target
    from .storage.index import open_index

    settings = _settings(ctx)
    what = slice_of(period, since, until, tuple(facets))
    target = parse_target(source)
    client = target.connect(create=False)  # a mistyped folder is refused before the file is made
    path = Path(settings.db)
    made = not path.exists()
    show = sys.stderr.isatty() and not as_json
    progress = _chunk_bar(show)
    discard = False
    try:
        idx = open_index(path, settings, create=True)
        try:
            report = pull_slice(idx, target, what, client=client, batch=batch, progress=progress)
        except BaseException as exc:  # a refusal, or a stop before any write, leaves no file it made
            discard = made and (isinstance(exc, TragError)
                                or not idx.conn.execute("SELECT 1 FROM documents LIMIT 1").fetchone())
            if isinstance(exc, KeyboardInterrupt):
                raise click.ClickException("interrupted: the documents written are kept; pull again to finish")
            raise
        finally:
            if show:
                click.echo("", err=True)
            idx.close()
    finally:
        client.close()
        if discard:
            for extra in ("", "-wal", "-shm", "-lock"):
                Path(str(path) + extra).unlink(missing_ok=True)
    if as_json:
        _echo_json(report.to_dict(), indent=2)
        return
    what_text = ", ".join(x for x in (
        f"{report.start or '…'} to {report.end or '…'}" if report.start or report.end else "",
        "; ".join(report.facets)) if x) or "everything"
    _echo(f"{report.source} ({what_text}): {report.documents} documents ({report.chunks} chunks) written, "
          f"{report.kept} already in the file, {report.replaced} replaced, of {report.selected} selected; "
          f"{report.seconds:.1f}s")


# -- doctor ---------------------------------------------------------------------------------


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--clean-copy", "clean", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the file's data into this new, clean index file.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def doctor(ctx, file, clean, as_json):
    """List every way an index file differs from what trag-tui makes; optionally rescue its data."""
    from .doctor import clean_copy, examine
    from .storage.db import busy, is_busy, sqlite3

    try:
        found = examine(file)
        if not as_json:
            _print_examination(found)
        copy = clean_copy(file, clean) if clean is not None else None
    except sqlite3.DatabaseError as exc:  # name the file examined, not the -d index
        raise (busy(file) if is_busy(exc) else IndexFileError(f"{file} is damaged ({exc})")) from None
    if as_json:
        _echo_json({**found.to_dict(), "clean_copy": copy.to_dict() if copy else None}, indent=2)
    elif copy is not None:
        kept = sum(copy.rows.values())
        dropped = sum(copy.dropped.values())
        click.echo(f"clean copy {safe_line(copy.path)}: {kept} rows kept, {dropped} refused, "
                   f"{copy.vectors} vectors; {copy.documents_to_reindex} documents to index again")
        for note in copy.notes:
            click.echo(f"  note: {safe_line(note)}")
    if found.problems and copy is None:
        ctx.exit(1)


def _print_examination(found) -> None:
    if not found.problems:
        click.echo(f"{safe_line(found.path)}: sound (schema, embedder, vector table and pages check out)")
        return
    click.echo(f"{safe_line(found.path)}: {len(found.problems)} problem(s)")
    for p in found.problems:
        click.echo(f"  - {safe_line(p)}")


# -- tui ------------------------------------------------------------------------------------


@cli.command()
@_database
@click.pass_context
def tui(ctx):
    """Open the chat app on the index (the default command)."""
    try:
        from .tui.app import run_app
    except ImportError as exc:
        raise click.ClickException(f"the chat app is not available: {exc}")
    run_app(ctx.obj["settings"])


# -- models ---------------------------------------------------------------------------------


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.pass_context
def models(ctx, as_json):
    """GGUF models already on this machine (Ollama, LM Studio, Hugging Face, llm-gguf), for --model."""
    from .errors import GenerationError
    from .models.files import default_places, find_models, human_size
    from .models.generation import model_path

    settings: Settings = ctx.obj["settings"]
    places = default_places(settings.model_dir)
    skipped = []  # what discovery passed over, and why
    found = find_models(places=places, skipped=skipped)
    try:
        chosen = str(model_path(settings).resolve())
    except GenerationError:
        chosen = None  # `ask` will say why; the list is still worth showing
    if as_json:
        _echo_json([dict(m.to_dict(), selected=str(m.path.resolve()) == chosen) for m in found],
                   indent=2)
    else:
        # Names and paths come from other tools' folders: escaped, so none can forge a row.
        rows = [("", "NAME", "SIZE", "QUANT", "SOURCE", "PATH")] + [
            ("*" if str(m.path.resolve()) == chosen else "", safe_line(m.name),
             human_size(m.size), safe_line(m.quantization or "?"), m.source,
             safe_line(str(m.path))) for m in found]
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        for row in rows:
            click.echo("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[5])
    for s in skipped:
        click.echo(f"skipped {safe_line(str(s.path))}: {safe_line(s.reason)}", err=True)
    if len(found) <= 1 and not as_json:
        looked = ", ".join(f"{src} {safe_line(str(path))}" for src, path in places.described())
        click.echo(f"\nNo other GGUF files found; looked in: {looked}", err=True)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def plugins(as_json):
    """Embedders and generators: the built-ins and those installed packages register."""
    from .models.registry import embedders, generators

    registries = (("embedder", embedders()), ("generator", generators()))
    rows = [{"kind": kind, "name": p.name, "provider": p.provider}
            for kind, registry in registries for p in registry.plugins()]
    failures = [{"kind": kind, "entry_point": name, "error": why}
                for kind, registry in registries for name, why in registry.failures.items()]
    if as_json:
        _echo_json({"plugins": rows, "failures": failures}, indent=2)
        return
    for r in rows:
        _echo(f"{r['kind']:<10} {r['name']:<20} {r['provider']}")
    for f in failures:
        _echo(f"{f['kind']:<10} {f['entry_point']:<20} NOT LOADED: {f['error']}", err=True)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="trag-tui")
