"""Availability: whether the applicant pool matches a benchmark population.

Adverse-impact practice compares the pool itself with the labour market or the census
(availability analysis, 41 CFR 60-2.14), and the EU AI Act asks whether training data are
"sufficiently representative" (Article 10(3)). Both are one count per value of an attribute
against a benchmark share: an exact binomial test per value and a goodness-of-fit test over the
attribute, read from the count table.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair._lazy import np, sps
from polars_fair.analyses.impact import exact, shortfall
from polars_fair.analyses.report import count_exprs
from polars_fair.core import rules as R
from polars_fair.core.reference import check_value_type
from polars_fair.counting.membership_counts import refuse_weighted_membership

__all__ = [
    "AVAILABILITY_COLUMNS", "availability_from_counts", "benchmark_attributes",
    "check_benchmark_columns",
]

#: The columns :func:`availability_from_counts` adds after the key.
AVAILABILITY_COLUMNS = ("count", "share", "benchmark_share", "expected", "shortfall", "p_value",
                        "gof_statistic", "gof_p_value")
NO_BENCHMARK = E.NO_BENCHMARK
BENCHMARK_SUM = E.BENCHMARK_SUM
BENCHMARK_UNKNOWN = E.BENCHMARK_UNKNOWN
BENCHMARK_MISSING = E.BENCHMARK_MISSING
#: Shares summing to 1 within this (floats such as three shares of 1/3 sum to 0.9999999999999999)
SUM_TOLERANCE = 1e-9


def benchmark_attributes(benchmark: Any) -> list[str]:
    """The attributes a benchmark names, in its order, after checking its form and shares.

    Parameters
    ----------
    benchmark : mapping of str to mapping of value to float
        ``{attribute: {value: share}}``; each attribute's shares lie in [0, 1] and sum to 1.

    Returns
    -------
    list of str

    Raises
    ------
    InvalidArgumentError
        Not a mapping of mappings (:data:`NO_BENCHMARK`), a share that is not a number in [0, 1]
        (naming it), or shares that do not sum to 1 (:data:`BENCHMARK_SUM`).

    Examples
    --------
    >>> benchmark_attributes({"sex": {"F": 0.5, "M": 0.5}})
    ['sex']
    """
    if not isinstance(benchmark, Mapping) or not benchmark or not all(
            isinstance(k, str) and isinstance(v, Mapping) and v for k, v in benchmark.items()):
        raise E.InvalidArgumentError(NO_BENCHMARK.format(value=benchmark))
    for column, shares in benchmark.items():
        for value, share in shares.items():
            R.option(share, f"benchmark[{column!r}][{value!r}]", low=0, high=1)
        total = math.fsum(float(s) for s in shares.values())
        if abs(total - 1.0) > SUM_TOLERANCE:
            written = sum((exact(s) for s in shares.values()), Fraction(0))
            raise E.InvalidArgumentError(BENCHMARK_SUM.format(column=column,
                                                              total=_decimal(written)))
    return list(benchmark)


def check_benchmark_columns(attributes: Sequence[str], available: Sequence[str],
                            by: Sequence[str] | None = None) -> None:
    """Check that every attribute of a benchmark is counted, naming ``benchmark``.

    One decision for every way in: the rows' columns (``df.fair.availability``), the keys of a
    count table (``FairCounts.availability``, the command line, Spark, DuckDB), or the
    attributes of a ``by`` given with the benchmark.

    Parameters
    ----------
    attributes : sequence of str
        The benchmark's attributes (:func:`benchmark_attributes`).
    available : sequence of str
        The columns of the rows, or the keys of the count table.
    by : sequence of str, optional
        The names of ``by`` when it is given: each attribute must be one of them.

    Raises
    ------
    ColumnNotFoundError
        An attribute not in ``available`` (:data:`polars_fair.errors.MISSING_COLUMN`, role
        ``benchmark``).
    InvalidArgumentError
        An attribute that is available but not in ``by``
        (:data:`polars_fair.errors.BENCHMARK_NOT_IN_BY`).

    Examples
    --------
    >>> check_benchmark_columns(["sex"], ["sex", "race"])
    >>> check_benchmark_columns(["age"], ["sex"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.errors.ColumnNotFoundError: column 'age' (benchmark) not found; ...
    >>> check_benchmark_columns(["sex"], ["sex", "race"], by=["race"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: benchmark names 'sex', which is not among ...
    """
    for a in attributes:
        if a not in available:
            raise E.ColumnNotFoundError(E.missing_column(a, "benchmark", available))
        if by is not None and a not in by:
            flags = " ".join(f"--by {shlex.quote(b)}" for b in [*by, a])
            raise E.InvalidArgumentError(
                E.BENCHMARK_NOT_IN_BY.format(column=a, by=list(by)),
                cli_message=E.CLI_BENCHMARK_NOT_IN_BY.format(column=a, by=list(by),
                                                             flags=flags))


def availability_from_counts(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    *,
    benchmark: Mapping[str, Mapping[Any, float]] | None = None,
) -> pl.LazyFrame:
    r"""Each value's share of the rows against its share of a benchmark population.

    For one attribute with values :math:`v`, :math:`N` rows in all and :math:`x_v` with value
    :math:`v`, benchmark shares :math:`\pi_v`:

    * ``share`` :math:`= x_v/N`; ``expected`` :math:`= N\pi_v`; ``shortfall`` :math:`= N\pi_v -
      x_v` (rows missing to the benchmark share; negative: over-represented), computed in
      rationals with each share read as the decimal it is written as (0.07 is 7/100,
      :func:`polars_fair.analyses.impact.exact`), so a value exactly at its share has a
      shortfall of exactly 0 (and the goodness of fit below is computed the same way);
    * ``p_value``: the exact binomial test of :math:`x_v \sim \mathrm{Bin}(N, \pi_v)`, two-sided
      (:func:`scipy.stats.binomtest`: outcomes no more probable than the observed one), the
      per-group availability test of adverse-impact practice;
    * ``gof_statistic``, ``gof_p_value``: Pearson's chi-square goodness of fit over the values,
      :math:`\sum_v (x_v - N\pi_v)^2/(N\pi_v)` on :math:`K - 1` degrees of freedom (:math:`K`
      values with a positive share; a value with share 0 and rows makes it infinite, p 0), the
      same on every row of the attribute (Pearson 1900; EU AI Act Article 10(3)'s "sufficiently
      representative" read as a test).

    The test reads the table's key of that attribute only: a count table keyed by more
    attributes is summed to each attribute of the benchmark first.

    Weighted counts: ``count`` is the weight sum and ``share`` the weighted share (the
    population the weights represent); the tests count rows, the weighted share times the row
    count, and since that is not whole the per-value test is the normal approximation
    :math:`z = (\hat p - \pi_v)/\sqrt{\pi_v(1 - \pi_v)/N}`. Weights summing to 0 define no share:
    ``share`` and every test are null.

    Parameters
    ----------
    counts : pl.LazyFrame
        A count table keyed by one attribute.
    keys : sequence of str
        Its key column (one).
    benchmark : mapping
        The benchmark population's share of each value of each attribute, a mapping from
        attribute to a mapping from value to share, in [0, 1] and summing to 1 per attribute.

    Returns
    -------
    pl.LazyFrame
        One row per value of the benchmark, in its order: the key; ``count`` (Int64 rows;
        Float64 weighted); ``share``, ``benchmark_share``, ``expected``, ``shortfall``,
        ``p_value``, ``gof_statistic``, ``gof_p_value`` (Float64).

    Raises
    ------
    InvalidArgumentError
        A malformed benchmark or shares that do not sum to 1 (:func:`benchmark_attributes`), a
        value of the rows without a share (:data:`BENCHMARK_MISSING`; for rows of unknown
        value, a null key, :data:`polars_fair.errors.BENCHMARK_MISSING_NULL`, which advises
        ``null_groups="drop"``), a value of the wrong
        type; the weighted estimator's count table of estimated membership (with
        ``n_effective``: its test counts rows each in one group;
        ``membership_estimator="argmax"`` gives a crisp table).
    UnknownGroupError
        A benchmark value that no row has (:data:`BENCHMARK_UNKNOWN`).

    Examples
    --------
    >>> import polars as pl
    >>> c = pl.LazyFrame({"sex": ["F", "M"], "n": [30, 70], "tp": [0, 0], "fp": [0, 0],
    ...                   "fn": [30, 70], "tn": [0, 0]})
    >>> a = availability_from_counts(c, ["sex"], benchmark={"sex": {"F": 0.5, "M": 0.5}})
    >>> a.select("sex", "share", "expected", "shortfall").collect().rows()
    [('F', 0.3, 50.0, 20.0), ('M', 0.7, 50.0, -20.0)]
    """
    attributes = benchmark_attributes(benchmark)
    assert benchmark is not None
    if len(keys) == 1 and keys[0] not in attributes:
        check_benchmark_columns(attributes, keys)  # names the first attribute the keys lack
    if len(keys) != 1 or keys[0] not in attributes:
        raise E.InvalidArgumentError(NO_BENCHMARK.format(value=benchmark))
    column = keys[0]
    schema = counts.collect_schema()
    refuse_weighted_membership(schema.names(), "availability", E.MEMBERSHIP_WHY_AVAILABILITY)
    dtype = schema[column]
    shares = {check_value_type(v, dtype, column, "benchmark"): s  # as given: exact() reads it
              for v, s in benchmark[column].items()}
    weighted = "weight_sum" in schema.names()
    c = count_exprs(schema.names())
    table = counts.select(column, c.n.alias("__pf_size"), pl.col("n").alias("__pf_rows"))
    out_schema = pl.Schema({column: dtype, "count": pl.Float64 if weighted else pl.Int64,
                            **{k: pl.Float64 for k in AVAILABILITY_COLUMNS[1:]}})

    def run(df: pl.DataFrame) -> pl.DataFrame:
        size = dict(zip(df[column].to_list(), df["__pf_size"].to_list(), strict=True))
        rows = dict(zip(df[column].to_list(), df["__pf_rows"].to_list(), strict=True))
        missing = [v for v in size if v not in shares]
        if missing == [None]:  # the rows of unknown value: left out, not given a share
            raise E.InvalidArgumentError(E.BENCHMARK_MISSING_NULL.format(
                column=column, rows=rows[None]))
        missing = [v for v in missing if v is not None] or missing  # known values first
        if missing:
            raise E.InvalidArgumentError(BENCHMARK_MISSING.format(
                column=column, values=E.show_values(missing, limit=5)))
        unknown = [v for v in shares if v not in size]
        if unknown:
            raise E.UnknownGroupError(BENCHMARK_UNKNOWN.format(
                column=column, values=E.show_values(unknown, limit=5),
                groups=E.show_values(list(size), limit=10)))
        values = list(shares)
        total, total_rows = sum(size.values()), sum(rows.values())
        x = np.array([size[v] for v in values], dtype=np.float64)
        pi = np.array([float(shares[v]) for v in values])
        share = x / total if total > 0 else np.full(len(values), np.nan)
        observed = share * total_rows  # in rows (the counts themselves when unweighted)
        p = np.full(len(values), np.nan)
        for i in range(len(values)):
            if total_rows == 0:
                continue
            if not weighted:
                p[i] = sps.binomtest(int(x[i]), int(total_rows), float(pi[i])).pvalue
            elif 0 < pi[i] < 1:
                z = (share[i] - pi[i]) / math.sqrt(pi[i] * (1 - pi[i]) / total_rows)
                p[i] = 2 * sps.norm.sf(abs(z))
            elif total > 0:  # a share of 0 or 1: the observed share is either that or impossible
                p[i] = 1.0 if share[i] == pi[i] else 0.0
        positive = pi > 0
        if total_rows == 0 or not total > 0:  # no rows, or weights summing to 0: no shares
            gof, gof_p = math.nan, math.nan
        elif np.any(observed[~positive] > 0):
            gof, gof_p = math.inf, 0.0
        else:
            gof = _gof([size[v] for v in values], [exact(shares[v]) for v in values],
                       total, total_rows)
            gof_p = float(sps.chi2.sf(gof, positive.sum() - 1)) if positive.sum() > 1 else 1.0
        k = len(values)
        short = [shortfall(size[v], total, exact(shares[v]), 1) for v in values]
        expected = [float(exact(shares[v]) * exact(total)) for v in values]

        def col(name: str, v: Any) -> pl.Series:
            return pl.Series(name, np.asarray(v, dtype=np.float64), nan_to_null=True)

        return pl.DataFrame([
            pl.Series(column, values, dtype=dtype),
            pl.Series("count", [size[v] for v in values], dtype=out_schema["count"]),
            col("share", share), col("benchmark_share", pi), col("expected", expected),
            col("shortfall", short), col("p_value", p),
            col("gof_statistic", np.full(k, gof)), col("gof_p_value", np.full(k, gof_p)),
        ])

    return table.map_batches(run, schema=out_schema)


def _gof(counts: Sequence[Any], shares: Sequence[Fraction], total: Any, rows: Any) -> float:
    r"""Pearson's statistic in rationals over the values with a positive share, in rows.

    Observed :math:`x_v/N` times the rows, expected :math:`\pi_v` times the rows: exactly 0
    when every share is met (the same as the counts themselves when unweighted).
    """
    n, r = exact(total), exact(rows)
    stat = sum(((exact(x) / n - s) * r) ** 2 / (s * r)
               for x, s in zip(counts, shares, strict=True) if s > 0)
    return float(stat)


def _decimal(value: Fraction) -> str:
    """A sum of shares as the decimal it is when written out.

    0.333 x 3 is 0.999, not the float 0.9990000000000001; a sum with no finite decimal is
    shown as its nearest float.
    """
    places, d = 0, value.denominator
    while d % 10 == 0 or d % 2 == 0 or d % 5 == 0:  # 2^a 5^b: max(a, b) decimal places
        d //= 10 if d % 10 == 0 else 2 if d % 2 == 0 else 5
        places += 1
    if d != 1:
        return repr(float(value))
    scaled = abs(value.numerator) * 10**places // value.denominator
    whole, frac = divmod(scaled, 10**places)
    text = f"{whole}.{frac:0{places}d}".rstrip("0").rstrip(".") if places else str(whole)
    return ("-" if value < 0 else "") + text
