"""List-valued options are bounded before any work (issue 19, fifth review, items 7 and 8).

``power_curve(sizes=[10] * 200000)`` ran about 20 minutes: the cells (effects x sizes) and the
simulations in all were not bounded, only the rows drawn. ``classes=`` of the multiclass
analyses (and the categories of an Enum prediction, which declare the classes) had no bound:
20,000 classes ran for minutes (about 12 ms a class). The bins limit printed ``1,000,000,000``,
which ``--bins`` reads as edges; edges given as a numpy array of booleans read ``[None, None]``.
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401 - registers df.fair
from polars_fair import errors as E
from polars_fair.cli.entry import app
from polars_fair.core.limits import LIMITS
from polars_fair.power import power_curve

runner = CliRunner()


def test_power_curve_cells_are_bounded_before_the_lists_are_read() -> None:
    # 1 effect x 200,000 sizes = 200,000 cells > 10,000
    start = time.perf_counter()
    with pytest.raises(E.SizeLimitError) as info:
        power_curve(delta_aucs=[0.1], sizes=[10] * 200_000, n_simulations=10,
                    n_permutations=10)
    assert time.perf_counter() - start < 5  # refused before any simulation
    assert str(info.value) == E.POWER_CELLS.format(option="sizes", more="", cells=200_000,
                                                   limit=10_000)
    # a generator without end is read only up to the limit: at least 10,001 cells
    with pytest.raises(E.SizeLimitError) as info:
        power_curve(delta_aucs=[0.1], sizes=itertools.repeat(10), n_simulations=10,
                    n_permutations=10)
    assert "makes at least 10,001 cells" in str(info.value)
    # 3 effects x 5,000 sizes = 15,000 cells
    with pytest.raises(E.SizeLimitError, match="makes 15,000 cells"):
        power_curve(delta_aucs=[0.1, 0.2, 0.3], sizes=[10] * 5000)


def test_power_curve_simulations_are_bounded() -> None:
    # 2,000 cells x 200 simulations = 400,000 > 200,000 (each about 1.5 ms: 10 minutes)
    assert LIMITS["power_simulations"].limit == 200_000
    with pytest.raises(E.SizeLimitError, match="n_simulations = 400,000 is more than its "
                                               "limit 200,000"):
        power_curve(delta_aucs=[0.1], sizes=[10] * 2000, n_simulations=200,
                    n_permutations=10)


def test_the_power_cells_advice_works() -> None:
    # "pass fewer sizes or effects": 2 cells run
    curve = power_curve(delta_aucs=[0.1], sizes=[40, 60], n_simulations=4, n_permutations=5,
                        seed=0, progress=False)
    assert curve["n"].to_list() == [40, 60]


def _classes() -> pl.DataFrame:
    return pl.DataFrame({"g": ["a", "b"] * 6, "y_true": [0, 1, 2] * 4,
                         "y_pred": [0, 1, 2, 1] * 3})


def test_classes_are_bounded() -> None:
    with pytest.raises(E.SizeLimitError) as err:
        _classes().fair.multiclass_report("g", classes=list(range(1001)))
    # the wording of the one class limit (issue 22 review item 2): classes= is named
    assert str(err.value) == E.CLASSES_TOO_MANY.format(size=1_001, limit=1_000)
    # followed: at most 1,000 classes (0, 1, 2 held, the others rows of zeros)
    out = _classes().fair.multiclass_report("g", classes=list(range(1_000)), min_support=1)
    assert out.height == 2 * 1_000


def test_enum_categories_are_bounded_and_the_advice_works() -> None:
    enum = pl.Enum([str(i) for i in range(1001)])
    rows = _classes().with_columns(pl.col("y_true", "y_pred").cast(pl.String).cast(enum))
    with pytest.raises(E.SizeLimitError) as info:
        rows.fair.multiclass_report("g")
    assert str(info.value) == E.ENUM_CLASSES_TOO_MANY.format(size=1001, limit=1000)
    # followed: cast to String, only the classes the rows hold (0, 1, 2): 2 groups x 3 classes
    text = rows.with_columns(pl.col("y_true", "y_pred").cast(pl.String))
    assert text.fair.multiclass_report("g").height == 6


def test_the_bins_limit_reads_as_the_cli_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text("s,y_true,y_pred\n" + "".join(f"{i % 7}.5,{i % 2},{i % 3 == 0:d}\n"
                                                    for i in range(60)))
    out = runner.invoke(app, ["divergence", str(path), "--by", "s", "--bins", "s=1000000000"])
    assert out.exit_code == 2
    assert out.stderr.strip() == (
        "polars-fair: error: --bins s=1000000000 is more than its limit 10000 (one level per "
        "bin, and patterns over the levels); pass --bins s=10000 or fewer")


def test_array_edges_are_shown_as_given() -> None:
    df = pl.DataFrame({"s": [0.1, 0.5, 0.9] * 10, "y_true": [1, 0, 1] * 10,
                       "y_pred": [1, 1, 0] * 10})
    with pytest.raises(E.InvalidArgumentError) as info:
        df.fair.divergence("s", bins={"s": np.array([True, False])})
    assert str(info.value).endswith("got [True, False]")
