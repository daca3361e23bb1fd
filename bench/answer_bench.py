"""What `ask` adds on top of the model: time to first token against raw prompt evaluation.

For each question, `ask` runs with the model's KV cache cleared, and its time to first token
minus its retrieval time (model lookup, context assembly, the chat template, prompt evaluation
and the first sampled token) is set against the time llama.cpp alone takes to evaluate the very
same prompt tokens, measured in the same run with the same model. The ratio should stay at or
below 1.3: the answer layer must cost little beyond the model itself.

It also reports prompt sizes, generation speed, and the KV-cache reuse of the fixed system
prompt: the same question asked right after a different one (warm) against asked cold, and
the same question asked twice in a row (repeat).

The index is built in a temporary folder from the repository's sample_corpus/ (or a few
synthetic documents where that is absent), with the real MiniLM embedder unless --hash.
Usage: python bench/answer_bench.py [--hash] [--max-tokens N] [--repeats N]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from trag_tui.answering.events import Done, Retrieved  # noqa: E402
from trag_tui.answering.pipeline import ask  # noqa: E402
from trag_tui.answering.prompt import ANSWER_SYSTEM_PROMPT as SYSTEM_PROMPT  # noqa: E402
from trag_tui.indexer import Indexer  # noqa: E402
from trag_tui.models.generation import load_generator  # noqa: E402
from trag_tui.settings import Settings  # noqa: E402
from trag_tui.storage.index import open_index  # noqa: E402

AS_OF = dt.date(2025, 11, 22)
QUESTIONS = [  # one per mode, from sample_corpus/questions.jsonl
    "What is the current inflation rate?",
    "What was the inflation rate in March 2022?",
    "How has inflation developed since 2021?",
    "Compare inflation in 2022 and 2024",
    "What is the Rwanda scheme?",
]
SYNTHETIC = [
    ("2021-05-12", "Inflation report", "CPI inflation rose to 1.5 per cent as prices of fuel increased."),
    ("2022-03-23", "Spring statement", "Inflation reached 6.2 per cent in February 2022, the Chancellor said."),
    ("2022-11-16", "Inflation report", "CPI inflation was 11.1 per cent in October 2022, a 41-year high."),
    ("2024-06-19", "Inflation report", "CPI inflation returned to the 2 per cent target in May 2024."),
    ("2025-11-19", "Inflation report", "CPI inflation was 3.6 per cent in the 12 months to October 2025."),
    ("2024-03-06", "Rwanda debate", "The Rwanda scheme would relocate asylum seekers to Rwanda."),
]


def corpus(tmp: Path) -> tuple[Path, str]:
    """The folder to index and how to describe it."""
    sample = REPO / "sample_corpus"
    if sample.is_dir() and any(sample.rglob("*.xml")):
        return sample, "sample_corpus"
    folder = tmp / "synthetic"
    folder.mkdir()
    rows = [{"id": f"syn-{i}", "date": d, "title": t, "source": "MP", "text": (x + " ") * 8}
            for i, (d, t, x) in enumerate(SYNTHETIC)]
    (folder / "docs.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    return folder, "synthetic"


def run_ask(idx, gen, settings, question: str) -> tuple[Done, str]:
    """One `ask`, consumed as the CLI would: the Done event and the retrieval mode."""
    done, mode = None, ""
    # With a cancel event, as the CLI and the chat app call it (the prompt is evaluated in
    # cancellable slices).
    cancel = threading.Event()
    for event in ask(idx, question, as_of=AS_OF, generator=gen, settings=settings, cancel=cancel):
        if isinstance(event, Retrieved):
            mode = event.result.mode
        elif isinstance(event, Done):
            done = event
    assert done is not None
    return done, mode


def ttft(done: Done) -> float:
    """Time to the first token minus retrieval, from an answer's own timings."""
    return done.timings["first_token"] - done.timings["retrieval"]


def raw_eval(gen, tokens: list[int]) -> float:
    """Seconds llama.cpp takes to evaluate `tokens` from an empty KV cache."""
    gen.llm.reset()
    t0 = time.perf_counter()
    gen.llm.eval(tokens)
    return time.perf_counter() - t0


def log(message: str) -> None:
    """Progress on stderr, so stdout stays one JSON document."""
    print(message, file=sys.stderr, flush=True)


def common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hash", action="store_true", help="index with the hash embedder")
    ap.add_argument("--max-tokens", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=2, help="cold/raw pairs per question (min taken)")
    ap.add_argument("--threads", type=int, default=0, help="llama.cpp threads (0: all cores)")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        folder, name = corpus(tmp)
        settings = Settings(db=tmp / "bench.db", embedder="hash" if args.hash else None,
                            max_tokens=args.max_tokens, threads=args.threads)
        t0 = time.perf_counter()
        idx = open_index(settings.db, settings, create=True)
        summary = Indexer(idx.conn, idx.path, idx.embedder, settings).run([folder])
        index_seconds = time.perf_counter() - t0
        t0 = time.perf_counter()
        gen = load_generator(settings)
        load_seconds = time.perf_counter() - t0
        # One throwaway answer loads the embedder and warms llama.cpp's buffers.
        last, _ = run_ask(idx, gen, settings, "Who is the Prime Minister?")

        rows = []
        log(f"indexed {summary.documents_added} documents in {index_seconds:.1f}s")
        previous = gen.prompt_tokens(last.messages)
        for i, q in enumerate(QUESTIONS):
            log(f"question {i + 1}/{len(QUESTIONS)}: {q}")
            # warm: a different question was answered just before, so only the system prefix
            # (and whatever else the two prompts share) comes from the KV cache
            warm_done, mode = run_ask(idx, gen, settings, q)
            if warm_done.no_documents:
                rows.append({"question": q, "mode": mode, "no_documents": True})
                continue
            tokens = gen.prompt_tokens(warm_done.messages)
            reused = common_prefix(previous, tokens)
            # repeat: the same prompt again, as when a question is asked twice
            repeat_done, _ = run_ask(idx, gen, settings, q)
            cold, raw = [], []
            for _ in range(args.repeats):
                # Alternate the two measurements so load from other processes hits both alike.
                gen.llm.reset()  # nothing cached: ask pays for the whole prompt
                done, _ = run_ask(idx, gen, settings, q)
                cold.append(ttft(done))
                raw.append(raw_eval(gen, gen.prompt_tokens(done.messages)))
            previous = tokens
            rows.append({
                "question": q,
                "mode": mode,
                "sources": len(done.sources),
                "prompt_tokens": len(tokens),
                "retrieval_s": round(done.timings["retrieval"], 4),
                "ask_ttft_minus_retrieval_s": round(min(cold), 4),
                "raw_prompt_eval_s": round(min(raw), 4),
                "ratio": round(min(cold) / min(raw), 3),
                "warm_ttft_minus_retrieval_s": round(ttft(warm_done), 4),
                "warm_reused_prefix_tokens": reused,
                "repeat_ttft_minus_retrieval_s": round(ttft(repeat_done), 4),
                "tokens_per_second": round(warm_done.timings.get("tokens_per_second", 0.0), 1),
                "citations": warm_done.citations,
                "invalid_citations": warm_done.invalid_citations,
                "answer": warm_done.answer[:200],
            })
        embedder = idx.embedder.name
        idx.close()

    timed = [r for r in rows if "ratio" in r]
    system_tokens = common_prefix(
        gen.prompt_tokens([{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "a"}]),
        gen.prompt_tokens([{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "b"}]))
    out = {
        "model": gen.path.name, "threads": gen.threads, "n_ctx": gen.n_ctx,
        "max_tokens": args.max_tokens, "embedder": embedder,
        "corpus": name, "documents": summary.documents_added, "index_seconds": round(index_seconds, 1),
        "model_load_seconds": round(load_seconds, 3),
        "system_prefix_tokens": system_tokens,
        "questions": rows,
        "summary": {
            "ratio_max": max(r["ratio"] for r in timed),
            "ratio_median": round(statistics.median(r["ratio"] for r in timed), 3),
            "ratio_ok": max(r["ratio"] for r in timed) <= 1.3,
            "prompt_tokens_median": statistics.median(r["prompt_tokens"] for r in timed),
            "tokens_per_second_median": statistics.median(r["tokens_per_second"] for r in timed),
            "warm_over_cold_median": round(statistics.median(
                r["warm_ttft_minus_retrieval_s"] / r["ask_ttft_minus_retrieval_s"] for r in timed), 3),
            "repeat_over_cold_median": round(statistics.median(
                r["repeat_ttft_minus_retrieval_s"] / r["ask_ttft_minus_retrieval_s"] for r in timed), 3),
        },
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
