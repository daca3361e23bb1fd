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


def test_an_answer_of_one_period_counts_once_whatever_its_lines():
    """A current question's answer may quote two sources on two lines: one period, quoted from
    a gold report when any line cites one, on the topic when any line holds it."""
    answer = ("Federal Reserve Bank of Boston [2] (5 May 1999): “Hiring was strong.”\n"
              "Federal Reserve Bank of Boston and others [4] (9 June 1999): “Wages rose.”")
    docs = {2: "beigebook:1999-05:bo", 4: "beigebook:1999-06:bo"}
    assert score(answer, docs, {"beigebook:1999-06:bo"}, topic_of("wages"), whole=True) == (1, 1, 1)
    assert score(answer, docs, {"beigebook:1999-07:bo"}, topic_of("energy"), whole=True) == (1, 0, 0)
    assert score(" \n", docs, set(), whole=True) == (0, 0, 0)


def test_other_categories_are_read_when_asked_for(tmp_path):
    lines = ['{"id": "x", "question": "Q", "question_date": "2020-01-01", "category": "comparison"}',
             '{"id": "y", "question": "P", "question_date": "2020-01-01", "category": "current"}',
             '{"id": "z", "question": "R", "question_date": "2020-01-01", "category": "evolution"}']
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    assert [q["id"] for q in comparisons([path], ("current", "evolution"))] == ["y", "z"]
