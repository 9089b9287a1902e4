"""The ``polars-fair`` entry point: answers ``--help`` and an unknown command without Polars.

``polars-fair --help`` (or no arguments) prints the command list from :data:`COMMANDS`, and an
unknown command is a one-line usage error with "did you mean", both in a few tens of
milliseconds: neither imports Polars, numpy or the analyses. A usage error of a command (a
missing ``--by``, an unknown flag) is told the same way from the parameter table that the first
full run wrote (:mod:`polars_fair.cli.usage`). Every other command line goes to
:func:`polars_fair.cli.entry.main`, which builds only the command it runs.

:data:`COMMANDS` is the command table of :data:`polars_fair.cli.entry.app` written out (its names
and first help lines, in its order); ``tests/cli/test_launch.py`` checks that it equals the
app's, so a command added to the library fails that test until it is listed here.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["COMMANDS", "HELP", "answer", "main"]

#: The app's help line (:data:`polars_fair.cli.entry.app`).
HELP = "Fairness audits of binary classifiers on Polars: one scan, exact metrics."

#: Every command of the app with the first line of its help, in the app's order.
COMMANDS = {
    "report": "Audit a file: one row per group with counts, rates, DI, impact ratio and OFI.",
    "demo": "Run the report on built-in synthetic hiring data "
            "(polars_fair.datasets.make_hiring).",
    "check": "CI gate: exit 0 if every group with n >= --min-support passes, 1 with the "
             "violations.",
    "confusion": "The count table, rolled up to by.",
    "rates": "Keys, n, then every rate (Float64, null where the denominator is 0).",
    "metrics": "Tidy form: one row per group × metric, with its own numerator, denominator and "
               "interval.",
    "disparity": "Each group's rate against the reference's, with intervals and a "
                 "multiplicity-adjusted test.",
    "pairwise": "Disparity metrics for every ordered pair of groups (i, j), i != j.",
    "summary": "Fairness summaries of a count table: one row per metric, with value, groups and "
               "verdict.",
    "impact-analysis": "The adverse-impact analysis of each group against a reference group.",
    "stratified": "Each group against the reference within strata, pooled over the strata.",
    "availability": "Each value's share of the rows against its share of a benchmark "
                    "population.",
    "divergence": "Every frequent pattern's divergence, with its interval, test and adjusted "
                  "p-value.",
    "abroca": "Per-group AUC and ABROCA against a reference group, or between every pair of "
              "groups.",
    "abroca-test": "Randomization test of ABROCA between each group and the reference group.",
    "calibration": "Expected and maximum calibration error per group, as a step of a lazy plan.",
    "reliability": "The reliability table (one row per group × bin) as a step of a lazy plan.",
    "sweep": "The report of every group at each threshold: y_pred = y_score >= threshold.",
    "thresholds": "Per threshold: the overall accuracy, TPR and selection rate, and the "
                  "four-fifths verdict.",
    "roc-curves": "Every group's ROC curve as a table: one row per vertex.",
    "continuous-report": "Per group: the mean of a continuous outcome, its gap to a reference, "
                         "the SMD.",
    "multiclass-report": "One row per (group, class): share in the class, impact ratio, "
                         "verdicts.",
    "multiclass-test": "Per attribute set, the chi-square test of independence of predicted "
                       "class and group.",
    "bias-audit": "NYC Local Law 144 summary of results: rates and impact ratios per category.",
    "compare": "Compare a candidate model with its baseline per group, with paired intervals "
               "and tests.",
    "monitor": "Each group against the reference, period by period, with anytime-valid "
               "sequences.",
    "membership-calibration": "Reliability of membership probabilities against the known "
                              "groups, with the ECE.",
    "proxy-report": "Per group, each rate and the impact ratio by three estimators, with a "
                    "four-fifths verdict.",
    "sample-size": "Applicants per group to detect an impact ratio with a two-sided "
                   "two-proportion test.",
}


def _answers_alone(args: Sequence[str]) -> bool:
    """Whether the launcher answers by itself: top-level help, or an unknown command."""
    if not args or args[0] == "--help":
        return True
    return not args[0].startswith("-") and args[0] not in COMMANDS


def answer(args: Sequence[str]) -> None:
    """Answer the top-level help, an unknown command or a usage error it can tell alone.

    Imports Typer, :mod:`polars_fair.cli.group` and :mod:`polars_fair.cli.usage` only, so the
    console script (:mod:`_polars_fair_cli`) calls it before the package (and Polars) is
    imported.

    Parameters
    ----------
    args : sequence of str
        The arguments after the program's name.

    Raises
    ------
    SystemExit
        0 after the help, 2 for no command or an unknown one, or for a usage error that the
        cached parameter table tells (:func:`polars_fair.cli.usage.check`); returns (without
        output) when the arguments name a command, which :func:`main` runs.

    Examples
    --------
    >>> answer(["report", "data.csv", "--by", "race"]) is None  # a command to run
    True
    """
    if not _answers_alone(args):
        from polars_fair.cli.usage import check

        check(args)  # a usage error it can tell from the cached parameter table
        return
    from typer._click import Command
    from typer.core import TyperCommand

    from polars_fair.cli.group import ReadableGroup

    # the help lines only: a command here is never run (an unknown one is a usage error)
    commands: dict[str, Command] = {name: TyperCommand(name, help=text, callback=None)
                                    for name, text in COMMANDS.items()}
    group = ReadableGroup(name="polars-fair", commands=commands, help=HELP,
                          no_args_is_help=True)
    group.main(list(args), prog_name="polars-fair")


def main(argv: Sequence[str] | None = None) -> None:
    """Run the command line: the top-level help and unknown commands here, the rest in entry.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program's name; ``sys.argv[1:]`` when ``None``.

    Raises
    ------
    SystemExit
        The command's exit code: 0 for ``--help``, 2 for a usage error (no command, an
        unknown one), else the command's own.

    Examples
    --------
    >>> import contextlib
    >>> try:
    ...     with contextlib.redirect_stderr(sys.stdout):
    ...         main(["raport"])
    ... except SystemExit as done:
    ...     print("exit code", done.code)
    polars-fair: error: no such command 'raport'. Did you mean 'report'?
    exit code 2
    """
    args = list(sys.argv[1:] if argv is None else argv)
    answer(args)
    from polars_fair.cli.entry import app
    from polars_fair.cli.entry import main as run
    from polars_fair.cli.usage import remember

    remember(app)  # the parameter table of answer's usage errors, once per installation
    sys.argv = [sys.argv[0], *args]
    run()
