"""The compare panel: a DataFrame a figure by a scenario, shown as a table."""

from __future__ import annotations

from dashboard.infra import results
from dashboard.panels import compare
from model import parse_query


class TestCompare:
    def test_the_frame_has_a_row_a_figure_and_a_column_a_scenario(self):
        a, b = (results.result(parse_query(q).scenario) for q in ("fail=st3", "fabric=eth-x72"))
        df = compare.frame(a, b)
        assert list(df.columns) == [a["scenario"]["key"], b["scenario"]["key"], ""]
        assert list(df.index) == [name for name, _ in compare.ROWS]
        assert df.loc["worst GPU in service, TB/s", a["scenario"]["key"]] == "3.2"
        assert df.loc["fabric", b["scenario"]["key"]] == b["fabric"]["name"]
        table = compare.compare("?fail=st3", "fabric=eth-x72")["table"]
        rows = table.children
        assert len(rows) == 1 + len(compare.ROWS)
        assert [c.children for c in rows[1].children] == [
            "fabric",
            a["fabric"]["name"],
            df.iloc[0, 1],
            compare.DIFFERS,
        ]
        for row in rows[1:]:  # a row is marked where, and only where, the two differ
            a_cell, b_cell, mark = (c.children for c in row.children[1:])
            assert (row.className == "differs") == (a_cell != b_cell) == (mark == "differs")
        same = compare.compare("?fail=st3", "fail=st3")["table"].children[1:]
        assert {r.className for r in same} == {None}

    def test_no_raw_none_or_float_and_a_dash_for_what_does_not_apply(self):
        a, b = (
            results.result(parse_query(q).scenario)
            for q in ("fail=st3", "fabric=eth-x72&fail=st3&off=reroute")
        )
        df = compare.frame(a, b)
        cells = [str(v) for v in df.to_numpy().ravel()]
        assert not [c for c in cells if c in ("None", "0.0") or c.endswith(".0")]
        decoded = f"{a['decode']['tokens_per_s_per_gpu']:,.0f}"  # the model's one answer
        assert df.loc["decode, tokens/s per GPU"].tolist()[:2] == [decoded, "0 (aborted)"]
        assert df.loc["training step, s"].iloc[1] == "— (job aborted)"
        assert df.loc["in-network compute, TFLOPS"].iloc[1] == "— (none on Ethernet)"

    def test_a_bad_second_scenario_is_named(self):
        out = compare.compare("?fail=st3", "fail=st99")
        assert "st99" in str(out["table"]) and "msg error" in str(out["table"])
