"""``polars-fair membership-calibration``: the calibration check of estimated membership.

The command is the namespace method ``lf.fair.membership_calibration``: its options are read from
that declaration (:func:`polars_fair.cli.commands.namespace_options`) as a generated command's
are, except ``--membership``, written ``ATTRIBUTE=GROUP:COLUMN,GROUP:COLUMN,...`` (one
attribute; a column may be a SQL expression; a group or column holding ``:`` or ``,`` is
double-quoted, :data:`polars_fair.cli.quoting.QUOTING`). The input and output options are the
generated commands' own, without ``--by``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

import polars as pl
import typer

from polars_fair import errors as E
from polars_fair.cli.commands import convert, io_parameters, namespace_options, option_parameter
from polars_fair.cli.compare import namespace_command
from polars_fair.cli.group import ReadableCommand
from polars_fair.cli.io import column_or_sql, parse_dtypes, scan, where_condition
from polars_fair.cli.quoting import QUOTING, split_items, split_name, unquote

__all__ = ["MEMBERSHIP_FORM", "parse_membership_option", "register", "run_calibration"]

#: How ``--membership`` is written.
MEMBERSHIP_FORM = "ATTRIBUTE=GROUP:COLUMN,GROUP:COLUMN,... (a column may be SQL)"
_METHOD = "membership_calibration"


def parse_membership_option(text: str, schema: pl.Schema) -> dict[str, dict[str, Any]]:
    """``race=White:p_white,Black:p_black`` -> ``{"race": {"White": "p_white", ...}}``.

    Parameters
    ----------
    text : str
        The option's text (:data:`MEMBERSHIP_FORM`); groups are kept as text.
    schema : pl.Schema
        The input's schema: a column that is not a name is read as SQL
        (:func:`polars_fair.cli.io.column_or_sql`).

    Returns
    -------
    dict
        The ``membership=`` argument of the Python API.

    Raises
    ------
    InvalidArgumentError
        Text not of the form :data:`MEMBERSHIP_FORM`.
    ColumnNotFoundError, SQLRefusedError, NotRowLevelError
        A column as :func:`polars_fair.cli.io.column_or_sql` reads it.

    Examples
    --------
    >>> schema = pl.Schema({"p_a": pl.Float64, "p_b": pl.Float64})
    >>> parse_membership_option('g="a:1":p_a,b:1 - p_a', schema)["g"]["a:1"]
    'p_a'
    >>> parse_membership_option("g=a", schema)
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: --membership takes ATTRIBUTE=GROUP:COLUMN,...
    """
    named = split_name(text)
    groups: dict[str, Any] = {}
    if named is not None and named[0]:
        for item in split_items(named[1]):
            parts = split_items(item, sep=":")
            if len(parts) < 2 or not unquote(parts[0].strip()) or not ":".join(parts[1:]).strip():
                groups = {}
                break
            column = unquote(":".join(parts[1:]).strip())
            groups[unquote(parts[0].strip())] = column_or_sql(column, schema, "--membership")
    if not groups or named is None:
        raise E.InvalidArgumentError(E.CLI_BAD_LIST.format(
            flag="--membership", kind=MEMBERSHIP_FORM, value=text))
    return {named[0]: groups}


def run_calibration(values: dict[str, Any]) -> tuple[pl.DataFrame, str]:
    """Run ``polars-fair membership-calibration``: scan, resolve, call the namespace method.

    Parameters
    ----------
    values : dict
        The command's parsed options.

    Returns
    -------
    frame : pl.DataFrame
        The method's result.
    header : str
        A line describing the run.

    Raises
    ------
    PolarsFairError
        Bad input, as :func:`parse_membership_option` and the method.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "people.csv"
    >>> pl.DataFrame({"p_a": [0.9, 0.2], "p_b": [0.1, 0.8], "self": ["A", "B"]}).write_csv(path)
    >>> values = {o.name: o.default for o in namespace_options(_METHOD)}
    >>> values.update(path=path, where=None, separator=None, dtype=None, bins=2,
    ...               membership="g=A:p_a,B:p_b", known="self")
    >>> frame, header = run_calibration(values)
    >>> frame["observed_share"].to_list()
    [0.0, 1.0, 0.0, 1.0]
    >>> header.split("; ")[1]
    "groups ['A', 'B']"
    """
    from polars_fair.api.namespace import FairLazyFrame

    lf = scan(values["path"], values.get("separator"), parse_dtypes(values.get("dtype")))
    if values.get("where"):
        lf = lf.filter(where_condition(lf, values["where"]))
    schema = lf.collect_schema()
    given = {o.name: convert(o, values.get(o.name, o.default)) for o in namespace_options(_METHOD)
             if o.name != "membership"}
    kw: dict[str, Any] = {
        name: column_or_sql(value, schema, "--" + name.replace("_", "-"))
        if name in ("known", "sample_weight") and value is not None else value
        for name, value in given.items()}
    membership = parse_membership_option(values["membership"], schema)
    frame = FairLazyFrame(lf).membership_calibration(membership=membership, **kw).collect()
    known = frame["n_known"][0] if frame.height else 0
    share = frame["share_known"][0] if frame.height else None
    shown = "n/a" if share is None else f"{share:.1%}"
    groups = list(next(iter(membership.values())))
    return frame, (f"polars-fair membership-calibration: {known} row(s) with a known group "
                   f"({shown} of the rows); groups {groups}")


def _parameters() -> list[inspect.Parameter]:
    """The input and output options without ``--by``, ``--membership``, the method's options."""
    membership = inspect.Parameter(
        "membership", inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[str, typer.Option(
            "--membership", metavar="ATTRIBUTE=GROUP:COLUMN,...",
            help="The probability column of each group of one attribute: "
                 f"{MEMBERSHIP_FORM}, for example race=White:p_white,Black:p_black. " + QUOTING)])
    return [p for p in io_parameters() if p.name != "by"] + [membership] + [
        option_parameter(o) for o in namespace_options(_METHOD) if o.name != "membership"]


def register(app: typer.Typer, guard: Callable[..., None]) -> list[str]:
    """Add ``membership-calibration`` to ``app``.

    Parameters
    ----------
    app : typer.Typer
        The command line.
    guard : callable
        Runs a command's body (:func:`polars_fair.cli.entry._guard`).

    Returns
    -------
    list of str
        The commands added.

    Examples
    --------
    >>> from polars_fair.cli.entry import _guard
    >>> register(typer.Typer(), _guard)
    ['membership-calibration']
    """
    app.command(name="membership-calibration", cls=ReadableCommand)(namespace_command(
        _METHOD, guard, run_calibration, _parameters(), "--membership ..., --known ..."))
    return ["membership-calibration"]
