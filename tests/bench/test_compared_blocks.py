"""The comparison bench's scorer: each compared period's line, and whether it cites a gold report."""
from bench.compared_blocks import comparisons, score, topic_of


def test_each_labelled_line_counts_its_periods_and_whether_it_cites_a_gold_report():
    answer = ("May 1993: Federal Reserve Bank of New York [3] (23 June 1993): “Wages rose.”\n"
              "March 2018 and April 2018: Federal Reserve Bank of New York [6] (7 March 2018): "
              "“Wages were up [sic].”")
    docs = {3: "beigebook:1993-06:ny", 6: "beigebook:2018-03:ny"}
    assert score(answer, docs, {"beigebook:1993-05:ny", "beigebook:2018-03:ny"}) == (3, 2, 0)
    assert score(answer, docs, set(), topic_of("wages")) == (3, 0, 3)
    assert score("", docs, {"beigebook:2018-03:ny"}) == (0, 0, 0)


def test_the_comparisons_of_the_question_files_are_read_once_each(tmp_path):
    line = '{"id": "x", "question": "Q", "question_date": "2020-01-01", "category": "comparison"}'
    other = '{"id": "y", "question": "P", "question_date": "2020-01-01", "category": "evolution"}'
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join([line, other, line]), encoding="utf-8")
    assert [q["id"] for q in comparisons([path, path])] == ["x"]


def test_the_topic_is_the_template_topic_the_question_names():
    assert topic_of("Loan demand in Chicago: 1988 versus 2009") == topic_of("loan demand")
    assert topic_of("How did the Chancellor describe it?") == set()
