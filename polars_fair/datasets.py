"""Built-in demo data and loaders for the public datasets used in the docs.

:func:`make_hiring` generates a seeded synthetic hiring screen with real intersectional
disparities and a deliberately tiny subgroup. :func:`scan_compas` applies ProPublica's standard
filter to a COMPAS CSV the user has (polars_fair ships no third-party data).
:func:`example_counts` is a four-group count table for the examples of the analyses of counts;
:func:`example_file` writes a frame to a new temporary file, for the examples of the commands
that read a file.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from polars_fair import errors as E

__all__ = ["make_hiring", "scan_compas", "example_counts", "example_file", "COMPAS_FILTER"]

#: The most rows :func:`make_hiring` makes (listed in :data:`polars_fair.core.limits.LIMITS`).
MAX_HIRING_ROWS = 10_000_000

RACES = ["White", "Black", "Hispanic", "Asian", "Pacific Islander"]
RACE_P = [0.56, 0.20, 0.15, 0.088, 0.002]
SEXES = ["Female", "Male"]
AGES = ["<25", "25-45", ">45"]
AGE_P = [0.2, 0.55, 0.25]


def make_hiring(n: int = 20_000, *, seed: int = 0) -> pl.DataFrame:
    """A seeded synthetic hiring screen with intersectional disparities.

    Each applicant has a latent qualification ``q ~ N(0, 1)``, lowered by 0.6 for applicants over
    45 (a disparity in the population: labels and scores are both lower, so the model is not at
    fault). The label ``y_true`` (1 = would succeed in the job) is ``q + N(0, 0.5) > 0``. The
    model's score is ``sigmoid(1.6 q + bias)``, where ``bias`` is −2.4 for Black women and 0
    otherwise (a disparity of the model itself, at an intersection that neither race nor sex
    alone shows in full); ``y_pred = y_score >= 0.5``. Pacific Islander applicants are 0.2% of
    the rows, so their groups have low support.

    Parameters
    ----------
    n : int, default 20000
        Number of rows (applicants).
    seed : int, default 0
        Seed of ``numpy.random.default_rng``; the same seed gives the same frame.

    Returns
    -------
    pl.DataFrame
        Columns ``applicant_id`` (Int64), ``race``, ``sex``, ``age_band`` (Enum with declared
        categories), ``y_true`` (Int8, 0/1), ``y_score`` (Float64 in (0, 1)), ``y_pred``
        (Int8, 0/1).

    Raises
    ------
    InvalidArgumentError
        If ``n < 1`` or ``seed < 0``.
    SizeLimitError
        If ``n`` is above :data:`MAX_HIRING_ROWS` (10,000,000), before anything is drawn.

    Examples
    --------
    >>> from polars_fair.datasets import make_hiring
    >>> df = make_hiring(1000, seed=1)
    >>> df.shape
    (1000, 7)
    >>> df["y_pred"].is_in([0, 1]).all()
    True
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise E.InvalidArgumentError(f"n must be an integer >= 1, got {n!r}")
    if n > MAX_HIRING_ROWS:
        raise E.SizeLimitError(E.OPTION_TOO_LARGE.format(
            option="n", size=n, limit=MAX_HIRING_ROWS, why="the rows drawn"))
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise E.InvalidArgumentError(f"seed must be an integer >= 0, got {seed!r}")
    import numpy as np  # on first use: importing the package (and the CLI) needs no numpy

    rng = np.random.default_rng(seed)
    race = rng.choice(len(RACES), size=n, p=RACE_P)
    sex = rng.choice(2, size=n, p=[0.48, 0.52])
    age = rng.choice(3, size=n, p=AGE_P)
    q = rng.standard_normal(n) + np.where(age == 2, -0.6, 0.0)
    y_true = (q + rng.normal(0.0, 0.5, n) > 0.0).astype(np.int8)
    bias = np.where((race == 1) & (sex == 0), -2.4, 0.0)
    score = 1.0 / (1.0 + np.exp(-(1.6 * q + bias)))
    return pl.DataFrame(
        {
            "applicant_id": np.arange(n, dtype=np.int64),
            "race": pl.Series(np.asarray(RACES)[race]).cast(pl.Enum(RACES)),
            "sex": pl.Series(np.asarray(SEXES)[sex]).cast(pl.Enum(SEXES)),
            "age_band": pl.Series(np.asarray(AGES)[age]).cast(pl.Enum(AGES)),
            "y_true": y_true,
            "y_score": np.round(score, 6),
            "y_pred": (score >= 0.5).astype(np.int8),
        }
    )


#: ProPublica's standard filter ("Compas Analysis.ipynb", propublica/compas-analysis).
COMPAS_FILTER: pl.Expr = (
    pl.col("days_b_screening_arrest").is_between(-30, 30)
    & (pl.col("is_recid") != -1)
    & (pl.col("c_charge_degree") != "O")
    & (pl.col("score_text") != "N/A")
)


def scan_compas(path: str | Path) -> pl.LazyFrame:
    """Lazily read ProPublica's ``compas-scores-two-years.csv`` with the standard filter.

    Keeps only the columns an audit needs (never the personal ``name`` or ``dob``) and adds
    ``y_pred = score_text != "Low"`` (Medium/High = predicted recidivist) and
    ``y_true = two_year_recid``, ProPublica's orientation. After the filter the file has 6,172
    rows.

    Parameters
    ----------
    path : str or Path
        The CSV file.

    Returns
    -------
    pl.LazyFrame
        Columns ``race, sex, age_cat`` (String), ``decile_score`` (Int64), ``score_text``
        (String), ``two_year_recid``, ``y_true``, ``y_pred`` (Int64 0/1).

    Raises
    ------
    FileNotFoundError
        When the file does not exist (at collect time).

    Examples
    --------
    >>> from polars_fair.datasets import scan_compas
    >>> lf = scan_compas("compas-scores-two-years.csv")  # doctest: +SKIP
    >>> lf.fair.report("race").collect()  # doctest: +SKIP
    """
    return (
        pl.scan_csv(path)
        .filter(COMPAS_FILTER)
        .select(
            "race", "sex", "age_cat", "decile_score", "score_text", "two_year_recid",
            y_true=pl.col("two_year_recid"),
            y_pred=(pl.col("score_text") != "Low").cast(pl.Int64),
        )
    )


def example_counts() -> pl.DataFrame:
    """A count table of four groups with a false-positive gap at one intersection.

    Attributes ``race`` (a, b) and ``sex`` (F, M); 50 rows per group, 10 true positives and no
    false negatives each (TPR 1); the group (a, F) has 30 false positives of 40 negatives (FPR
    0.75), the others 10 (FPR 0.25). Made for the examples of the pattern analyses
    (:mod:`polars_fair.analyses.explain`): the gap is the intersection's, half of it seen in
    ``race=a`` or ``sex=F`` alone.

    Returns
    -------
    pl.DataFrame
        ``race``, ``sex`` (String), ``n, tp, fp, fn, tn`` (Int64).

    Examples
    --------
    >>> example_counts().select("race", "sex", "fp").rows()
    [('a', 'F', 30), ('a', 'M', 10), ('b', 'F', 10), ('b', 'M', 10)]
    """
    return pl.DataFrame({"race": ["a", "a", "b", "b"], "sex": ["F", "M", "F", "M"],
                         "n": [50] * 4, "tp": [10] * 4, "fp": [30, 10, 10, 10],
                         "fn": [0] * 4, "tn": [10, 30, 30, 30]})


def example_file(frame: pl.DataFrame, name: str = "hiring.parquet") -> Path:
    """Write ``frame`` to a new temporary directory as ``name`` and return its path.

    For examples of what reads a file (the command line, provenance): the directory is made by
    :func:`tempfile.mkdtemp` and left for the system to clean.

    Parameters
    ----------
    frame : pl.DataFrame
        The rows.
    name : str, default "hiring.parquet"
        The file's name: Parquet for a ``.parquet`` suffix, else CSV.

    Returns
    -------
    pathlib.Path
        The file written.

    Examples
    --------
    >>> p = example_file(make_hiring(100, seed=0))
    >>> p.name, pl.read_parquet(p).height
    ('hiring.parquet', 100)
    """
    import tempfile

    path = Path(tempfile.mkdtemp()) / name
    if path.suffix == ".parquet":
        frame.write_parquet(path)
    else:
        frame.write_csv(path)
    return path
