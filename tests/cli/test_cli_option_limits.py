"""Issue 19, kind 2 on the command line: an option above its limit is named as its flag.

``polars-fair demo --n 100000000`` said "pass a smaller n": a one-word option was not
translated. Each message names the flag, states the size as typed and the largest value
accepted, which runs.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from polars_fair.cli.entry import app

runner = CliRunner()


def _error(*args: str) -> dict[str, object]:
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 2, result.stdout
    out: dict[str, object] = json.loads(result.stdout)
    return out


def test_demo_n_above_its_limit_names_the_flag_and_the_largest_value() -> None:
    error = _error("demo", "--n", "100000000")
    assert error["error"] == "SizeLimitError"
    assert error["message"] == ("--n 100000000 is more than its limit 10000000 (the rows "
                                "drawn); pass --n 10000000 or less")


def test_sample_size_ratio_is_bounded_as_flags_say() -> None:
    error = _error("sample-size", "--reference-rate", "0.6", "--impact-ratio", "0.5",
                   "--method", "fisher", "--ratio", "1e9")
    assert error["error"] == "SizeLimitError"
    assert str(error["message"]).startswith("--ratio 1000000000.0 is more than its limit 1000 (")
    assert str(error["message"]).endswith("; pass --ratio 1000 or less")
    error = _error("sample-size", "--reference-rate", "0.6", "--impact-ratio", "0.5",
                   "--ratio", "1e-9")
    assert str(error["message"]).endswith("; pass --ratio 0.001 or more")
    # the advice as written: --ratio 1000 runs (NormalIndPower: 21 per group, 21,000 reference)
    result = runner.invoke(app, ["sample-size", "--reference-rate", "0.6", "--impact-ratio",
                                 "0.5", "--ratio", "1000", "--format", "json"])
    assert result.exit_code == 0, result.stdout
    out = json.loads(result.stdout)
    row = out[0] if isinstance(out, list) else out
    assert (row["group"], row["reference"]) == (21, 21_000)


def test_fisher_beyond_its_enumeration_says_the_flags() -> None:
    error = _error("sample-size", "--reference-rate", "0.5", "--impact-ratio", "0.95",
                   "--method", "fisher")
    assert str(error["message"]).startswith("--method fisher at 6,274 applicants in the group")
    assert str(error["message"]).endswith("the normal approximation (--method normal) is "
                                          "accurate at that size")


def test_demo_n_below_one_names_the_flag() -> None:
    # make_hiring says "n must be an integer >= 1"; on the command line n is --n (a one-word
    # option of the running command, so "n" of another command's messages stays a word)
    for value in ("-5", "0"):
        error = _error("demo", "--n", value)
        assert error["error"] == "InvalidArgumentError"
        assert error["message"] == f"--n must be an integer >= 1, got {value}"


def test_a_one_word_option_is_a_flag_only_in_its_own_command() -> None:
    from polars_fair.cli.io import cli_message, note_command_flags

    # compare has no --n: "n must be the sum ..." (a paired table's column) stays as written
    note_command_flags([])
    assert cli_message("n must be the sum of the eight cells") == (
        "n must be the sum of the eight cells")


def test_multiclass_test_permutations_above_its_limit_explain_the_multiclass_test(
        tmp_path: Path) -> None:
    # the message said "each randomization draw recomputes the ABROCA", which multiclass-test
    # never computes
    data = tmp_path / "x.csv"
    data.write_text("g,p\na,x\na,y\nb,x\nb,y\n")
    error = _error("multiclass-test", str(data), "--by", "g", "--y-pred", "p",
                   "--n-permutations", "2000000")
    assert error["error"] == "SizeLimitError"
    assert error["message"] == (
        "--n-permutations 2000000 is more than its limit 1000000 (each Monte Carlo draw fills a "
        "table of groups x classes and computes its chi-square statistic); pass "
        "--n-permutations 1000000 or less")
    assert "ABROCA" not in str(error["message"])
