"""No cause is read from constant labels or predictions (issue 20, fix 20a item 5).

"algorithmic" reads the classifier's errors against the labels (OFI) and "systemic" a selection
disparity the errors do not explain. Where ``y_true`` holds one value on every row, the errors
are the selections and OFI restates the selection rates; where ``y_pred`` does, every group is
treated alike and OFI differs only by the base rates. Such a group's finding is
``"constant labels"`` / ``"constant predictions"`` in the report, the command line (``report``
and ``check``) and the HTML page, while the figures stay as computed.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair.analyses.findings import FINDING_MEANINGS, FINDINGS
from polars_fair.cli.entry import app
from tests.conftest import Runner

runner = CliRunner()

#: y_true is 1 on every row; a: 30 of 40 selected, b: 10 of 40.
#: B = (FP - FN) / n: a (0 - 10) / 40 = -0.25, b (0 - 30) / 40 = -0.75; OFI(b) = -0.5, over 0.3
#: (it was "algorithmic"); DI(b) = 0.25 / 0.75 = 1/3 fails four-fifths too.
LABELS = pl.DataFrame({"g": ["a"] * 40 + ["b"] * 40, "y_true": [1] * 80,
                       "y_pred": [1] * 30 + [0] * 10 + [1] * 10 + [0] * 30})
#: y_pred is 1 on every row; a: 30 of 40 positive, b: 5 of 40.
#: B = FP / n: a 10 / 40, b 35 / 40; OFI(b) = 0.625 (it was "algorithmic"); DI = 1.
PREDICTIONS = pl.DataFrame({"g": ["a"] * 40 + ["b"] * 40,
                            "y_true": [1] * 30 + [0] * 10 + [1] * 5 + [0] * 35,
                            "y_pred": [1] * 80})
#: Both sides vary: a: tp 30, tn 10 -> B = 0; b: fn 30, fp 10 -> B = (10 - 30) / 40 = -0.5, so
#: OFI(b) = -0.5 and b stays algorithmic.
VARIED = pl.DataFrame({"g": ["a"] * 40 + ["b"] * 40,
                       "y_true": [1] * 30 + [0] * 10 + [1] * 30 + [0] * 10,
                       "y_pred": [1] * 30 + [0] * 10 + [0] * 30 + [1] * 10})


def test_the_new_findings_are_declared_with_their_meanings() -> None:
    for kind in ("constant labels", "constant predictions"):
        assert kind in FINDINGS and kind in FINDING_MEANINGS
    assert FINDINGS[:2] == ("algorithmic", "systemic")


def test_constant_labels_are_no_algorithmic_finding(run: Runner) -> None:
    out = run(LABELS, "report", "g")
    rows = {r["g"]: r for r in out.iter_rows(named=True)}
    assert rows["b"]["ofi"] == pytest.approx(-0.5)  # the figure stays as computed
    assert rows["b"]["disparate_impact"] == pytest.approx(1 / 3)
    assert rows["b"]["finding"] == "constant labels"
    assert rows["a"]["finding"] == "none"  # the reference: no disparity to attribute


def test_constant_predictions_are_no_algorithmic_finding(run: Runner) -> None:
    out = run(PREDICTIONS, "report", "g")
    rows = {r["g"]: r for r in out.iter_rows(named=True)}
    assert rows["b"]["ofi"] == pytest.approx(35 / 40 - 10 / 40)
    assert rows["b"]["disparate_impact"] == 1.0
    assert rows["b"]["finding"] == "constant predictions"


def test_varied_labels_and_predictions_keep_the_cause() -> None:
    # a: tp 30, tn 10 -> B = 0; b: fn 30, fp 10 -> B = (10 - 30) / 40 = -0.5: OFI -0.5
    out = VARIED.fair.report("g")
    rows = {r["g"]: r for r in out.iter_rows(named=True)}
    assert rows["b"]["ofi"] == pytest.approx(-0.5)
    assert rows["b"]["finding"] == "algorithmic"


def test_every_path_of_the_decision_reads_it_the_same() -> None:
    # weighted (Fraction rows) and many groups (whole-column Int128): labels all 1;
    # groups p0..p149 select both of their 2 rows, q0..q149 none: OFI(q) = (0 - 2)/2 - 0 = -1
    weighted = LABELS.with_columns(w=pl.lit(1.0)).fair.report("g", sample_weight="w")
    assert weighted.filter(pl.col("g") == "b")["finding"].item() == "constant labels"
    groups = [f"p{i:03d}" for i in range(150)] + [f"q{i:03d}" for i in range(150)]
    many = pl.DataFrame({"g": [g for g in groups for _ in range(2)], "y_true": [1] * 600,
                         "y_pred": [1] * 300 + [0] * 300})
    out = many.fair.report("g", min_support=1)
    assert out.height == 300
    assert set(out.filter(pl.col("g").str.starts_with("q"))["finding"]) == {"constant labels"}
    assert set(out.filter(pl.col("g").str.starts_with("q"))["ofi"]) == {-1.0}


def _csv(tmp_path: Path, df: pl.DataFrame) -> str:
    path = tmp_path / "rows.csv"
    df.write_csv(path)
    return str(path)


@pytest.mark.parametrize(("frame", "kind"), [(LABELS, "constant labels"),
                                             (PREDICTIONS, "constant predictions")])
def test_report_and_check_say_the_same(tmp_path: Path, frame: pl.DataFrame, kind: str) -> None:
    path = _csv(tmp_path, frame)
    for command in ("report", "check"):
        result = runner.invoke(app, [command, path, "--by", "g"])
        text = " ".join(result.stdout.split())
        assert f"{kind} (1): g=b" in text, (command, text)
        assert "algorithmic (" not in text and "systemic (" not in text, (command, text)


def test_a_label_typed_wrong_warns_and_reads_no_cause(tmp_path: Path) -> None:
    # the review's case: --y-true "y_true = 2" matches no row (all labels negative): the
    # warning, and no systemic or algorithmic finding beside it
    path = _csv(tmp_path, VARIED)
    result = runner.invoke(app, ["report", path, "--by", "g", "--y-true", "y_true = 2"])
    assert result.exit_code == 0, result.output
    assert "is negative on every one of the 80 rows counted" in result.stderr
    text = " ".join(result.stdout.split())
    assert "algorithmic (" not in text and "systemic (" not in text
    # a: 30 of 40 selected, b: 10 of 40; all labels 0: B = FP / n: 0.75, 0.25 -> OFI(b) -0.5
    assert "constant labels (1): g=b" in text


def test_the_html_page_lists_the_constant_finding_not_a_cause() -> None:
    from polars_fair.audit.html import audit_html

    page = audit_html(LABELS, "g")
    labels = re.findall(r'<li><span class="[a-z]+">([^<]*)</span>', page)
    assert "constant labels" in labels
    assert "algorithmic" not in labels and "systemic" not in labels
