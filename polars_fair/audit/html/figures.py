"""The numbers of an audit page: its rows, one count table, every analysis, the groups shown.

:func:`compute_tables` scans the rows once into the count table (once more into the score table
with ``y_score``) and computes every table of the page from it, with one reference group for all
of them; :func:`choose_groups` picks the groups the tables and charts show. The section builders
(:mod:`polars_fair.audit.html.sections`) only lay these out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair.audit.html.provenance import _plain
from polars_fair.audit.html.text import _describe, _group, _reference_label
from polars_fair.core.options import Adjust
from polars_fair.core.reference import Reference
from polars_fair.core.spec import IntoExpr, NullGroups

if TYPE_CHECKING:
    from polars_fair.api.objects import FairCounts, FairScores
    from polars_fair.audit.permutation_process import PendingTest, PermutationProcess


@dataclass(frozen=True)
class PageOptions:
    """The options of one page, as :func:`polars_fair.audit.html.audit_html` checked them."""

    y_true: IntoExpr
    y_pred: IntoExpr | None
    y_score: IntoExpr | None
    threshold: float | None
    pos_label: Any
    reference: Reference
    min_support: int
    ofi_threshold: float
    four_fifths: float
    exclude_low_support: bool
    where: str | pl.Expr | None
    null_groups: NullGroups
    rates: tuple[str, ...]
    level: float
    adjust: Adjust
    n_permutations: int
    seed: int
    sample_weight: IntoExpr | None
    page_groups: int
    strata: tuple[str, ...] | None = None


@dataclass(frozen=True)
class PageTables:
    """Every table of the page, computed from one count table (and one score table)."""

    counts: pl.DataFrame
    keys: list[str]
    fc: FairCounts
    fs: FairScores | None
    scores: pl.DataFrame | None
    ref: Any
    ab_ref: Any
    report: pl.DataFrame
    overall: dict[str, Any]
    summary: pl.DataFrame
    metrics: pl.DataFrame
    disparity: pl.DataFrame
    abroca: pl.DataFrame | None
    pending_tests: PendingTest | None
    roc_reason: str | None
    untested: str | None
    divergence: pl.DataFrame | None

    @property
    def tests(self) -> pl.DataFrame | None:
        """The ABROCA test's table (waiting for the helper process the first time), or None."""
        return None if self.pending_tests is None else self.pending_tests.result()


@dataclass(frozen=True)
class PageGroups:
    """The groups the tables and charts show: the reference(s), then the largest.

    ``report`` and ``metrics`` are those tables restricted to the shown groups (``metrics``
    with each group's ``low_support``); the verdicts and the gate cover every group.
    """

    keys: list[str]
    shown: pl.DataFrame
    must: list[pl.DataFrame]
    n_groups: int
    left_out: int
    left_names: list[str]
    report: pl.DataFrame
    metrics: pl.DataFrame
    ref_label: str

    def on_page(self, frame: pl.DataFrame) -> pl.DataFrame:
        """The rows of ``frame`` whose group is shown (all of them when none is left out)."""
        if not self.left_out:
            return frame
        return frame.join(self.shown, on=self.keys, how="semi", nulls_equal=True,
                          maintain_order="left")


def row_sizes(lf: pl.LazyFrame, by_exprs: Sequence[pl.Expr], where: str | pl.Expr | None
              ) -> tuple[pl.Expr | None, dict[str, Any], int]:
    """The row filter, and the rows in, kept and with a missing group value (one cheap scan).

    Returns the filter (or None), ``{"total", "kept", "null_rows"}`` and the input's columns.
    A ``by`` column the input lacks is named before the scan (``"race,sex"``: pass a list).
    """
    from polars_fair import errors as E

    schema = lf.collect_schema()
    for col in (c for e in by_exprs for c in e.meta.root_names()):
        if col not in schema:
            raise E.ColumnNotFoundError(E.missing_column(col, "by", schema.names()))
    if isinstance(where, str):  # SQL over the input's columns only: nothing else is read
        from polars_fair.core.sql import check_built_bytes, sql_expr

        condition: pl.Expr | None = sql_expr(where, schema, "where")
        check_built_bytes(lf, [("where", where)])  # its values over every row: bounded
    else:
        condition = where
    kept = condition.fill_null(False) if condition is not None else pl.repeat(True, pl.len())

    def missing(e: pl.Expr) -> pl.Expr:  # NaN in a float attribute is missing, as null
        float_key = lf.select(e).collect_schema().dtypes()[0].is_float()
        return (e.is_null() | e.is_nan()) if float_key else e.is_null()

    null_rows = pl.any_horizontal([missing(e) for e in by_exprs])
    size = lf.select(
        total=pl.len(), kept=kept.sum(), null_rows=(kept & null_rows).sum()
    ).collect().row(0, named=True)
    return condition, size, len(lf.collect_schema())


def compute_tables(audited: pl.LazyFrame, by: Any, o: PageOptions,
                   divergence: bool | pl.DataFrame | pl.LazyFrame | None,
                   helper: PermutationProcess | None = None) -> PageTables:
    """One scan into the count table (and the score table); every table below from it.

    The ABROCA test is sent to ``helper`` (:mod:`polars_fair.audit.permutation_process`) as
    soon as its groups are known, and read when the page first needs it (``PageTables.tests``).
    """
    from polars_fair.api.external import from_counts, from_scores
    from polars_fair.api.namespace import fair
    from polars_fair.audit.gate import resolve_gate_reference
    from polars_fair.core.spec import DEFAULT_MAX_GROUPS
    from polars_fair.counting.tables import keys_of

    counts = fair(audited).confusion(
        by, y_true=o.y_true, y_pred=o.y_pred, pos_label=o.pos_label, null_groups=o.null_groups,
        y_score=o.y_score if o.threshold is not None else None, threshold=o.threshold,
        max_groups=max(o.page_groups, DEFAULT_MAX_GROUPS), sample_weight=o.sample_weight,
    ).collect()
    keys = keys_of(counts)
    fc = from_counts(counts, keys)
    fs: FairScores | None = None
    scores = None
    if o.y_score is not None:
        scores = fair(audited).scores(
            by, y_true=o.y_true, y_score=o.y_score, pos_label=o.pos_label,
            null_groups=o.null_groups, sample_weight=o.sample_weight,
        ).collect()
        fs = from_scores(scores, keys)
    # one reference for every table and chart of the page (report, summary, ABROCA, ROC)
    ref = resolve_gate_reference(fc, None if o.reference.is_overall else fs, o.reference,
                                 min_support=o.min_support,
                                 exclude_low_support=o.exclude_low_support)
    abroca = tests = None
    ab_ref = ref
    if fs is not None and o.reference.is_overall:  # ABROCA compares with a group: the largest
        ab_ref = resolve_gate_reference(fc, fs, "largest", min_support=o.min_support,
                                        exclude_low_support=o.exclude_low_support)
    roc_reason: str | None = None  # why no ROC curve comparison can be made, if none can
    untested: str | None = None  # why the ABROCA test was not run, if it was not
    if fs is not None:  # first: the test then runs in the helper while the tables below compute
        from polars_fair.audit.html.tables import _roc_reason

        abroca = fs.abroca(reference=ab_ref).collect()
        roc_reason = _roc_reason(abroca, keys)
        if roc_reason is None and scores is not None:
            tests, untested = _abroca_tests(o, scores, abroca, keys, ab_ref, helper)
    report = fc.report(
        reference=ref, min_support=o.min_support, ofi_threshold=o.ofi_threshold,
        four_fifths=o.four_fifths, exclude_low_support=o.exclude_low_support,
    ).collect()
    overall = fc.report(by=[], reference="overall").collect().row(0, named=True)
    summary = fc.summary(
        reference=ref, min_support=o.min_support, exclude_low_support=o.exclude_low_support,
        four_fifths=o.four_fifths, ofi_threshold=o.ofi_threshold,
    ).collect()
    metrics = fc.metrics(level=o.level, min_support=o.min_support).collect()
    disparity = pl.concat([
        fc.disparity(reference=ref, metric=m, level=o.level, adjust=o.adjust).collect()
        for m in o.rates
    ], how="vertical_relaxed")
    divergence_table = None
    if divergence is True:
        divergence_table = fc.divergence(level=o.level, min_denominator=o.min_support).collect()
    elif isinstance(divergence, (pl.DataFrame, pl.LazyFrame)):
        divergence_table = divergence.collect() if isinstance(divergence, pl.LazyFrame) \
            else divergence
    return PageTables(counts=counts, keys=keys, fc=fc, fs=fs, scores=scores, ref=ref,
                      ab_ref=ab_ref, report=report, overall=overall, summary=summary,
                      metrics=metrics, disparity=disparity, abroca=abroca, pending_tests=tests,
                      roc_reason=roc_reason, untested=untested, divergence=divergence_table)


def testable(min_support: float) -> pl.Expr:
    """A group's ABROCA can be tested: :func:`polars_fair.audit.gate.testable`, the one rule.

    At least ``min_support`` positives and negatives; ``check --max-abroca`` uses the same.
    """
    from polars_fair.audit.gate import testable as rule

    return rule(min_support)


def _abroca_tests(o: PageOptions, scores: pl.DataFrame, abroca: pl.DataFrame,
                  keys: list[str], ab_ref: Any, helper: PermutationProcess | None = None,
                  ) -> tuple[PendingTest | None, str | None]:
    """The ABROCA test of the testable groups against the reference, or why it was not run.

    Only the groups with at least ``min_support`` positives and negatives (:func:`testable`)
    are tested, and Holm's adjustment is over them: a smaller group's ABROCA is not a finding,
    and permuting it would only cost time. The test is sent to ``helper`` if there is one
    (the same call, run there); its plan is made here, raising its errors now.
    """
    from polars_fair.api.external import from_scores
    from polars_fair.audit.permutation_process import PendingTest

    if o.sample_weight is not None:
        return None, ("the permutation test needs unweighted rows (sample weights are not "
                      "exchangeable units)")
    chosen = abroca.filter(testable(o.min_support) | pl.col("is_reference")).select(keys)
    if chosen.height < 2:
        return None, (f"no group other than the reference has at least {o.min_support} "
                      f"positives and {o.min_support} negatives")
    table = scores.join(chosen, on=keys, how="semi", nulls_equal=True)
    plan = from_scores(table, keys).abroca_test(reference=ab_ref, n_permutations=o.n_permutations,
                                                seed=o.seed, progress=False)
    pending = (helper.submit(table, keys, ab_ref, o.n_permutations, o.seed)
               if helper is not None else None)
    return PendingTest(plan, pending), None


def choose_groups(t: PageTables, page_groups: int) -> PageGroups:
    """The largest groups and the reference(s), at most ``page_groups`` of them."""
    keys, report = t.keys, t.report
    n_groups = report.height
    must = [report.filter(pl.col("is_reference")).select(keys)]
    if t.abroca is not None:
        must.append(t.abroca.filter(pl.col("is_reference")).select(keys))
    largest = report.with_row_index("__pf_row").sort(
        ["n", "__pf_row"], descending=[True, False]).select(keys)
    shown = pl.concat([*must, largest]).unique(keys, keep="first", maintain_order=True
                                               ).head(page_groups)
    left_out = n_groups - shown.height
    left_names = [_group(r, keys) for r in report.join(
        shown, on=keys, how="anti", nulls_equal=True).iter_rows(named=True)]
    groups = PageGroups(keys=keys, shown=shown, must=must, n_groups=n_groups,
                        left_out=left_out, left_names=left_names, report=report,
                        metrics=t.metrics, ref_label=_reference_label(report, keys))
    report_page = groups.on_page(report)
    # the one low-support rule (n < min_support of the group) for the rates chart's faint bars
    group_low = report_page.select(*keys, pl.col("low_support").alias("__pf_low"))
    metrics = groups.on_page(t.metrics).join(group_low, on=keys, how="left", nulls_equal=True,
                                             maintain_order="left").with_columns(
        low_support=pl.col("__pf_low")).drop("__pf_low")
    return replace(groups, report=report_page, metrics=metrics)


def page_params(o: PageOptions, t: PageTables, ref_label: str) -> dict[str, Any]:
    """Every input of the numbers on the page, for the provenance (expressions as text)."""
    threshold_text = (f"{_describe(o.y_score)} >= {o.threshold}" if o.threshold is not None
                      else None)
    params: dict[str, Any] = {
        "by": list(t.keys),
        "y_true": _describe(o.y_true),
        "y_pred": threshold_text or _describe(o.y_pred if o.y_pred is not None else "y_pred"),
        "y_score": None if o.y_score is None else _describe(o.y_score),
        "threshold": o.threshold, "pos_label": o.pos_label,
        "sample_weight": None if o.sample_weight is None else _describe(o.sample_weight),
        "reference": (o.reference.argument if isinstance(o.reference.argument, str)
                      else _plain(o.reference.argument)),
        "reference_group": ref_label,
        "min_support": o.min_support, "four_fifths": o.four_fifths,
        "ofi_threshold": o.ofi_threshold, "exclude_low_support": o.exclude_low_support,
        "null_groups": o.null_groups, "level": o.level, "adjust": o.adjust,
        "rates": list(o.rates), "max_groups": o.page_groups,
    }
    if t.fs is not None:
        params.update(abroca_reference=_reference_label(t.abroca, t.keys)
                      if t.abroca is not None else None,
                      n_permutations=o.n_permutations, seed=o.seed)
    return params
