"""Issue 19, kind 2 on the command line: an option above its limit is named as its flag.

``polars-fair demo --n 100000000`` said "pass a smaller n": a one-word option was not
translated. Each message names the flag, states the size as typed and the largest value
accepted, which runs.
"""

from __future__ import annotations

import json

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
