"""The gate on change (issue 25, item 2): a real worsening beyond the limit fails, nothing else.

Expected values are worked by hand from paired tables written here; the CLI tests read a small
CSV made in the test.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair import from_paired_counts
from polars_fair.audit.change_gate import CHANGE_FAILED, NOT_REAL, change_gate
from polars_fair.cli.entry import app
from polars_fair.counting.paired import PAIRED_CELLS
from tests.ratio_reference import ratio_change

ZERO = dict.fromkeys(PAIRED_CELLS, 0)
runner = CliRunner()


def _table(n: int, a_sel: int, b_old: int, b_new_only_old: int) -> pl.DataFrame:
    """a: a_sel of n selected by both; b: b_old selected by the baseline, of which
    b_new_only_old lose the candidate's selection (the candidate selects no one else)."""
    return pl.DataFrame([
        {"g": "a", "n": n, **ZERO, "y0_p1_b1": a_sel, "y0_p0_b0": n - a_sel},
        {"g": "b", "n": n, **ZERO, "y0_p1_b1": b_old - b_new_only_old,
         "y0_p0_b1": b_new_only_old, "y0_p0_b0": n - b_old}])


def test_a_real_drop_beyond_the_limit_fails_with_group_values_and_interval() -> None:
    g = change_gate(from_paired_counts(_table(100, 50, 40, 30), labels=False))
    b = g.row(1, named=True)
    # impact ratio of b: 40/50 = 0.8 -> 10/50 = 0.2. The interval combines each model's
    # MOVER-R Wilson interval of the ratio by MOVER-D with the correlation the pairing gives
    # (tests/ratio_reference.py, on scipy's Wilson intervals). It replaced the delta method on
    # Agresti-Min's adjusted cells ([-0.8028, -0.3737] here), which covered about 90 % at 30
    # rows (issue 25 review); that had replaced the plain delta method, which collapses to a
    # point when the models agree.
    low, high = ratio_change((10, 0, 30, 60), (50, 0, 0, 50))
    assert (b["baseline"], b["value"], b["passed"]) == (0.8, 0.2, False)
    assert (b["change_low"], b["change_high"]) == pytest.approx((low, high), rel=1e-9)
    assert (round(low, 4), round(high, 4)) == (-0.7744, -0.4046)
    assert b["reason"] == CHANGE_FAILED.format(
        group="g=b", metric="impact_ratio", before=0.8, after=0.2, worse=0.6, limit=0.05,
        level=95.0, low=b["change_low"], high=b["change_high"])


def test_a_large_drop_the_data_cannot_show_real_passes() -> None:
    # n = 10: b drops from 4/5 (0.8) to 2/5 (0.4), two discordant pairs only
    g = change_gate(from_paired_counts(_table(10, 5, 4, 2), labels=False), min_support=1)
    b = g.row(1, named=True)
    assert (b["baseline"], b["value"]) == (0.8, 0.4)
    assert b["change_high"] > 0 and b["passed"] is True
    assert b["reason"] == NOT_REAL.format(level=95.0, low=b["change_low"], high=b["change_high"])


def test_a_real_drop_of_exactly_the_limit_passes_and_small_groups_are_not_checked() -> None:
    # b: 4000/10000 -> 3750/10000 against a 5000/10000: impact ratio 0.8 -> 0.75, a drop of
    # exactly 0.05 (real: 250 discordant pairs one way)
    g = change_gate(from_paired_counts(_table(10_000, 5000, 4000, 250), labels=False))
    b = g.row(1, named=True)
    assert b["change_high"] < 0 and b["passed"] is True and b["reason"] is None
    g = change_gate(from_paired_counts(_table(10_000, 5000, 4000, 251), labels=False))
    assert g.row(1, named=True)["passed"] is False
    small = change_gate(from_paired_counts(_table(20, 10, 8, 6), labels=False))
    assert small["checked"].to_list() == [False, False]
    assert small["reason"].to_list() == ["n < 30", "n < 30"]


def test_a_real_ofi_rise_fails_with_labels() -> None:
    # b: 100 negatives; the baseline selects 10, the candidate 40 (30 more, all discordant);
    # a: 100 rows, 50 positives selected by both, 50 negatives by neither: B_a = 0.
    t = pl.DataFrame([
        {"g": "a", "n": 100, **ZERO, "y1_p1_b1": 50, "y0_p0_b0": 50},
        {"g": "b", "n": 100, **ZERO, "y0_p1_b1": 10, "y0_p1_b0": 30, "y0_p0_b0": 60}])
    g = change_gate(from_paired_counts(t), max_impact_ratio_drop=1)
    ofi = g.filter((pl.col("metric") == "ofi") & (pl.col("g") == "b")).row(0, named=True)
    # OFI of b = B_b - B_a = FP/n: 0.1 -> 0.4. On Agresti-Min's adjusted cells (1/2 added to
    # each, n = 102) the change is Δsel_b - Δsel_a = (30.5 - 0.5)/102 - 0 = 30/102, and each
    # group's Var(Δsel) = (p12 + p21 - (p12 - p21)^2)/102: b (31 - 30^2/102)/102^2, a (1 -
    # 0)/102^2 (the models agree on a, yet a adds variance: no interval collapses)
    assert (ofi["baseline"], ofi["value"], ofi["passed"]) == (0.1, 0.4, False)
    var = ((31 - 30**2 / 102) + 1) / 102**2
    half = 1.959963984540054 * math.sqrt(var)
    assert ofi["change_low"] == pytest.approx(30 / 102 - half)
    assert ofi["change_high"] == pytest.approx(30 / 102 + half)


def test_limits_are_checked() -> None:
    paired = from_paired_counts(_table(100, 50, 40, 30), labels=False)
    with pytest.raises(E.InvalidArgumentError, match="max_impact_ratio_drop"):
        change_gate(paired, max_impact_ratio_drop=1.5)
    with pytest.raises(E.InvalidArgumentError, match="max_ofi_increase"):
        change_gate(paired, max_ofi_increase=float("nan"))


def _csv(tmp_path: Path) -> Path:
    # a: 100 rows, 50 selected by both; b: 100 rows, old selects 40, new 10 of them
    rows = ([("a", 1, 1, 1)] * 50 + [("a", 0, 0, 0)] * 50 + [("b", 1, 1, 1)] * 10
            + [("b", 1, 0, 1)] * 30 + [("b", 0, 0, 0)] * 60)
    path = tmp_path / "two.csv"
    pl.DataFrame(rows, schema=["g", "y_true", "new", "old"], orient="row").write_csv(path)
    return path


def test_cli_check_with_a_baseline_fails_and_names_the_group(tmp_path: Path) -> None:
    path = _csv(tmp_path)
    args = ["check", str(path), "--by", "g", "--y-pred", "new", "--baseline-pred", "old",
            "--min-impact-ratio", "0", "--max-abs-ofi", "2"]
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    assert "change against baseline old: FAIL" in result.stdout
    assert "g=b: impact_ratio 0.8000 (baseline) -> 0.2000 (candidate)" in result.stdout
    as_json = json.loads(runner.invoke(app, [*args, "--format", "json"]).stdout)
    assert as_json["passed"] is False and as_json["gate_passed"] is True
    # b's labels: 40 positives, the candidate misses 30 of them: B = (FP - FN)/n falls from 0
    # to -0.3 (a: 0), so |OFI| rises by 0.3 too
    assert [(v["group"], v["metric"]) for v in as_json["change"]["violations"]] == [
        ("g=b", "impact_ratio"), ("g=b", "ofi")]
    loose = runner.invoke(app, [*args, "--max-impact-ratio-drop", "0.7",
                                "--max-ofi-increase", "0.35"])
    assert loose.exit_code == 0, loose.output


def test_cli_check_without_a_baseline_is_unchanged(tmp_path: Path) -> None:
    result = runner.invoke(app, ["check", str(_csv(tmp_path)), "--by", "g", "--y-pred", "new",
                                 "--min-impact-ratio", "0", "--max-abs-ofi", "2"])
    assert result.exit_code == 0 and "change against" not in result.stdout


def test_cli_check_level_sets_the_paired_interval_of_the_change(tmp_path: Path) -> None:
    # a: 50 of 100 selected by both models; b: the baseline selects 40, the candidate 32 of
    # them, so b's impact ratio falls from 0.4/0.5 = 0.8 to 0.32/0.5 = 0.64 (change -0.16).
    # The interval: each model's MOVER-R Wilson interval of the ratio, combined by MOVER-D
    # with the pairing's correlation (tests/ratio_reference.py). 95%: [-0.257112, -0.034367]
    # excludes 0, a real drop; 99.9%: [-0.303543, 0.013503] does not. (The delta method on
    # adjusted cells, replaced for its coverage at small n, gave [-0.275440, -0.038286] and
    # [-0.355938, 0.042213]: the same decisions.)
    assert ratio_change((32, 0, 8, 60), (50, 0, 0, 50)) == pytest.approx(
        (-0.257112, -0.034367), abs=1e-6)
    assert ratio_change((32, 0, 8, 60), (50, 0, 0, 50), 0.999) == pytest.approx(
        (-0.303543, 0.013503), abs=1e-6)
    rows = ([("a", 1, 1, 1)] * 50 + [("a", 0, 0, 0)] * 50 + [("b", 1, 1, 1)] * 32
            + [("b", 1, 0, 1)] * 8 + [("b", 0, 0, 0)] * 60)
    path = tmp_path / "level.csv"
    pl.DataFrame(rows, schema=["g", "y_true", "new", "old"], orient="row").write_csv(path)
    args = ["check", str(path), "--by", "g", "--y-pred", "new", "--baseline-pred", "old",
            "--min-impact-ratio", "0", "--max-abs-ofi", "2", "--max-ofi-increase", "2",
            "--format", "json"]
    strict = runner.invoke(app, args)
    assert strict.exit_code == 1, strict.output
    change = json.loads(strict.stdout)["change"]
    assert change["limits"]["level"] == 0.95
    [v] = change["violations"]
    assert (v["change_low"], v["change_high"]) == pytest.approx((-0.257112, -0.034367), abs=1e-6)
    assert "paired 95% interval" in v["message"]
    loose = runner.invoke(app, [*args, "--level", "0.999"])
    assert loose.exit_code == 0, loose.output
    assert json.loads(loose.stdout)["change"]["limits"]["level"] == 0.999
    text = runner.invoke(app, [*args[:-2], "--level", "0.999"]).stdout
    assert "or not shown real by the paired 99.9% interval" in text
    bad = runner.invoke(app, [*args, "--level", "1.5"])
    assert bad.exit_code == 2 and "--level" in bad.stderr


def test_an_ofi_sign_flip_fails_only_when_the_interval_shows_abs_ofi_rose() -> None:
    # the re-review's case: baseline OFI -0.30, candidate +0.375 (|OFI| up 0.075 > 0.05), and
    # the paired 95% interval of the signed change [0.4903, 0.7954]: the candidate's OFI then
    # lies in [-0.30 + 0.4903, -0.30 + 0.7954] = [0.1903, 0.4954], whose smallest |OFI| 0.1903
    # is below the baseline's 0.30, so the rise of |OFI| is not shown: the check passes
    from fractions import Fraction

    from polars_fair.audit.change_gate import _change_verdict
    flip = _change_verdict(False, -0.30, 0.375, 0.4903, 0.7954, Fraction(1, 20), True,
                           Fraction(30), 95.0, "ofi", "g=g")
    assert flip["checked"] is True and flip["passed"] is True
    assert flip["reason"] == NOT_REAL.format(level=95.0, low=0.4903, high=0.7954)
    # a flip far beyond: baseline -0.10, interval [0.50, 0.70] puts the candidate in
    # [0.40, 0.60], every |OFI| there above 0.10: a real rise of 0.50 (candidate 0.40 > 0.05)
    real = _change_verdict(False, -0.10, 0.40, 0.50, 0.70, Fraction(1, 20), True,
                           Fraction(30), 95.0, "ofi", "g=g")
    assert real["checked"] is True and real["passed"] is False
    # no flip: baseline 0.10, candidate 0.30, interval [0.10, 0.30] (excludes 0 above): real
    same = _change_verdict(False, 0.10, 0.30, 0.10, 0.30, Fraction(1, 20), True,
                           Fraction(30), 95.0, "ofi", "g=g")
    assert same["passed"] is False
