"""Answer quality as a reader sees it: today's generation and the grounded one side by side.

For every question, retrieval runs once; then two pipelines answer from the same sources:
- `whole`: the whole-passage prompt, the model's text shown as written (only invalid citation
  numbers removed): how answers were made before the grounding gate;
- `grounded`: `trag_tui.answering.pipeline.answer`, the sentence prompt, every generated sentence checked
  against its source, and a quoted answer when none survives;
- `quoted`: the same without a model (`--evidence-only`): the quoted answer alone.

Figures per set and pipeline (printed as JSON):
- accuracy: a gold answer string occurs in the answer text (case- and punctuation-insensitive,
  "per cent" = "%"); ceiling: a gold answer occurs in the listed sources; accuracy/ceiling is
  measured on the questions whose gold answer is in the sources;
- wrong_choice (RealTimeQA): the answer names one of the wrong multiple-choice options;
- f1 (LoCoMo): token F1 of the answer against the gold answer;
- unsupported_rate: answers holding a name or number found in no listed source and not in the
  question;
- first_shown / total: seconds from the start of answering (after retrieval) to the first text
  a reader sees, and to the finished answer; medians and p90.

Usage:
    python bench/answer_quality.py --set sample=sample.db \\
        --set realtimeqa=rtqa.db --set locomo=locomo.db [--pipelines whole,grounded] \\
        [--records out.jsonl] [--retrieval-cache rtqa.pkl]

`--retrieval-cache` keeps each question's search result and passages in a file of this run's
own making (pickle: load only a file you wrote), so answer rules can be re-measured on the same
sources in minutes, without searching again; a cache built before a retrieval change measures
the old retrieval.
"""
from __future__ import annotations

import argparse
import collections
import datetime as dt
import json
import pickle
import re
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.sets import KEYED, QUESTION_SETS  # noqa: E402
from bench.whole_prompt import CitationFilter, build_context  # noqa: E402
from trag_tui.answering.events import Done  # noqa: E402
from trag_tui.answering.facts import names, quantities  # noqa: E402
from trag_tui.answering.pipeline import answer  # noqa: E402
from trag_tui.answering.prompt import STOP  # noqa: E402
from trag_tui.answering.sources import fetch_quotes  # noqa: E402
from trag_tui.models.generation import count_messages, load_generator  # noqa: E402
from trag_tui.retrieval.modes import Retriever, search  # noqa: E402
from trag_tui.settings import Settings  # noqa: E402
from trag_tui.storage.index import open_index  # noqa: E402
from trag_tui.text.labels import day_label  # noqa: E402

# the sets with answer keys
QUESTIONS = {name: QUESTION_SETS[name] for name in (*KEYED, "realtimeqa", "locomo")}
LOCOMO_CATEGORIES = ("temporal", "single-hop")


# -- scoring --------------------------------------------------------------------------------


# A count written in words is the same answer as in digits: "sentenced to nine years" holds the
# gold "9". "One" is read as 1 only before a magnitude ("one million"): "one of the few" is no 1.
_NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split()) if w != "one"}
_NUMBER_WORD = re.compile(r"\b(?:(" + "|".join(_NUMBER_WORDS) + r")|one(?= (?:hundred|thousand|"
                          r"million|billion|trillion)\b))\b")


def norm(text: str) -> str:
    """Lower case, "per cent" as "%", "5.0" as "5", a count in words as digits, punctuation and
    spacing folded."""
    text = text.lower().replace("per cent", "%").replace("percent", "%")
    text = _NUMBER_WORD.sub(lambda m: _NUMBER_WORDS.get(m.group(0), "1"), text)
    text = re.sub(r"(\d)\.0+(?!\d)", r"\1", text)
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    text = re.sub(r"\s*%", "%", text)
    text = re.sub(r"[^\w%.]+", " ", text)
    text = re.sub(r"\.(?!\d)", " ", text)
    return " ".join(text.split())


def holds(text: str, gold: str) -> bool:
    """Does `text` contain `gold` as whole words? A number is whole too: "$4" is not in
    "$4.96", nor "15" in "15.50". A key of parts ("3.4% | 4.6%", a comparison's figure for
    each period) is held when every part is."""
    if " | " in gold:
        return all(holds(text, part) for part in gold.split(" | "))
    g = norm(gold)
    return bool(g) and re.search(r"(?<![\w.])" + re.escape(g) + r"(?!\w|\.\d)", norm(text)) is not None


_CITATION = re.compile(r"\s*\[\d{1,3}\]")


def uncited(text: str) -> str:
    """The answer without its citation marks: "[4]" names a source, not the answer 4."""
    return _CITATION.sub("", text)


def token_f1(pred: str, gold: str) -> float:
    """SQuAD-style token F1."""
    p, g = norm(pred).split(), norm(gold).split()
    common = collections.Counter(p) & collections.Counter(g)
    same = sum(common.values())
    if not p or not g or same == 0:
        return 0.0
    precision, recall = same / len(p), same / len(g)
    return 2 * precision * recall / (precision + recall)


def unsupported_terms(answer_text: str, sources_text: str, question: str) -> list[str]:
    """Names and numbers of an answer that occur in no listed source and not in the question."""
    answer_text = re.sub(r"\[\d{1,3}(?:\s*[,;]\s*\d{1,3})*\]", " ", answer_text)  # citations
    # an evolution answer's block labels ("Older sources: …") are the answer's, not a claim
    answer_text = re.sub(r"(?m)^\w+ sources: ", "", answer_text)
    known_names = set(names(sources_text)) | set(names(question))
    known_words = set(re.findall(r"\w+", (sources_text + " " + question).lower()))
    known_nums = quantities(sources_text) + quantities(question)
    out = []
    for n in names(answer_text):
        if n not in known_names and not any(w.startswith(n) for w in known_words):
            out.append(n)
    for q in quantities(answer_text):
        if not any(q.value == k.value for k in known_nums):
            out.append(str(q))
    return out


def sources_text(sources) -> str:
    parts = []
    for s in sources:
        when = ""
        if s.date:
            try:
                when = day_label(dt.date.fromisoformat(s.date[:10]))
            except ValueError:
                when = s.date
        parts.append(" ".join([s.date or "", when, s.title, s.speaker, s.role, s.passage]))
    return "\n".join(parts)


# -- the two pipelines ----------------------------------------------------------------------


def whole_pipeline(result, passages, roles, gen, settings):
    """How answers were made before the gate: whole passages in, the model's text out."""
    started = time.perf_counter()
    ctx = build_context(result, passages, n_ctx=gen.n_ctx, max_tokens=settings.max_tokens,
                        count_tokens=gen.count_tokens, roles=roles,
                        count_messages=lambda m: count_messages(gen, m))
    filt = CitationFilter({s.number for s in ctx.sources})
    text, first, token = [], None, None
    for piece in gen.stream(ctx.messages, max_tokens=settings.max_tokens,
                            temperature=settings.temperature, stop=STOP):
        token = token if token is not None else time.perf_counter() - started
        out = filt.feed(piece)
        if out:
            first = first if first is not None else time.perf_counter() - started
            text.append(out)
    text.append(filt.flush())
    total = time.perf_counter() - started
    return ("".join(text), ctx.sources, first if first is not None else total, total,
            token if token is not None else total)


def grounded_pipeline(result, passages, roles, gen, settings, embedder, evidence_only=False,
                      judge=None):
    """The product's answer (`judge`: its relevance judge's model, else none): its Done, and
    seconds to the first text shown, to the end, and to the model's first token."""
    started = time.perf_counter()
    done = None
    for event in answer(result, passages, generator=gen, settings=settings, roles=roles,
                        embedder=embedder, evidence_only=evidence_only, judge=judge):
        if isinstance(event, Done):
            done = event
    total = time.perf_counter() - started
    first = done.timings.get("first_shown")
    first = first - done.timings.get("retrieval", 0.0) if first is not None else total
    token = done.timings.get("first_token")
    token = token - done.timings.get("retrieval", 0.0) if token is not None else None
    return done, first, total, token


# -- questions ------------------------------------------------------------------------------


def load_questions(name: str, path: Path) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = []
    for r in rows:
        when = r.get("as_of") or r.get("question_date")
        if name in KEYED:
            if not r.get("key"):
                continue
            golds = [r["key"]]
        elif name == "locomo":
            if r.get("category") not in LOCOMO_CATEGORIES:
                continue
            golds = [str(a) for a in r.get("answers") or []]
        else:
            golds = [str(a) for a in r.get("answers") or []]
        if not golds:
            continue
        out.append({"id": r["id"], "question": r["question"], "as_of": when, "golds": golds,
                    "choices": r.get("choices") or [], "category": r.get("category")})
    return out


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def summarise(rows: list[dict], pipeline: str, with_choices: bool, with_f1: bool) -> dict:
    n = len(rows)
    ceiling = [r for r in rows if r["ceiling"]]
    acc = [r for r in rows if r[pipeline]["correct"]]
    acc_in = [r for r in ceiling if r[pipeline]["correct"]]
    out = {
        "questions": n,
        "accuracy": round(len(acc) / n, 3) if n else 0.0,
        "ceiling": round(len(ceiling) / n, 3) if n else 0.0,
        "accuracy_where_answer_in_sources": round(len(acc_in) / len(ceiling), 3) if ceiling else 0.0,
        "unsupported_rate": round(sum(1 for r in rows if r[pipeline]["unsupported"]) / n, 3) if n else 0.0,
        "first_shown_median_s": round(statistics.median([r[pipeline]["first"] for r in rows]), 3) if n else 0.0,
        "first_shown_p90_s": round(pct([r[pipeline]["first"] for r in rows], 0.9), 3),
        "total_median_s": round(statistics.median([r[pipeline]["total"] for r in rows]), 3) if n else 0.0,
        "total_p90_s": round(pct([r[pipeline]["total"] for r in rows], 0.9), 3),
    }
    tokens = [r[pipeline]["first_token"] for r in rows if r[pipeline].get("first_token") is not None]
    if tokens:
        # the model's first token: how long its prompt took to read
        out["first_token_median_s"] = round(statistics.median(tokens), 3)
    if pipeline in ("grounded", "quoted"):
        out["extractive_share"] = round(sum(1 for r in rows if r[pipeline].get("extractive")) / n, 3) if n else 0.0
        out["dropped_sentences"] = sum(r[pipeline].get("dropped", 0) for r in rows)
    if with_choices:
        chosen = [r for r in rows if r["choices"]]
        out["wrong_choice_rate"] = round(
            sum(1 for r in chosen if r[pipeline]["wrong_choice"]) / len(chosen), 3) if chosen else 0.0
    if with_f1:
        out["f1"] = round(statistics.mean([r[pipeline]["f1"] for r in rows]), 3) if n else 0.0
    return out


def against_key(answer: str, golds: list[str], choices: list[str]) -> dict:
    """An answer's text (citations left out) against its key: whether it holds a gold answer,
    its best token F1, and the wrong choices it names (those that hold no gold)."""
    said = uncited(answer)
    wrong = [c for c in choices if not any(holds(g, c) or holds(c, g) for g in golds)
             and holds(said, c)]
    return {"correct": any(holds(said, g) for g in golds),
            "f1": max(token_f1(said, g) for g in golds), "wrong_choice": wrong}


def write_record(records, row: dict) -> None:
    """One question's row as a line of the --records file, flushed (a run stopped early keeps
    what it measured)."""
    if records is not None:
        records.write(json.dumps(row, ensure_ascii=False) + "\n")
        records.flush()


def load_cache(path: Path | None) -> dict:
    """The retrieval cache an earlier run stored at `path` (pickle: only a file this bench
    wrote), or an empty one."""
    if path is None or not path.exists():
        return {}
    with path.open("rb") as fh:
        return pickle.load(fh)  # noqa: S301 - a file this bench wrote


def save_cache(path: Path | None, cache: dict, fresh: bool) -> None:
    """Store the retrieval cache when a run added to it."""
    if path is not None and fresh:
        with path.open("wb") as fh:
            pickle.dump(cache, fh)


def retrieved(idx, name: str, q: dict, settings: Settings, retriever: Retriever,
              cache: dict) -> tuple:
    """A question's search result with its passages and roles, from `cache` when it holds
    them (keyed by set, id, question and as-of), and whether they were fetched afresh."""
    key = (name, q["id"], q["question"], q["as_of"])
    fresh = key not in cache
    if fresh:
        as_of = dt.date.fromisoformat(q["as_of"]) if q["as_of"] else dt.date.today()
        result = search(idx, q["question"], as_of=as_of, k=settings.k, settings=settings,
                        retriever=retriever)
        cache[key] = (result, fetch_quotes(idx.conn, result.hits))
    result, quotes = cache[key]
    passages = {c: t for c, (t, _) in quotes.items()}
    roles = {c: r for c, (_, r) in quotes.items()}
    return result, passages, roles, fresh


def run_set(name: str, db: Path, pipelines: list[str], records, limit: int | None,
            cache_path: Path | None = None) -> dict:
    settings = Settings.load(db=db)
    idx = open_index(db, settings)
    gen = load_generator(settings) if set(pipelines) - {"quoted"} else None
    retriever = Retriever(idx, settings)
    embedder = idx.embedder
    qs = load_questions(name, QUESTIONS[name])
    if limit:
        qs = qs[:limit]
    cache = load_cache(cache_path)
    fresh = False
    rows = []
    for i, q in enumerate(qs, 1):
        result, passages, roles, new = retrieved(idx, name, q, settings, retriever, cache)
        fresh = fresh or new
        row = {"set": name, "id": q["id"], "question": q["question"], "golds": q["golds"],
               "choices": q["choices"]}
        listed = None
        for p in pipelines:
            if not result.hits:
                text, srcs, first, total = "", [], 0.0, 0.0
                extra: dict = {}
            elif p == "whole":
                text, srcs, first, total, token = whole_pipeline(result, passages, roles, gen,
                                                                 settings)
                extra = {"first_token": token}
            else:
                done, first, total, token = grounded_pipeline(
                    result, passages, roles, gen, settings, embedder, evidence_only=p == "quoted")
                text, srcs = done.answer, done.sources
                extra = {"extractive": done.extractive, "dropped": len(done.dropped),
                         "first_token": token}
                if done.shown != text:  # the notes shown above the answer, as the reader sees it
                    extra["shown"] = done.shown
            listed = listed if listed is not None else sources_text(srcs)
            row[p] = {"answer": text, **against_key(text, q["golds"], q["choices"]),
                      "unsupported": unsupported_terms(text, sources_text(srcs), q["question"]),
                      "first": first, "total": total, **extra}
        row["ceiling"] = any(holds(listed or "", g) for g in q["golds"])
        rows.append(row)
        write_record(records, row)
        print(f"{name} {i}/{len(qs)}", file=sys.stderr, end="\r")
    idx.close()
    save_cache(cache_path, cache, fresh)
    print(file=sys.stderr)
    out = {p: summarise(rows, p, name == "realtimeqa", name == "locomo") for p in pipelines}
    if "whole" in out and "grounded" in out:
        # Timings as ratios to the whole-passage pipeline measured in the same run: this
        # machine is shared and noisy, the ratio is what carries over.
        for key in ("first_shown_median_s", "first_token_median_s", "total_median_s"):
            base, new = out["whole"].get(key), out["grounded"].get(key)
            if base and new is not None:
                out["grounded"][key.replace("_median_s", "_ratio_to_whole")] = round(new / base, 3)
    return out


def set_arguments(ap: argparse.ArgumentParser) -> None:
    """The options every answer bench takes: its question sets, records, cache and summary."""
    ap.add_argument("--set", action="append", default=[], metavar="NAME=INDEX",
                    help=f"a question set ({', '.join(QUESTIONS)}) and its index file")
    ap.add_argument("--records", type=argparse.FileType("w"), help="per-question JSONL")
    ap.add_argument("--retrieval-cache", type=Path, metavar="FILE",
                    help="reuse (or first store) each question's sources: re-measure answer "
                         "rules without searching again")
    ap.add_argument("--summarise", type=Path, metavar="RECORDS",
                    help="print the figures of an earlier run's --records file instead of running")


def sets(ap: argparse.ArgumentParser, args: argparse.Namespace) -> list[tuple[str, Path]]:
    """The `--set NAME=INDEX` pairs, each set known."""
    out = []
    for item in args.set:
        name, _, db = item.partition("=")
        if name not in QUESTIONS:
            ap.error(f"unknown set {name!r}")
        out.append((name, Path(db)))
    return out


def set_cache(args: argparse.Namespace, name: str) -> Path | None:
    """The retrieval cache file of one set: `--retrieval-cache` itself for a single set, else
    one file beside it per set."""
    cache = args.retrieval_cache
    if cache is not None and len(args.set) > 1:
        cache = cache.with_name(f"{cache.stem}.{name}{cache.suffix}")
    return cache


def records_by_set(path: Path) -> dict[str, list[dict]]:
    """An earlier run's --records file, its rows by question set in the order first seen."""
    out: dict[str, list[dict]] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            out.setdefault(row["set"], []).append(row)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    set_arguments(ap)
    ap.add_argument("--pipelines", default="whole,grounded")
    ap.add_argument("--limit", type=int, help="first N questions only (for a quick look)")
    args = ap.parse_args()
    if args.summarise:
        report = {}
        for name, part in records_by_set(args.summarise).items():
            present = [p for p in ("whole", "grounded", "quoted") if p in part[0]]
            report[name] = {p: summarise(part, p, name == "realtimeqa", name == "locomo")
                            for p in present}
        print(json.dumps(report, indent=2))
        return
    pipelines = [p for p in args.pipelines.split(",") if p]
    report = {name: run_set(name, db, pipelines, args.records, args.limit, set_cache(args, name))
              for name, db in sets(ap, args)}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
