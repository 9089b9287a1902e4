"""``polars-fair membership-calibration``: the calibration check of estimated membership.

The command is the namespace method ``lf.fair.membership_calibration``: its options are read from
that declaration (:func:`polars_fair.cli.commands.namespace_options`) as a generated command's
are, ``--membership`` included (the option kind of the count argument on every command:
``ATTRIBUTE=GROUP:COLUMN,...``). The input and output options are the generated commands' own,
without ``--by``.
"""

from __future__ import annotations

import inspect
from typing import Any

import polars as pl

from polars_fair._docs import borrow
from polars_fair.cli.commands import (
    convert,
    io_parameters,
    namespace_options,
    option_parameter,
    read_against,
)
from polars_fair.cli.compare import NamespaceCommand, run_rows_command
from polars_fair.cli.io import parse_dtypes, scan, where_condition

__all__ = ["register", "run_calibration"]

_METHOD = "membership_calibration"


@borrow(run_rows_command, params=("values",), sections=("Returns",))
def run_calibration(values: dict[str, Any]) -> tuple[pl.DataFrame, str]:
    """Run ``polars-fair membership-calibration``: scan, resolve, call the namespace method.

    Raises
    ------
    PolarsFairError
        Bad input, as the method and the option's conversion
        (:func:`polars_fair.cli.commands.convert`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "people.csv"
    >>> pl.DataFrame({"p_a": [0.9, 0.2], "p_b": [0.1, 0.8], "self": ["A", "B"]}).write_csv(path)
    >>> values = {o.name: o.default for o in namespace_options(_METHOD)}
    >>> values.update(path=path, where=None, separator=None, dtype=None, bins=2,
    ...               membership=["g=A:p_a,B:p_b"], known="self")
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
    given = {o.name: convert(o, values.get(o.name, o.default))
             for o in namespace_options(_METHOD)}
    kw: dict[str, Any] = {o.name: read_against(o, given[o.name], schema)
                          for o in namespace_options(_METHOD)}
    frame = FairLazyFrame(lf).membership_calibration(**kw).collect()
    known = frame["n_known"][0] if frame.height else 0
    share = frame["share_known"][0] if frame.height else None
    shown = "n/a" if share is None else f"{share:.1%}"
    groups = list(next(iter((kw["membership"] or {"": {}}).values())))
    return frame, (f"polars-fair membership-calibration: {known} row(s) with a known group "
                   f"({shown} of the rows); groups {groups}")


def _parameters() -> list[inspect.Parameter]:
    """The input and output options without ``--by``, then the method's options."""
    return [p for p in io_parameters() if p.name != "by"] + [
        option_parameter(o) for o in namespace_options(_METHOD)]


#: ``polars-fair membership-calibration``; ``register(app, guard)`` adds it to the command line.
register = NamespaceCommand(_METHOD, run_calibration, _parameters,
                            "--membership ..., --known ...").register
