"""Oracles from the seed documents (../shared/seeds, kept in the steering repo)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from tests.conftest import Runner


def _frame(cells: dict[str, tuple[int, int, int, int]]) -> pl.DataFrame:
    """Rows from per-group confusion cells (TP, FN, FP, TN), the column order of the papers."""
    parts = []
    for g, (tp, fn, fp, tn) in cells.items():
        parts.append(
            pl.DataFrame(
                {
                    "group": [g] * (tp + fn + fp + tn),
                    "y_true": [1] * tp + [1] * fn + [0] * fp + [0] * tn,
                    "y_pred": [1] * tp + [0] * fn + [1] * fp + [0] * tn,
                }
            )
        )
    return pl.concat(parts)


# Briscoe et al., "Facets of Disparate Impact", Table 1: (TP, FN, FP, TN) for groups i and j.
TABLE_1 = {
    # A: B_i = 0, B_j = 1/18 -> OFI = -1/18 = -0.056; DI = (1/6)/(8/18) = 0.375
    "A": ({"i": (1, 0, 0, 5), "j": (7, 0, 1, 10)}, -1 / 18, 0.375),
    # B: B_i = -1/6, B_j = -7/18 -> OFI = 2/9 = 0.222; DI = (0/6)/(0/18) is 0/0 -> null
    "B": ({"i": (0, 1, 0, 5), "j": (0, 7, 0, 11)}, 2 / 9, None),
    # alpha: B_i = -1/7, B_j = -7/19 -> OFI = 0.226; DI = (1/7)/(1/19) = 19/7 = 2.714
    "alpha": ({"i": (1, 1, 0, 5), "j": (1, 7, 0, 11)}, -1 / 7 + 7 / 19, 19 / 7),
}


@pytest.mark.parametrize("scenario", list(TABLE_1))
def test_ofi_paper_table_1(run: Runner, scenario: str) -> None:
    cells, ofi, di = TABLE_1[scenario]
    out = run(_frame(cells), "report", "group", reference="j", min_support=0)
    row = out.filter(pl.col("group") == "i").row(0, named=True)
    assert row["ofi"] == pytest.approx(ofi)
    assert round(row["ofi"], 3) == {"A": -0.056, "B": 0.222, "alpha": 0.226}[scenario]
    if di is None:
        assert row["disparate_impact"] is None  # the paper: NaN, "1 by context"; we say null
    else:
        assert row["disparate_impact"] == pytest.approx(di)
        assert round(row["disparate_impact"], 3) == {"A": 0.375, "alpha": 2.714}[scenario]


def handbook_example() -> pl.DataFrame:
    """The handbook chapter's synthetic biased classifier, regenerated with its own seeded code."""
    np.random.seed(42)
    n = 1000
    group = np.random.randint(0, 2, n)
    y_true = np.random.randint(0, 2, n)
    y_pred = np.zeros(n, dtype=int)
    for i in range(n):
        if group[i] == 0:
            if y_true[i] == 1:
                y_pred[i] = 1 if np.random.random() < 0.85 else 0
            else:
                y_pred[i] = 1 if np.random.random() < 0.15 else 0
        else:
            if y_true[i] == 1:
                y_pred[i] = 1 if np.random.random() < 0.55 else 0
            else:
                y_pred[i] = 1 if np.random.random() < 0.15 else 0
    return pl.DataFrame({"group": group, "y_true": y_true, "y_pred": y_pred})


def test_handbook_worked_example(run: Runner) -> None:
    out = run(handbook_example(), "report", "group", reference=0)
    g0, g1 = out.row(0, named=True), out.row(1, named=True)
    # the chapter prints: PPR 0.498 / 0.300, TPR 0.853 / 0.477, FPR 0.181 / 0.139
    assert (round(g0["selection_rate"], 3), round(g1["selection_rate"], 3)) == (0.498, 0.300)
    assert (round(g0["tpr"], 3), round(g1["tpr"], 3)) == (0.853, 0.477)
    assert (round(g0["fpr"], 3), round(g1["fpr"], 3)) == (0.181, 0.139)
    assert (round(g0["accuracy"], 3), round(g1["accuracy"], 3)) == (0.835, 0.678)
    # The chapter's own check says "DIR 1.660 >= 0.8 (passes the 80% rule)": it divides the
    # advantaged group by the disadvantaged one. The rule compares each group with the highest
    # rate: 0.300 / 0.498 = 0.602 < 0.8, so group 1 shows adverse impact.
    assert round(g1["impact_ratio"], 3) == 0.602
    assert g1["adverse_impact"] is True
    assert g0["adverse_impact"] is False
