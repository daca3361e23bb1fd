"""The Congressional Record reader against another parser's reading, and zip against folder.

Prints JSON. For each day in the shared `us_congress` corpus: the share of the oracle's
`speech` turns (the unitedstates/congressional-record parser) that the reader also finds as a
document of the same granule with the same printed speaker (normalised) and the same first 50
characters of what was said (spaces collapsed, page markers and the speaker's label removed on
both sides); the misses by cause; and the share of the words of the oracle's speech turns that
the reader's documents of the same granule hold (a turn cut short loses what follows). Then the cost of indexing a day from its GovInfo zip against
the unpacked folder in the same run (a zip is built in a temp folder from the raw day; the hash
embedder, since both sides embed exactly the same chunks and only the reading differs).
Usage: python bench/crec_oracle.py [--rounds 3] [--no-zip]
"""
from __future__ import annotations

import argparse
import collections
import json
import re
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from trag_tui.errors import IngestError  # noqa: E402
from trag_tui.indexer import Indexer  # noqa: E402
from trag_tui.ingest import DEFAULT_MAX_BYTES, read_file  # noqa: E402
from trag_tui.ingest.crec import normalise_label  # noqa: E402
from trag_tui.models.embedding import HashEmbedder  # noqa: E402
from trag_tui.settings import Settings  # noqa: E402
from trag_tui.storage.file import connect  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpora" / "us_congress"
PREFIX = 50
_PAGE = re.compile(r"\[\[Pages? [A-Z]*\d+(?:-[A-Z]*\d+)?\]\]|\{time\}\s+\d{3,4}")
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[A-Za-z0-9]+")


def said(text: str, label: str = "") -> str:
    """What was said, as compared: page markers and time stamps out, spaces collapsed, no label."""
    text = _SPACE.sub(" ", _PAGE.sub(" ", text)).strip()
    if label and text.startswith(label):
        text = text[len(label):].lstrip(". ").strip()
    return text[:PREFIX]


def _words(text: str) -> collections.Counter[str]:
    """The words of a text, page markers and time stamps out, lower case, counted."""
    return collections.Counter(w.lower() for w in _WORD.findall(_PAGE.sub(" ", text)))


def compare_day(raw: Path, oracle: Path) -> dict:
    """Oracle speech turns found by the reader, and the misses by cause, for one day."""
    found: dict[str, list[tuple[str, str]]] = {}
    words: dict[str, collections.Counter[str]] = {}
    failed: dict[str, str] = {}
    for htm in sorted((raw / "html").glob("*.htm")):
        try:
            read = read_file(htm, max_bytes=DEFAULT_MAX_BYTES)
        except IngestError as e:
            failed[htm.stem] = str(e)
            continue
        found[htm.stem] = [(normalise_label(d.meta.get("speaker_printed", "")), said(d.text))
                           for d in read.documents]
        words[htm.stem] = _words(" ".join(d.text for d in read.documents))
    total = matched = oracle_words = kept_words = 0
    causes: collections.Counter[str] = collections.Counter()
    examples: dict[str, list[dict]] = collections.defaultdict(list)
    for path in sorted((oracle / "json").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        granule = data.get("id") or path.stem
        ours = found.get(granule)
        spoken = _words(" ".join(t["text"] for t in data["content"] if t["kind"] == "speech"))
        oracle_words += sum(spoken.values())
        kept_words += sum((spoken & words.get(granule, collections.Counter())).values())
        for turn in data["content"]:
            if turn["kind"] != "speech":
                continue
            total += 1
            who, start = normalise_label(turn["speaker"]), said(turn["text"], turn["speaker"])
            if ours is not None and (who, start) in ours:
                matched += 1
                continue
            if ours is None:
                cause = "granule failed" if granule in failed else "granule not read"
            elif any(w == who and len(s) < PREFIX and start.startswith(s) for w, s in ours):
                # Our turn stops at a clerk or recorder line; the oracle's runs on into it.
                cause = "oracle's turn runs on past a procedural line where ours ends"
            elif any(s == start for _, s in ours):
                cause = "same words, other speaker"
            elif any(w == who for w, _ in ours):
                cause = "speaker found, turn starts elsewhere"
            else:
                cause = "turn not found"
            causes[cause] += 1
            if len(examples[cause]) < 5:
                examples[cause].append({"granule": granule, "speaker": turn["speaker"],
                                        "start": start})
    documents = sum(len(v) for v in found.values())
    run_on = causes["oracle's turn runs on past a procedural line where ours ends"]
    return {
        "oracle_speech_turns": total,
        "matched": matched,
        "share": round(matched / total, 4) if total else None,
        "share_counting_run_ons": round((matched + run_on) / total, 4) if total else None,
        "speech_words": oracle_words,
        "speech_words_kept": round(kept_words / oracle_words, 4) if oracle_words else None,
        "misses_by_cause": dict(causes.most_common()),
        "miss_examples": dict(examples),
        "reader_documents": documents,
        "granules_failed": failed,
    }


def index_seconds(paths: list[Path], db: Path) -> tuple[float, int]:
    """Seconds to index `paths` into a fresh index with the hash embedder, and documents added."""
    settings = Settings(db=db, embedder="hash")
    conn = connect(db, create=True)
    try:
        started = time.perf_counter()
        summary = Indexer(conn, db, HashEmbedder(), settings).run(paths)
        return time.perf_counter() - started, summary.documents_added
    finally:
        conn.close()


def zip_day(raw: Path, dest: Path) -> Path:
    """The day's package as GovInfo ships it: one zip with `CREC-.../html/*.htm` and the XML."""
    out = dest / f"{raw.name}.zip"
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(raw.rglob("*")):
            if f.is_file():
                zf.write(f, f"{raw.name}/{f.relative_to(raw).as_posix()}")
    return out


def zip_against_folder(raw: Path, rounds: int) -> dict:
    """Indexing a day from its zip against from the folder, alternating, same run."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        archive = zip_day(raw, tmp)
        times: dict[str, list[float]] = {"folder": [], "zip": []}
        docs: dict[str, int] = {}
        for r in range(rounds):
            for kind, paths in (("folder", [raw]), ("zip", [archive]))[:: 1 if r % 2 == 0 else -1]:
                seconds, docs[kind] = index_seconds(paths, tmp / f"{kind}{r}.db")
                times[kind].append(seconds)
        folder, packed = statistics.median(times["folder"]), statistics.median(times["zip"])
        return {
            "zip_bytes": archive.stat().st_size,
            "documents": docs,
            "seconds_folder": [round(t, 3) for t in times["folder"]],
            "seconds_zip": [round(t, 3) for t in times["zip"]],
            "ratio_zip_to_folder": round(packed / folder, 3),
        }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-zip", action="store_true", help="the oracle comparison only")
    args = ap.parse_args()
    if not (args.corpus / "raw").is_dir():
        sys.exit(f"corpus not found: {args.corpus} (the shared corpora sit beside the repository)")
    out: dict = {"days": {}}
    for raw in sorted((args.corpus / "raw").glob("CREC-*")):
        day = compare_day(raw, args.corpus / "oracle" / raw.name)
        if not args.no_zip:
            day["zip_vs_folder"] = zip_against_folder(raw, args.rounds)
        out["days"][raw.name] = day
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
