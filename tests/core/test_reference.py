"""The reference, resolved once (issue 18, item 2): one value every analysis receives.

A ``reference=`` argument is parsed into a :class:`Reference` where a call comes in (the
analysis objects, the gate, the HTML audit, the command line); every analysis uses that value as
it is, so every analysis given the same reference picks the same group.
"""

from __future__ import annotations

import json
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.audit.gate import gate, gate_reference, resolve_gate_reference
from polars_fair.audit.html import audit_html, page_data
from polars_fair.cli.entry import app
from polars_fair.core.reference import Reference


def _rows() -> pl.DataFrame:
    """Three groups; by hand: a has 10 rows and selects 2 (0.2), b 40 rows and 20 (0.5), c 35 rows
    and 21 (0.6). So "largest" is b (40 > 35 > 10) and "max_selection_rate" is c (0.6 > 0.5 >
    0.2); a and c are supported (>= 30 rows) only for b and c. Every group holds both classes and
    distinct scores, so each has a ROC curve."""
    parts = []
    for g, n, selected in (("a", 10, 2), ("b", 40, 20), ("c", 35, 21)):
        parts.append(pl.DataFrame({
            "g": [g] * n,
            "y": [i % 2 for i in range(n)],
            "p": [1] * selected + [0] * (n - selected),
            "s": [(i + 0.5) / n for i in range(n)],
        }))
    return pl.concat(parts)


ROWS = _rows()
COUNT_ARGS: dict[str, Any] = {"y_true": "y", "y_pred": "p"}


def _fc() -> polars_fair.FairCounts:
    return polars_fair.counts(ROWS, "g", **COUNT_ARGS)


def _fs() -> polars_fair.FairScores:
    return polars_fair.scores(ROWS, "g", y_true="y", y_score="s")


def _flagged(frame: pl.LazyFrame | pl.DataFrame) -> list[Any]:
    return frame.lazy().filter(pl.col("is_reference")).select("g").collect()["g"].to_list()


def test_a_reference_passes_through_parse_unchanged() -> None:
    ref = Reference.parse({"g": "a"})
    assert Reference.parse(ref) is ref
    assert Reference.parse(ref, ["g"]) is ref
    assert ref.argument == {"g": "a"} and not ref.is_rule
    assert Reference.parse("largest").rule == "largest"
    assert Reference.parse("overall").is_overall


def test_parse_of_a_mapping_keeps_its_order_and_restricts_per_set() -> None:
    ref = Reference.parse({"race": "W", "sex": "M"})
    assert ref.for_set(["sex"]).argument == {"sex": "M"}
    assert ref.for_set(["race", "sex"]) is ref  # not a strict subset: itself
    assert ref.renamed({"race": "k0"}).argument == {"k0": "W", "sex": "M"}


def test_the_object_parses_the_raw_argument_once_for_every_set(
        monkeypatch: pytest.MonkeyPatch) -> None:
    raw: list[Any] = []
    original = Reference.parse.__func__  # type: ignore[attr-defined]

    def spy(cls: type[Reference], reference: Any, keys: Any = None) -> Reference:
        if not isinstance(reference, Reference):
            raw.append(reference)
        return original(cls, reference, keys)  # type: ignore[no-any-return]

    monkeypatch.setattr(Reference, "parse", classmethod(spy))
    two = ROWS.with_columns(h=pl.col("s") > 0.5)
    fc = polars_fair.counts(two, ["g", "h"], **COUNT_ARGS)
    fc.report(reference={"g": "b", "h": True}, combinations="all", min_support=1).collect()
    assert raw == [{"g": "b", "h": True}]  # three attribute sets, one parse
    raw.clear()
    _fs().abroca(reference="b").collect()
    assert raw == ["b"]


def test_every_plan_receives_the_resolved_value_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Reference] = []
    flag, index = Reference.flag, Reference.index

    def spy_flag(self: Reference, *a: Any, **k: Any) -> Any:
        seen.append(self)
        return flag(self, *a, **k)

    def spy_index(self: Reference, *a: Any, **k: Any) -> Any:
        seen.append(self)
        return index(self, *a, **k)

    monkeypatch.setattr(Reference, "flag", spy_flag)
    monkeypatch.setattr(Reference, "index", spy_index)
    ref = Reference.parse("largest")
    fc, fs = _fc(), _fs()
    fc.report(reference=ref).collect()
    fc.disparity(reference=ref).collect()
    fc.summary(method="to_reference", reference=ref).collect()
    fs.abroca(reference=ref).collect()
    fs.abroca_test(reference=ref, n_permutations=9, seed=0).collect()
    assert len(seen) >= 5
    assert all(s is ref for s in seen)


@pytest.mark.parametrize(("reference", "expected"), [
    ("largest", "b"), ("max_selection_rate", "c"), ("a", "a"), ({"g": "c"}, "c"),
])
def test_every_count_analysis_picks_the_same_group(reference: Any, expected: str) -> None:
    fc = _fc()
    ref = Reference.parse(reference)
    for given in (reference, ref):
        assert _flagged(fc.report(reference=given)) == [expected]
        assert _flagged(fc.disparity(reference=given)) == [expected]
        summary = fc.summary(method="to_reference", reference=given).collect()
        dp = summary.filter(pl.col("metric") == "demographic_parity_difference")
        assert dp["group_2"].to_list() == [expected]
        assert _flagged(ROWS.fair.report("g", reference=given, **COUNT_ARGS)) == [expected]
    # a rule becomes the chosen group; an explicit group is returned as given
    assert gate_reference(fc, None, reference) == ({"g": expected} if ref.is_rule else reference)
    checks = gate(fc, reference=reference)
    assert checks.filter(pl.col("is_reference"))["g"].unique().to_list() == [expected]
    page = page_data(audit_html(ROWS, "g", y_true="y", y_pred="p", reference=reference))
    assert [r["g"] for r in page["report"] if r["is_reference"]] == [expected]


@pytest.mark.parametrize(("reference", "text", "expected"), [
    ("largest", "largest", "b"), ("a", "a", "a"),
])
def test_score_analyses_gate_and_cli_pick_the_same_group(reference: Any, text: str,
                                                         expected: str, tmp_path: Any) -> None:
    fc, fs = _fc(), _fs()
    assert _flagged(fs.abroca(reference=reference)) == [expected]
    ref = Reference.parse(reference)
    chosen = resolve_gate_reference(fc, fs, ref)
    if ref.is_rule:  # the rule, applied over the groups with a ROC curve, becomes the group
        assert chosen.argument == {"g": expected}
    else:  # an explicit group is the value given, unchanged
        assert chosen is ref
    checks = gate(fc, fs, reference=reference, max_abroca=1.0)
    assert checks.filter(pl.col("is_reference"))["g"].unique().to_list() == [expected]
    path = tmp_path / "rows.csv"
    ROWS.write_csv(path)
    result = CliRunner().invoke(app, ["report", str(path), "--by", "g", "--y-true", "y",
                                      "--y-pred", "p", "--reference", text, "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    assert [r["g"] for r in rows if r["is_reference"]] == [expected]


def test_a_mapping_naming_an_attribute_not_audited_is_refused_on_every_way_in() -> None:
    # issue 19, kind 7: {"g": "a", "age": 30} while auditing g alone used to drop "age"
    bad = {"g": "a", "age": 30}
    fc, fs = _fc(), _fs()
    calls = [
        lambda: fc.report(reference=bad), lambda: fc.disparity(reference=bad),
        lambda: fc.summary(method="to_reference", reference=bad),
        lambda: fs.abroca(reference=bad), lambda: fs.sweep(thresholds=[0.5], reference=bad),
        lambda: gate(fc, reference=bad),
        lambda: ROWS.fair.report("g", reference=bad, **COUNT_ARGS),
    ]
    for call in calls:
        with pytest.raises(E.InvalidArgumentError) as info:
            call()
        assert str(info.value) == E.BAD_REFERENCE_MAPPING.format(keys=["g"], got=["g", "age"])
