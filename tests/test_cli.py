"""The command line: every command documents itself, errors are one line, never a traceback."""
from __future__ import annotations

import json
import sqlite3
from contextlib import closing

import pytest
from click.testing import CliRunner

from trag_tui.cli import cli


@pytest.mark.parametrize("name", sorted(cli.commands))
def test_every_command_has_help(name):
    result = CliRunner().invoke(cli, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert cli.commands[name].help, f"{name} has no help text"


def test_stats_on_missing_index_is_a_clear_error(tmp_path):
    result = CliRunner().invoke(cli, ["-d", str(tmp_path / "none.db"), "stats"])
    assert result.exit_code == 1
    assert "no index" in result.output and "Traceback" not in result.output


def test_not_an_index_is_a_clear_error(tmp_path):
    bad = tmp_path / "x.db"
    bad.write_text("not sqlite")
    result = CliRunner().invoke(cli, ["-d", str(bad), "stats"])
    assert result.exit_code == 1 and "not a SQLite file" in result.output


def test_index_then_stats_json(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAG_TUI_EMBEDDER", "hash")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("---\ndate: 2019-05-01\ntitle: A\n---\nInflation was 2 per cent.")
    (tmp_path / "docs" / "b.md").write_text("---\ndate: 2021-05-01\ntitle: B\n---\nInflation was 1 per cent.")
    db = tmp_path / "t.db"
    r = CliRunner().invoke(cli, ["-d", str(db), "index", str(tmp_path / "docs"), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["documents_added"] == 2
    r = CliRunner().invoke(cli, ["-d", str(db), "stats", "--json"])
    data = json.loads(r.output)
    assert data["documents"] == 2 and data["documents_per_year"] == {"2019": 1, "2021": 1}
    assert data["embedder"] == "hash-384"
    assert data["spoken_periods"]["current"] is True
    r = CliRunner().invoke(cli, ["-d", str(db), "stats"])
    assert "2020" in r.output and "documents per year" in r.output
    assert "older rules" not in r.output
    # periods read by an older version's rules are said to be, until the next index run
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("UPDATE meta SET value = 'spoken-0' WHERE key = 'period_rules'")
    r = CliRunner().invoke(cli, ["-d", str(db), "stats", "--json"])
    assert json.loads(r.output)["spoken_periods"]["current"] is False
    r = CliRunner().invoke(cli, ["-d", str(db), "stats"])
    assert "read by older rules: `trag-tui index` reads them again" in r.output
    CliRunner().invoke(cli, ["-d", str(db), "index", str(tmp_path / "docs"), "--json"])
    r = CliRunner().invoke(cli, ["-d", str(db), "stats", "--json"])
    assert json.loads(r.output)["spoken_periods"]["current"] is True


def test_the_database_option_also_sits_on_each_command(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAG_TUI_EMBEDDER", "hash")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("---\ndate: 2019-05-01\ntitle: A\n---\nInflation was 2 per cent.")
    r = CliRunner().invoke(cli, ["index", "docs", "-d", "mine.db", "--json"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "mine.db").is_file() and not (tmp_path / "trag.db").exists()
    r = CliRunner().invoke(cli, ["-d", "other.db", "stats", "--database", "mine.db", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["documents"] == 1  # the command's own option wins
    r = CliRunner().invoke(cli, ["search", "inflation", "-d", "mine.db", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["hits"], r.output


def test_verbose_logs_what_the_engine_decided_on_stderr(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAG_TUI_EMBEDDER", "hash")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("---\ndate: 2019-05-01\ntitle: A\n---\nInflation was 2 per cent.")
    (tmp_path / "docs" / "b.bin").write_bytes(b"\x00\x01")
    db = str(tmp_path / "t.db")
    r = CliRunner().invoke(cli, ["-vv", "-d", db, "index", str(tmp_path / "docs"), "--json"])
    assert r.exit_code == 0, r.output
    assert "INFO trag_tui.indexer: indexed 1 documents" in r.stderr
    assert "WARNING trag_tui.indexer: not indexed:" in r.stderr and "b.bin" in r.stderr
    assert json.loads(r.stdout)["documents_added"] == 1  # stdout stays machine-readable
    r = CliRunner().invoke(cli, ["-v", "-d", db, "ask", "What was inflation in 2019?",
                                 "--evidence-only"])
    assert r.exit_code == 0, r.output
    assert "INFO trag_tui.answering.pipeline: hard_filter:" in r.stderr
    r = CliRunner().invoke(cli, ["-d", db, "index", str(tmp_path / "docs")])
    assert "WARNING" not in r.stderr and "INFO" not in r.stderr


def test_index_exit_code_when_nothing_indexable(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAG_TUI_EMBEDDER", "hash")
    (tmp_path / "x.bin").write_bytes(b"\x00\x01" * 100)
    r = CliRunner().invoke(cli, ["-d", str(tmp_path / "t.db"), "index", str(tmp_path / "x.bin")])
    assert r.exit_code == 1 and "x.bin" in r.output


def test_search_and_parse_batch(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAG_TUI_EMBEDDER", "hash")
    (tmp_path / "docs").mkdir()
    for year in (2015, 2019, 2021):
        (tmp_path / "docs" / f"r{year}.md").write_text(
            f"---\ndate: {year}-05-01\ntitle: Report {year}\n---\nInflation was {year % 10} per cent.")
    db = tmp_path / "t.db"
    assert CliRunner().invoke(cli, ["-d", str(db), "index", str(tmp_path / "docs")]).exit_code == 0
    batch = tmp_path / "q.jsonl"
    batch.write_text(
        json.dumps({"id": "a", "question": "What was inflation in 2019?", "question_date": "2024-01-01"})
        + "\n\n" + json.dumps({"id": "b", "question": "What is inflation now?", "question_date": "2020-01-01"})
        + "\n")
    r = CliRunner().invoke(cli, ["-d", str(db), "search", "--batch", str(batch), "--json"])
    assert r.exit_code == 0, r.output
    a, b = [json.loads(line) for line in r.output.splitlines()]
    assert (a["id"], a["intent"], a["start"], a["end"]) == ("a", "point_in_time", "2019-01-01", "2019-12-31")
    assert [h["date"] for h in a["hits"]] == ["2019-05-01"] and a["hits"][0]["doc_id"] == "docs/r2019.md"
    assert b["id"] == "b" and b["intent"] == "current"
    assert {h["date"] for h in b["hits"]} <= {"2015-05-01", "2019-05-01"}  # nothing after as-of
    r = CliRunner().invoke(cli, ["parse", "--batch", str(batch)])
    assert [json.loads(line)["intent"] for line in r.output.splitlines()] == ["point_in_time", "current"]
    batch.write_text('{"id": "x", "question": "ok?"}\nnot json\n')
    r = CliRunner().invoke(cli, ["-d", str(db), "search", "--batch", str(batch), "--json"])
    assert r.exit_code == 1 and "line 2" in r.output and "Traceback" not in r.output
    batch.write_text('{"id": "y"}\n')
    r = CliRunner().invoke(cli, ["-d", str(db), "search", "--batch", str(batch), "--json"])
    assert r.exit_code == 1 and "line 1: no 'question' field" in r.output


def test_ask_batch_and_json_print_the_answer_object(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAG_TUI_EMBEDDER", "hash")
    (tmp_path / "docs").mkdir()
    for year in (2015, 2019, 2021):
        (tmp_path / "docs" / f"r{year}.md").write_text(
            f"---\ndate: {year}-05-01\ntitle: Report {year}\n---\n"
            f"The inflation rate was {year % 10} per cent in the spring of {year}.")
    db = tmp_path / "t.db"
    assert CliRunner().invoke(cli, ["-d", str(db), "index", str(tmp_path / "docs")]).exit_code == 0
    batch = tmp_path / "q.jsonl"
    batch.write_text(
        json.dumps({"id": "a", "question": "What was the inflation rate in 2019?",
                    "question_date": "2024-01-01"}) + "\n"
        + json.dumps({"id": "b", "question": "What was said in 2017?", "question_date": "2024-01-01"})
        + "\n")
    r = CliRunner().invoke(cli, ["-d", str(db), "ask", "--batch", str(batch), "--json",
                                 "--evidence-only"])
    assert r.exit_code == 0, r.output
    a, b = [json.loads(line) for line in r.output.splitlines()]
    assert a["id"] == "a" and a["extractive"] and "9 per cent" in a["answer"]
    assert "[1]" in a["answer"] and a["citations"] == [1] and a["sources"][0]["date"] == "2019-05-01"
    assert b["id"] == "b" and b["no_documents"] and "2017" in b["answer"]
    # the single-question --json is the same object
    r = CliRunner().invoke(cli, ["-d", str(db), "ask", "What was the inflation rate in 2019?",
                                 "--as-of", "2024-01-01", "--json", "--evidence-only"])
    one = json.loads(r.output)
    assert {k: one[k] for k in ("answer", "citations", "mode")} == \
        {k: a[k] for k in ("answer", "citations", "mode")}
    assert set(one) >= {"question", "claims", "dropped", "extractive", "evidence", "sources"}


@pytest.fixture
def echo_model(monkeypatch):
    """The hash embedder, and the `echo:TEXT` generator installed as a plug-in would be (it
    says TEXT), for as long as the test runs."""
    from importlib.metadata import EntryPoint

    from trag_tui.models import registry as plugins

    monkeypatch.setenv("TRAG_TUI_EMBEDDER", "hash")
    echo = EntryPoint("echo", "tests.fakes:register_echo", plugins.GENERATORS)
    monkeypatch.setattr(plugins, "entry_points",
                        lambda group: [echo] if group == plugins.GENERATORS else [])
    plugins.generators.cache_clear()
    yield
    plugins.generators.cache_clear()


def test_ask_prints_the_quote_first_and_the_checked_sentences_beneath(tmp_path, echo_model):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "r.md").write_text(
        "---\ndate: 2019-05-01\ntitle: Report\n---\n"
        "The inflation rate was 9 per cent in the spring of 2019.", encoding="utf-8")
    db = str(tmp_path / "t.db")
    assert CliRunner().invoke(cli, ["-d", db, "index", str(tmp_path / "docs")]).exit_code == 0
    args = ["-d", db, "ask", "What was the inflation rate in 2019?", "--as-of", "2024-01-01",
            "--model", "echo:The inflation rate was 9 per cent in 2019 [1]."]
    r = CliRunner().invoke(cli, args)
    j = CliRunner().invoke(cli, [*args, "--json"])
    assert r.exit_code == 0, r.output
    quote, generated = r.stdout.split("\n\n")[:2]
    assert quote == "“The inflation rate was 9 per cent in the spring of 2019.” [1] (1 May 2019)."
    assert generated == "The inflation rate was 9 per cent in 2019 [1] (1 May 2019)."
    assert "No generated sentence" not in r.stdout
    one = json.loads(j.stdout)
    assert one["answer"] == generated and "shown" not in one and not one["extractive"]


def test_ask_explain_lists_the_judges_dropped_sources(tmp_path, echo_model):
    (tmp_path / "docs").mkdir()
    for day, text in (("2019-05-01", "The inflation rate was 9 per cent in the spring of 2019."),
                      ("2019-06-01", "Inflation stayed at 9 per cent in June 2019.")):
        (tmp_path / "docs" / f"{day}.md").write_text(
            f"---\ndate: {day}\ntitle: Report {day}\n---\n{text}", encoding="utf-8")
    db = str(tmp_path / "t.db")
    assert CliRunner().invoke(cli, ["-d", db, "index", str(tmp_path / "docs")]).exit_code == 0
    args = ["-d", db, "ask", "What was the inflation rate in 2019?", "--as-of", "2024-01-01",
            "--evidence-only", "--judge", "echo:No.", "--explain"]
    r = CliRunner().invoke(cli, args)
    j = CliRunner().invoke(cli, [*args, "--json"])
    assert r.exit_code == 0, r.output
    assert "The relevance judge kept none of the sources" in r.stdout
    assert "Relevance judge: kept 0 of 2" in r.stdout
    assert r.stdout.count("dropped: [") == 2 and "said 'No.'" in r.stdout
    assert [v["keep"] for v in json.loads(j.stdout)["judge"]] == [False, False]
