"""A reference that is no group shows a few values and the closest group (issue 20, fix item 2).

``--by age --reference 200`` listed 50 ages plus "(15 more)"; the rule is at most five values,
each cut, with "did you mean" for the closest group, attribute by attribute for a mapping
(``race=Caucasian,sex=Mal``), in Python and on the command line; each advice is followed here.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E
from tests.cli.test_cli_advice_followed import cli

#: ages 18..82 (65 values, two rows each, y alternating); race x sex: 4 groups
ROWS = pl.concat([pl.DataFrame({
    "age": list(range(18, 83)),
    "race": (["Caucasian", "Native American"] * 33)[:65],
    "sex": (["Male"] * 2 + ["Female"] * 2) * 16 + ["Male"],
    "y_true": [i % 2 for i in range(65)],
    "y_pred": [(i // 2) % 2 for i in range(65)],
})] * 2)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    ROWS.write_csv(tmp_path / "d.csv")
    return tmp_path / "d.csv"


def test_a_number_far_off_shows_five_ages_and_the_nearest(data: Path) -> None:
    code, _, err = cli("report", str(data), "--by", "age", "--reference", "200")
    assert code == 2
    # five of the 65 ages, 60 counted; the nearest age to 200 is the oldest, 82
    assert err.strip() == "polars-fair: error: " + E.CLI_UNKNOWN_GROUP.format(
        group="'200'", near=" (did you mean --reference '82'?)",
        groups="'18', '19', '20', '21', '22', ... (60 more)")
    code, out, err = cli("report", str(data), "--by", "age", "--reference", "82",
                          "--min-support", "1", "--format", "csv")
    assert code == 0, err
    assert pl.read_csv(out.encode()).filter(pl.col("age") == 82)["is_reference"].to_list() \
        == [True]
    with pytest.raises(E.UnknownGroupError) as exc:
        ROWS.fair.report("age", reference=200, min_support=1)
    assert str(exc.value.args[0]) == E.UNKNOWN_GROUP.format(
        group=200, near=" (did you mean 82?)", groups="[18, 19, 20, 21, 22, ... (60 more)]")


def test_a_pair_gets_did_you_mean_per_attribute(data: Path) -> None:
    code, _, err = cli("report", str(data), "--by", "race", "--by", "sex", "--reference",
                        "race=Native Americn,sex=Mal")
    assert code == 2
    m = re.search(r"did you mean --reference ('[^']*'|\S+)\?\)", err)
    assert m, err
    advice = m.group(1).strip("'")
    assert advice == "race=Native American,sex=Male"  # both attributes corrected
    assert err.count("'race=") <= 6  # the group asked for and five groups at most
    code, out, err = cli("report", str(data), "--by", "race", "--by", "sex", "--reference",
                          advice, "--min-support", "1", "--format", "csv")
    assert code == 0, err
    chosen = pl.read_csv(out.encode()).filter(pl.col("is_reference"))
    assert chosen.select("race", "sex").rows() == [("Native American", "Male")]
    with pytest.raises(E.UnknownGroupError,
                       match=re.escape("(did you mean {'race': 'Caucasian', 'sex': 'Male'}?)")):
        ROWS.fair.report(["race", "sex"], reference={"race": "Caucasian", "sex": "Mal"})
    report = ROWS.fair.report(["race", "sex"], reference={"race": "Caucasian", "sex": "Male"},
                              min_support=1)
    assert report.filter(pl.col("is_reference")).select("race", "sex").rows() \
        == [("Caucasian", "Male")]


def test_a_long_value_is_cut() -> None:
    rows = ROWS.with_columns(pl.col("race") + "x" * 60)
    with pytest.raises(E.UnknownGroupError) as exc:
        rows.fair.report("race", reference="zzz")
    message = str(exc.value.args[0])
    assert "x" * 60 not in message and "..." in message and "did you mean" not in message
