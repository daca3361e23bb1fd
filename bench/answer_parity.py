"""Do two versions of the code give the same answers? Record them once, compare them after.

A change meant to keep behaviour (moving code, renaming, splitting a module) is checked here on
every question of the development sets, with both pipelines: the answer text, its sources,
evidence, claims, dropped sentences, citations and the prompt the model read must all be the
same. Timings are left out.

    python bench/answer_parity.py record --set sample=sample.db --set realtimeqa=rtqa.db \\
        --out before.jsonl
    # ... change the code ...
    python bench/answer_parity.py record --set ... --out after.jsonl --replay before.jsonl
    python bench/answer_parity.py compare before.jsonl after.jsonl

(`--only-recorded` answers only the questions an earlier record holds, when it was cut short.)

`record` answers each question through the public `ask` (the same call `trag-tui ask --batch
--json` makes), once quoted (`--evidence-only`) and once with the bundled model, and keeps
what the model streamed. The model decodes greedily (temperature 0), so the same prompt gives
the same pieces: with `--replay`, a question whose prompt is byte for byte the one recorded
there is given the recorded pieces instead of running the model again, and a question whose
prompt differs runs the model (and will show up in `compare`).

Sets: `sample` (sample_corpus/questions.jsonl), `realtimeqa`, `locomo` (the development parts
in the shared corpora), `beige` and `beige_whole` (bench/beige_book_*questions.jsonl).
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.sets import QUESTION_SETS  # noqa: E402
from trag_tui import ask, open_index  # noqa: E402
from trag_tui.settings import Settings  # noqa: E402

QUESTIONS = QUESTION_SETS
IGNORED = ("timings",)  # what may differ between two runs of the same code


def _load_generator(settings: Settings):
    try:  # the layout with a models package
        from trag_tui.models.generation import load_generator
    except ImportError:  # the layout before it
        from trag_tui.generation import load_generator  # type: ignore[no-redef]
    return load_generator(settings)


class Recording:
    """Wraps a generator: streams what it streams and keeps the pieces, or replays pieces
    recorded for exactly the same prompt."""

    def __init__(self, make, replay: dict[str, list[str]] | None = None):
        self._make = make
        self._gen = None
        self.replay = replay or {}
        self.pieces: list[str] = []
        self.replayed = False

    def _model(self):
        if self._gen is None:
            self._gen = self._make()
        return self._gen

    @property
    def n_ctx(self) -> int:
        return self._model().n_ctx

    def count_tokens(self, text: str) -> int:
        return self._model().count_tokens(text)

    def count_messages(self, messages: list[dict]) -> int:
        model = self._model()
        exact = getattr(model, "count_messages", None)
        return exact(messages) if exact else sum(model.count_tokens(m["content"]) for m in messages)

    def stream(self, messages, **kw) -> Iterator[str]:
        key = json.dumps(messages, ensure_ascii=False)
        self.pieces = []
        if key in self.replay:
            self.replayed = True
            for piece in self.replay[key]:
                self.pieces.append(piece)
                yield piece
            return
        self.replayed = False
        inner = self._model().stream(messages, **kw)
        try:
            for piece in inner:
                self.pieces.append(piece)
                yield piece
        finally:
            close = getattr(inner, "close", None)
            if close is not None:
                close()


def load_questions(name: str) -> list[dict]:
    rows = [json.loads(line) for line in QUESTIONS[name].read_text(encoding="utf-8").splitlines()
            if line.strip()]
    return [{"id": r["id"], "question": r["question"],
             "as_of": r.get("as_of") or r.get("question_date")} for r in rows]


def _final(events):
    done = None
    for event in events:
        done = event
    return done


def record(args) -> None:
    replay: dict[str, list[str]] = {}
    recorded: set[tuple[str, str, str]] = set()
    if args.replay:
        for line in args.replay.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            recorded.add((row["set"], row["id"], row["pipeline"]))
            if row.get("pieces") is not None and row.get("messages"):
                replay[json.dumps(row["messages"], ensure_ascii=False)] = row["pieces"]
    out = args.out.open("w", encoding="utf-8")
    pipelines = [p for p in args.pipelines.split(",") if p]
    for item in args.set:
        name, _, db = item.partition("=")
        settings = Settings.load(db=Path(db))
        index = open_index(Path(db), settings)
        gen = Recording(lambda s=settings: _load_generator(s), replay)
        questions = load_questions(name)
        started = time.perf_counter()
        for i, q in enumerate(questions, 1):
            as_of = dt.date.fromisoformat(q["as_of"]) if q["as_of"] else None
            for p in pipelines:
                if args.only_recorded and (name, q["id"], p) not in recorded:
                    continue
                gen.pieces, gen.replayed = [], False
                done = _final(ask(index, q["question"], as_of=as_of, settings=settings,
                                  generator=gen, evidence_only=p == "quoted"))
                row = {"set": name, "id": q["id"], "pipeline": p, "question": q["question"],
                       "done": {k: v for k, v in done.to_dict().items() if k not in IGNORED},
                       "messages": done.messages,
                       "pieces": list(gen.pieces) if p == "grounded" and done.messages else None,
                       "replayed": gen.replayed}
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                out.flush()
            print(f"{name} {i}/{len(questions)} {time.perf_counter() - started:.0f}s",
                  file=sys.stderr, end="\r")
        print(file=sys.stderr)
        index.close()
    out.close()


def compare(args) -> None:
    def rows(path: Path) -> dict[tuple, dict]:
        out = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            out[(r["set"], r["id"], r["pipeline"])] = r
        return out

    a, b = rows(args.before), rows(args.after)
    report: dict[str, dict] = {}
    differ = []
    for key in sorted(set(a) | set(b)):
        s = report.setdefault(f"{key[0]}/{key[2]}", {"questions": 0, "same": 0, "differ": 0,
                                                      "missing": 0})
        s["questions"] += 1
        if key not in a or key not in b:
            s["missing"] += 1
            continue
        ra, rb = a[key], b[key]
        same = ra["done"] == rb["done"] and ra["messages"] == rb["messages"]
        s["same" if same else "differ"] += 1
        if not same:
            fields = sorted(k for k in set(ra["done"]) | set(rb["done"])
                            if ra["done"].get(k) != rb["done"].get(k))
            if ra["messages"] != rb["messages"]:
                fields.append("messages")
            differ.append({"key": list(key), "fields": fields})
    print(json.dumps({"sets": report, "differ": differ[:50],
                      "all_same": not differ and all(s["missing"] == 0 for s in report.values())},
                     indent=2))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="answer every question of the sets; write JSONL")
    rec.add_argument("--set", action="append", required=True, metavar="NAME=INDEX",
                     help=f"a question set ({', '.join(QUESTIONS)}) and its index file")
    rec.add_argument("--out", type=Path, required=True)
    rec.add_argument("--pipelines", default="quoted,grounded")
    rec.add_argument("--replay", type=Path, help="an earlier record: reuse its model output "
                                                 "for byte-identical prompts")
    rec.add_argument("--only-recorded", action="store_true",
                     help="with --replay: answer only what it holds (an earlier run cut short)")
    cmp = sub.add_parser("compare", help="what differs between two records")
    cmp.add_argument("before", type=Path)
    cmp.add_argument("after", type=Path)
    args = ap.parse_args()
    (record if args.command == "record" else compare)(args)


if __name__ == "__main__":
    main()
