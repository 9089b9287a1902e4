"""``polars-fair check --baseline-pred OLD``: the gate on change, counted from the command line.

The decision is :func:`polars_fair.audit.change_gate.change_gate`; this module only counts the
rows of the command line into the paired count table (:func:`polars_fair.paired_counts`) and
formats the gate's frame, beside the absolute gate of ``check``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import polars as pl

from polars_fair.api.compare import paired_counts
from polars_fair.cli.io import Inputs, column_or_sql
from polars_fair.cli.numbers import json_number, number_text
from polars_fair.core.options import DEFAULTS

__all__ = ["check_change", "format_change"]


def check_change(
    args: Inputs,
    baseline_text: str,
    *,
    max_impact_ratio_drop: float | Decimal = 0.05,
    max_ofi_increase: float | Decimal = 0.05,
    level: float = DEFAULTS.level,
    min_support: float = DEFAULTS.min_support,
    null_groups: str = "keep",
    sample_weight: Any = None,
) -> dict[str, Any]:
    """The change gate of ``polars-fair check --baseline-pred`` as JSON data.

    Parameters
    ----------
    args : Inputs
        The resolved command-line inputs (:func:`polars_fair.cli.io.resolve_inputs`); its
        ``y_pred`` is the candidate.
    baseline_text : str
        ``--baseline-pred``: the baseline's prediction, a column or a SQL expression.
    max_impact_ratio_drop, max_ofi_increase : float or Decimal, default 0.05
        The limits of :func:`polars_fair.audit.change_gate.change_gate`.
    level : float, default 0.95
        The level of the paired intervals.
    min_support : int or float, default 30
        Rows a group needs to be checked.
    null_groups : {"keep", "raise", "drop"}, default "keep"
        As ``df.fair.report``.
    sample_weight : str or pl.Expr, optional
        ``--sample-weight``, resolved: the paired table is weighted (the intervals count the
        rows of positive weight).

    Returns
    -------
    dict
        ``passed`` (bool), ``baseline`` (the text given), ``limits`` and ``violations`` (each
        ``group``, ``metric``, ``baseline``, ``value``, ``change_low``, ``change_high``,
        ``message``).

    Raises
    ------
    PolarsFairError
        Bad input, as :func:`polars_fair.paired_counts` and
        :func:`polars_fair.audit.change_gate.change_gate`.

    Examples
    --------
    >>> from polars_fair.cli.io import resolve_inputs
    >>> lf = pl.LazyFrame({"g": ["a", "b"] * 50, "y_true": [1, 0] * 50, "new": [1, 0] * 50,
    ...                    "old": [1, 1] * 50})
    >>> args = resolve_inputs(lf, ["g"], y_true_text="y_true", y_pred_text="new",
    ...                       y_score_text=None, pos_label_text=None, reference_text=None,
    ...                       where=None)
    >>> result = check_change(args, "old")
    >>> result["passed"], [(v["group"], v["metric"]) for v in result["violations"]]
    (False, [('g=b', 'impact_ratio')])
    """
    from polars_fair.audit.change_gate import change_gate

    assert args.y_pred is not None
    baseline = column_or_sql(baseline_text, args.lf.collect_schema(), "--baseline-pred")
    nulls: Any = null_groups
    paired = paired_counts(args.lf, args.by, y_pred=args.y_pred, baseline=baseline,
                           y_true=args.y_true, pos_label=args.pos_label, null_groups=nulls,
                           sample_weight=sample_weight)
    table = change_gate(paired, reference=args.reference, level=level,
                        max_impact_ratio_drop=max_impact_ratio_drop,
                        max_ofi_increase=max_ofi_increase, min_support=min_support)
    failed = table.filter(pl.col("checked") & ~pl.col("passed"))
    return {
        "passed": failed.height == 0,
        "baseline": baseline_text,
        "limits": {"max_impact_ratio_drop": json_number(max_impact_ratio_drop),
                   "max_ofi_increase": json_number(max_ofi_increase),
                   "level": json_number(level)},
        "violations": [{"group": r["group"], "metric": r["metric"], "baseline": r["baseline"],
                        "value": r["value"], "change_low": r["change_low"],
                        "change_high": r["change_high"], "message": r["reason"]}
                       for r in failed.iter_rows(named=True)],
    }


def format_change(result: dict[str, Any]) -> str:
    """The text of the change gate, one line per failed group and check.

    Parameters
    ----------
    result : dict
        :func:`check_change`'s result.

    Returns
    -------
    str
        A headline (PASS or FAIL against the baseline) and the failures' messages.

    Examples
    --------
    >>> print(format_change({"passed": True, "baseline": "old", "violations": [],
    ...                      "limits": {"max_impact_ratio_drop": 0.05, "max_ofi_increase": 0.05,
    ...                                 "level": 0.95}}))  # doctest: +NORMALIZE_WHITESPACE
    change against baseline old: PASS (impact ratio drop <= 0.05, |ofi| increase <= 0.05,
    or not shown real by the paired 95% interval)
    """
    lim = result["limits"]
    head = (f"change against baseline {result['baseline']}: "
            f"{'PASS' if result['passed'] else 'FAIL'} (impact ratio drop <= "
            f"{number_text(lim['max_impact_ratio_drop'])}, |ofi| increase <= "
            f"{number_text(lim['max_ofi_increase'])}, "
            f"or not shown real by the paired {_percent(lim['level'])} interval)")
    return "\n".join([head, *(f"  {v['message']}" for v in result["violations"])])


def _percent(level: Any) -> str:
    """A level as a percentage (``90%``); one no float spells as its own text (``level 0.9...``)."""
    return f"level {level}" if isinstance(level, str) else f"{100 * level:g}%"
