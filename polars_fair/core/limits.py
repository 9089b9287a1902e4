"""Size limits of every numeric option that sets an amount of work, declared once.

An option such as ``n_permutations=10**9`` or ``calibration(n_bins=10**9)`` asks for work or
memory that grows with its value; the machine runs out before any result. Each such option has a
documented limit here, in :data:`LIMITS`, checked by :func:`check_size` before any work starts:
a larger value raises :class:`polars_fair.errors.SizeLimitError`, which states the size and names
the option. The raisable limits (``max_groups``, ``max_pairs``, ``max_thresholds``,
``max_patterns``) have a ceiling here too: they may be raised up to it, never past it.

The same table bounds the SQL texts of the command line (``--by``, ``--where``, ...; see
:mod:`polars_fair.core.sql`): their length, the number of operators, the nesting depth, and the
functions whose result can grow past the input (``LPAD``, ``RPAD``, ``REPLACE``,
``REGEXP_REPLACE``).

The documentation's "Size limits" list (``docs/guarantees.md``) is :func:`limits_markdown`,
put in by the site's hook (``docs/hooks/generated.py``, marker ``<!-- generated: limits -->``);
``tests/core/test_limits.py`` checks the page holds the marker and the hook fills it.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from polars_fair import errors as E
from polars_fair.datasets import MAX_HIRING_ROWS

__all__ = ["LIMITS", "Limit", "check_ceiling", "check_size", "check_work", "limit",
           "limits_markdown", "with_limits"]

F = TypeVar("F", bound=Callable[..., Any])
_PLACEHOLDER = re.compile(r"\|limit:(\w+)\|")


@dataclass(frozen=True)
class Limit:
    """One documented limit.

    Parameters
    ----------
    name : str
        The key in :data:`LIMITS` (an option's name, or ``sql_*`` for SQL texts).
    limit : int
        The largest accepted value.
    where : str
        The callables (and command-line options) that take it.
    why : str
        What grows with it.

    Examples
    --------
    >>> LIMITS["n_bins"].limit
    10000
    """

    name: str
    limit: int
    where: str
    why: str


_TABLE = (
    Limit("n_permutations", 1_000_000,
          "`abroca_test`, `audit_html`, `abroca_power`, `power_curve` (`--n-permutations`)",
          "each randomization draw recomputes the ABROCA over the pooled cells"),
    Limit("n_simulations", 100_000, "`abroca_power`, `power_curve`",
          "each simulation draws a test set and runs a randomization test"),
    Limit("n", 10_000_000, "`abroca_power`, `binormal_test_set`, `power_curve(sizes=)`",
          "the rows of one simulated test set"),
    Limit("power_cells", 10_000,
          "`power_curve`: effects (`auc_pairs=` or `delta_aucs=`) x `sizes=`, counted before "
          "the list is read further",
          "each cell runs n_simulations randomization tests of its own"),
    Limit("power_simulations", 200_000,
          "`power_curve`: cells x `n_simulations` (one test set and one randomization test "
          "each)", "a simulation costs about 1.5 ms whatever its size (200,000: about 5 "
          "minutes)"),
    Limit("classes", 1_000,
          "`classes=` of `multiclass_report`, `multiclass_test`, the class table and "
          "`bias_audit`; the categories of an Enum prediction, which declare its classes",
          "each class is a report of every group (about 10 ms a class)"),
    Limit("power_work", 10_000_000_000,
          "`abroca_power`, `power_curve`: n_simulations x n_permutations x n, summed over cells",
          "the row draws of all randomization tests together"),
    Limit("permutation_work", 10_000_000_000,
          "`abroca_test`, `audit_html(n_permutations=)` (`--n-permutations`): n_permutations x "
          "pooled rows (or cells, if fewer) of each tested group and the reference, summed",
          "the rows (or cells) each randomization draw splits"),
    Limit("multiclass_permutations", 1_000_000,
          "`multiclass_test(n_permutations=)` (`multiclass-test --n-permutations`)",
          "each Monte Carlo draw fills a table of groups x classes and computes its chi-square "
          "statistic"),
    Limit("multiclass_work", 100_000_000,
          "`multiclass_test`, `bias_audit` with classes (`--n-permutations`): n_permutations x "
          "groups x classes of a set tested by Monte Carlo (an expected count below 5)",
          "each draw fills every cell of the table from a hypergeometric law, about 0.5 "
          "microseconds a cell (10**8: about a minute), in batches of 1,000,000 cells"),
    Limit("n_bins", 10_000, "`calibration`, `reliability` (`--n-bins`)",
          "one output row per group and bin"),
    Limit("bin_cells", 1_000_000,
          "`calibration`, `reliability` (`--n-bins`): `n_bins` x the groups of the score "
          "table, counted from that small table before any bin is made",
          "one row per group and bin in the reliability table, which calibration sums"),
    Limit("bins", 10_000,
          "`divergence(bins=)` (`divergence --bins`): a number of quantile bins, or the number "
          "of edges; `membership_calibration(bins=)` has its own limit, `membership_bins`",
          "one level per bin, and patterns over the levels"),
    Limit("membership_bins", 100,
          "`membership_calibration(bins=)` "
          "(`membership-calibration --bins`): equal-width bins",
          "one sum per group and bin in the scan"),
    Limit("ratio", 1_000,
          "`sample_size(ratio=)` (`sample-size --ratio`): at most this, and at least its "
          "inverse (1/1,000)",
          "the reference is ratio times the group: the exact method enumerates every outcome of "
          "both, and the normal size grows with 1 + 1/ratio"),
    Limit("exact_cells", 5_000_000,
          "`sample_size(method=\"fisher\")` (`sample-size --method fisher`): (group + 1) x "
          "(group + reference + 1) at each size tried",
          "the tables the exact power enumerates, about 70 bytes and 4 microseconds each"),
    Limit("membership_groups", 12,
          "`proxy_report`, `proxy_counts` (`polars-fair proxy-report`): the groups of "
          "`membership=`",
          "the regression estimator's sandwich variance sums every product of four "
          "probabilities in each cell, (G+3 choose 4) sums: 1,365 at 12 groups, 20,475 at 25"),
    Limit("max_groups", 10_000_000,
          "every count argument `max_groups=` (`--max-groups`)",
          "a count table's groups (ceiling of the raisable limit, default 10,000)"),
    Limit("page_groups", 10_000_000,
          "`max_groups=` of the HTML pages (`audit_html`, `multiclass_html`, `continuous_html`)",
          "the groups the page shows: a row of each table and of its data block (default 50)"),
    Limit("max_pairs", 100_000_000, "`pairwise(max_pairs=)`",
          "ordered pairs of groups (ceiling of the raisable limit, default 1,000,000)"),
    Limit("max_thresholds", 1_000_000, "`sweep`, `thresholds` (`--max-thresholds`)",
          "one report of every group per threshold (ceiling of the raisable limit, default "
          "10,000)"),
    Limit("max_patterns", 100_000_000, "`divergence(max_patterns=)`",
          "candidate patterns of the search (ceiling of the raisable limit, default 1,000,000)"),
    Limit("hiring_rows", MAX_HIRING_ROWS,
          "`datasets.make_hiring(n)`, `polars-fair demo --n` (declared in `datasets`, a lower "
          "layer)", "the rows drawn"),
    Limit("max_points", 100_000, "`roc_chart(max_points=)`",
          "points of each drawn ROC curve"),
    Limit("cell_size", 1_000, "`pairwise_heatmap(cell_size=)`",
          "pixels of each cell, squared per pair of groups"),
    Limit("scale", 20, "`plot.save(scale=)`", "a PNG's pixels grow with its square"),
    Limit("chart_pixels", 40_000_000,
          "`plot.save` (PNG, SVG), `plot.to_svg`, the figures of the HTML pages",
          "the pixels rendered: the chart's declared width x height (times its facet panels) "
          "x scale squared, before rendering (a heatmap of 100 groups at scale 2 is 85 million)"),
    Limit("sql_length", 100_000, "SQL texts: `--by`, `--y-true`, `--y-pred`, `--y-score`, "
          "`--where`, `audit_html(where=)`", "characters of one text"),
    Limit("sql_operators", 256, "SQL texts",
          "operators and `AND`/`OR`/`NOT` of one text (the parser recurses on each)"),
    Limit("sql_depth", 32, "SQL texts", "nesting of parentheses"),
    Limit("sql_pad", 10_000, "SQL `LPAD`, `RPAD`",
          "the padded length, which must be a number written in the text; the sum of a text's "
          "padded lengths times its `sql_growth` product is held to the same limit"),
    Limit("sql_replace", 4, "SQL `REPLACE`, `REGEXP_REPLACE`",
          "calls in one text (nested calls multiply a cell's length)"),
    Limit("sql_growth", 1_000, "SQL `REPLACE`, `REGEXP_REPLACE`, `CONCAT`, `CONCAT_WS`, `||`",
          "how many times longer than its input a cell can become: the product over the calls "
          "of ceil(replacement length / pattern length), or replacement length + 1 for an "
          "empty pattern, a column as pattern or a regular expression; and how many times its "
          "longest input cell one value can hold, columns joined by `CONCAT`, `CONCAT_WS` or "
          "`||` counted once each (times the growth of a `REPLACE` around them)"),
    Limit("sql_bytes", 1_000_000_000,
          "SQL texts that grow a value (`CONCAT`, `||`, `REPLACE`, `LPAD`, ...: more than one "
          "input cell, or more than 64 characters of the text's own, in one value)",
          "the bytes its largest value takes over every row: rows x (its `sql_growth` factor x "
          "the longest cell of the columns it reads, in bytes, + its `sql_text` characters), "
          "measured by one query over only those columns (a number, date or time counted as 64)"),
    Limit("sql_text", 10_000,
          "SQL texts: `CONCAT`, `CONCAT_WS`, `||`, `CASE`, `COALESCE`, `LPAD`, `RPAD`, "
          "`STRFTIME`, every value built row by row",
          "the characters the text itself puts in one value of every row: the string literals "
          "it is built from (not those of an `IN (...)` list), a `CONCAT_WS` separator once "
          "per argument after the first, `LPAD`/`RPAD` lengths, 18 per character of a "
          "`STRFTIME` format, times the growth of a `REPLACE` around them; every intermediate "
          "value is counted, so `LENGTH(CONCAT(...))` too"),
)

#: The limits by name.
LIMITS: dict[str, Limit] = {entry.name: entry for entry in _TABLE}


def limit(name: str) -> int:
    """The limit declared for ``name``.

    Parameters
    ----------
    name : str
        A key of :data:`LIMITS`.

    Returns
    -------
    int
        The largest accepted value.

    Examples
    --------
    >>> limit("n_permutations")
    1000000
    """
    return LIMITS[name].limit


def check_size(value: Any, name: str, option: str | None = None) -> Any:
    """Refuse a value above its declared limit, before any work.

    Only a real number (Python or numpy; not a bool) is compared; anything else, NaN included,
    is returned unchanged, left to the option's own type check.

    Parameters
    ----------
    value : Any
        The option's value.
    name : str
        The key of :data:`LIMITS`.
    option : str, optional
        The option as the caller spells it (``bins['age']``); ``name`` by default.

    Returns
    -------
    Any
        ``value``, unchanged.

    Raises
    ------
    SizeLimitError
        An integer above the limit; the message states the value, the limit and the option.

    Examples
    --------
    >>> check_size(200, "n_bins")
    200
    >>> check_size(10**9, "n_bins")
    Traceback (most recent call last):
    ...
    polars_fair.errors.SizeLimitError: n_bins=1,000,000,000 is more than its limit 10,000 (one \
output row per group and bin); pass a smaller n_bins
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):  # numpy's bool is no Real
        return value
    entry = LIMITS[name]
    size = value.__index__() if hasattr(value, "__index__") else float(value)
    if size > entry.limit:
        raise E.SizeLimitError(E.OPTION_TOO_LARGE.format(
            option=option or name, size=size, limit=entry.limit, why=entry.why))
    return value


def check_work(size: int, name: str, what: str) -> None:
    """Refuse work whose size (a product of options) is above its declared limit.

    Parameters
    ----------
    size : int
        The work, computed from the options.
    name : str
        The key of :data:`LIMITS`.
    what : str
        How the work is computed from the options, named in the message.

    Raises
    ------
    SizeLimitError
        ``size`` above the limit.

    Examples
    --------
    >>> check_work(200 * 200 * 1000, "power_work", "n_simulations x n_permutations x n")
    """
    entry = LIMITS[name]
    if size > entry.limit:
        raise E.SizeLimitError(E.WORK_TOO_LARGE.format(
            what=what, size=size, limit=entry.limit, why=entry.why))


def check_ceiling(size: int, name: str, what: str, unit: str, advice: str,
                  cli_advice: str | None = None) -> None:
    """Refuse a size that no raisable limit (``max_groups=``, ...) can accept, before any work.

    A raisable limit's error advises raising it; past the ceiling that advice cannot work, so
    this error gives only ``advice``.

    Parameters
    ----------
    size : int
        The size asked for.
    name : str
        The raisable limit's key in :data:`LIMITS` (``max_thresholds``, ``max_groups``, ...).
    what : str
        What holds them, named in the message.
    unit : str
        What ``size`` counts (``"thresholds"``, ``"groups"``).
    advice : str
        What to pass instead, runnable as written (:data:`~polars_fair.errors.CEILING_ORDER`,
        ...).
    cli_advice : str, optional
        The same as the command line's flags, where ``advice`` does not read as them.

    Raises
    ------
    SizeLimitError
        ``size`` above the ceiling.

    Examples
    --------
    >>> check_ceiling(2_000_000, "max_thresholds", "thresholds", "thresholds",
    ...               "pass max_order=2")
    Traceback (most recent call last):
    ...
    polars_fair.errors.SizeLimitError: thresholds: 2,000,000 thresholds, more than \
max_thresholds= can be raised to (its ceiling 1,000,000); pass max_order=2
    """
    ceiling = LIMITS[name].limit
    if size > ceiling:
        facts = {"what": what, "size": size, "unit": unit, "option": name, "ceiling": ceiling}
        raise E.SizeLimitError(
            E.BEYOND_CEILING.format(**facts, advice=advice),
            cli_message=None if cli_advice is None
            else E.BEYOND_CEILING.format(**facts, advice=cli_advice))


def limits_markdown() -> str:
    """The limits as a Markdown table (the documentation's list).

    Returns
    -------
    str
        A header, a separator and one row per entry of :data:`LIMITS`.

    Examples
    --------
    >>> limits_markdown().splitlines()[0]
    '| option | limit | taken by | what grows with it |'
    """
    lines = ["| option | limit | taken by | what grows with it |", "| --- | ---: | --- | --- |"]
    lines += [f"| `{e.name}` | {e.limit:,} | {e.where} | {e.why} |" for e in _TABLE]
    return "\n".join(lines) + "\n"


def with_limits(func: F) -> F:
    """Write the declared limits into a docstring: ``|limit:n_bins|`` becomes ``10,000``.

    Parameters
    ----------
    func : callable
        A function whose docstring names limits as ``|limit:<name>|``.

    Returns
    -------
    callable
        ``func``, its docstring filled in from :data:`LIMITS`.

    Examples
    --------
    >>> @with_limits
    ... def f() -> None:
    ...     'At most |limit:n_bins| bins.'
    >>> f.__doc__
    'At most 10,000 bins.'
    """
    if func.__doc__:
        func.__doc__ = _PLACEHOLDER.sub(lambda m: f"{LIMITS[m.group(1)].limit:,}", func.__doc__)
    return func
