"""``polars-fair proxy-report``: each group's rates by three estimators of estimated membership.

The command is the namespace method ``lf.fair.proxy_report``: its options are read from that
declaration (:func:`polars_fair.cli.commands.namespace_options`) as a generated command's are,
``--membership`` included (the option kind of the count argument on every command:
``ATTRIBUTE=GROUP:COLUMN,...``). The input and output options, ``--by`` included (optional
here: the groups alone without it), are the generated commands' own; ``--reference`` names a
group of the attribute, or ``attribute=value,by=value`` with ``--by``. Without ``--y-true``,
the column ``y_true`` is the label when the file has one; otherwise the report has no
``tpr``/``fpr``.
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
from polars_fair.cli.io import (
    column_or_sql,
    parse_dtypes,
    resolve_inputs,
    scan,
)

__all__ = ["register", "run_proxy_report"]

_METHOD = "proxy_report"
_RESOLVED = ("y_true", "y_pred", "pos_label", "reference")


@borrow(run_rows_command, params=("values",), sections=("Returns",))
def run_proxy_report(values: dict[str, Any]) -> tuple[pl.DataFrame, str]:
    """Run ``polars-fair proxy-report``: scan, resolve, call the namespace method.

    Raises
    ------
    SizeLimitError
        More membership groups than the proxy report takes, before the input is read
        (:func:`polars_fair.counting.proxy_table.proxy_membership`).
    PolarsFairError
        Bad input, as :func:`polars_fair.cli.io.resolve_inputs`, the options' conversion
        (:func:`polars_fair.cli.commands.convert`) and the method.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "people.csv"
    >>> pl.DataFrame({"p_a": [0.9, 0.8, 0.3, 0.1], "p_b": [0.1, 0.2, 0.7, 0.9],
    ...               "y_pred": [1, 1, 0, 1]}).write_csv(path)
    >>> values = {o.name: o.default for o in namespace_options(_METHOD)}
    >>> values.update(path=path, by=[], where=None, separator=None, dtype=None,
    ...               membership=["g=a:p_a,b:p_b"], reference="a", min_support=0)
    >>> frame, header = run_proxy_report(values)
    >>> frame["selection_rate_argmax"].to_list(), header
    ([1.0, 0.5], "polars-fair proxy-report: 2 row(s); groups of 'g' ['a', 'b']; by []")
    """
    from polars_fair.api.namespace import FairLazyFrame
    from polars_fair.counting.proxy_table import proxy_membership

    opts = namespace_options(_METHOD)
    given = {o.name: convert(o, values.get(o.name, o.default)) for o in opts}
    proxy_membership(given["membership"], given["normalize"])  # bounded before the input is read
    lf = scan(values["path"], values.get("separator"), parse_dtypes(values.get("dtype")))
    y_pred = given["y_pred"] or "y_pred"
    labels = given["y_true"]
    if labels == "y_true" and "y_true" not in lf.collect_schema():
        labels = None  # the default label column is used when the file has one
    if labels is None:  # the prediction stands in for the labels: a miss names --y-pred
        column_or_sql(y_pred, lf.collect_schema(), "--y-pred")
    # without labels the prediction's dtype decides pos_label's (1, 1.0, '1' or true)
    args = resolve_inputs(
        lf, values.get("by") or [], y_true_text=labels or y_pred, y_pred_text=y_pred,
        y_score_text=None, pos_label_text=given["pos_label"],
        reference_text=given["reference"], where=values.get("where"),
        source=values["path"].name, membership=given["membership"])
    schema = args.lf.collect_schema()
    membership = given["membership"] or {}
    attribute = next(iter(membership), "")
    resolved = {"y_true": args.y_true if labels else None, "y_pred": args.y_pred,
                "pos_label": args.pos_label, "reference": args.reference.argument}
    kw: dict[str, Any] = {o.name: resolved[o.name] if o.name in _RESOLVED else
                          read_against(o, given[o.name], schema) for o in opts}
    frame = FairLazyFrame(args.lf).proxy_report(args.by, **kw).collect()
    keys = [k for k in frame.columns if k != attribute and k in set(schema.names()) | {
        b.meta.output_name() for b in args.by if isinstance(b, pl.Expr)}]
    return frame, (f"polars-fair proxy-report: {frame.height} row(s); groups of "
                   f"{attribute!r} {list(membership[attribute])}; by {keys}")


def _parameters() -> list[inspect.Parameter]:
    """The input and output options (``--by`` optional), then the method's options."""
    return [*io_parameters(by_optional=True),
            *(option_parameter(o) for o in namespace_options(_METHOD))]


#: ``polars-fair proxy-report``; ``register(app, guard)`` adds it to the command line.
register = NamespaceCommand(_METHOD, run_proxy_report, _parameters,
                            "--by ..., --membership ...").register
