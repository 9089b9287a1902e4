"""``polars-fair compare`` and ``polars-fair monitor``: the rows' comparison and monitor.

Both read rows into their own tables (the paired count table, the period count table), so
they are the namespace methods ``lf.fair.compare`` and ``lf.fair.monitor`` rather than methods
of a count table; their options are read from those declarations
(:func:`polars_fair.cli.commands.namespace_options`) as a generated command's are, and the
input and output options are the generated commands' own.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, get_args

import polars as pl
import typer

from polars_fair._docs import borrow, parse
from polars_fair.cli.commands import (
    convert,
    io_parameters,
    namespace_options,
    option_parameter,
)
from polars_fair.cli.group import ReadableCommand
from polars_fair.cli.io import (
    BASELINE_ALIAS,
    BASELINE_FLAGS,
    BaselineAliasOpt,
    check_outputs,
    column_or_sql,
    emit,
    one_baseline,
    parse_dtypes,
    resolve_inputs,
    scan,
)
from polars_fair.cli.table import select_columns

__all__ = ["COUNT_OPTIONS", "NamespaceCommand", "OWN_COUNT_OPTIONS", "count_options",
           "namespace_command", "register", "run_rows_command"]

#: The count arguments each command takes, beside its own options.
COUNT_OPTIONS = ("pos_label", "null_groups", "max_groups")
#: The count arguments of one command only: compare weighs rows (``--sample-weight``), while
#: monitor's e-values count decisions and refuse weights.
OWN_COUNT_OPTIONS = {"compare": ("sample_weight",), "monitor": ()}
_COMMANDS = ("compare", "monitor")


@dataclass(frozen=True)
class NamespaceCommand:
    """A command that runs one namespace method on a file, as the command line registers it.

    Parameters
    ----------
    method : str
        The :class:`polars_fair.api.namespace.FairLazyFrame` method; the command is its name
        with dashes.
    run : callable
        ``run(values) -> (frame, header)`` (:func:`namespace_command`).
    parameters : callable
        ``parameters() -> list of inspect.Parameter``: the command's parameters, made when it
        is registered.
    call : str
        The arguments shown in the help's call line (:func:`namespace_command`).

    Examples
    --------
    >>> import functools
    >>> c = NamespaceCommand("monitor", functools.partial(run_rows_command, "monitor"),
    ...                      io_parameters, "--by ..., ...")
    >>> c.method
    'monitor'
    """

    method: str
    run: Callable[[dict[str, Any]], tuple[pl.DataFrame, str]]
    parameters: Callable[[], list[inspect.Parameter]]
    call: str

    def register(self, app: typer.Typer, guard: Callable[..., None]) -> list[str]:
        """Add the command to ``app``.

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
        >>> NamespaceCommand("monitor", functools.partial(run_rows_command, "monitor"),
        ...                  io_parameters, "--by ...").register(typer.Typer(), _guard)
        ['monitor']
        """
        name = self.method.replace("_", "-")
        app.command(name=name, cls=ReadableCommand)(namespace_command(
            self.method, guard, self.run, self.parameters(), self.call))
        return [name]


def count_options(method: str) -> tuple[str, ...]:
    """The count arguments of ``polars-fair compare`` or ``monitor``.

    Parameters
    ----------
    method : {"compare", "monitor"}
        The command.

    Returns
    -------
    tuple of str
        :data:`COUNT_OPTIONS`, then the command's own (:data:`OWN_COUNT_OPTIONS`).

    Examples
    --------
    >>> count_options("compare")
    ('pos_label', 'null_groups', 'max_groups', 'sample_weight')
    """
    return (*COUNT_OPTIONS, *OWN_COUNT_OPTIONS[method])


def run_rows_command(method: str, values: dict[str, Any]) -> tuple[pl.DataFrame, str]:
    """Run ``polars-fair compare`` or ``monitor``: scan, resolve, call the namespace method.

    Parameters
    ----------
    method : {"compare", "monitor"}
        The namespace method.
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
        Bad input, as :func:`polars_fair.cli.io.resolve_inputs` and the method.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "two.csv"
    >>> pl.DataFrame({"g": ["a", "b"] * 20, "new": [1, 0] * 20, "old": [1, 1] * 20}).write_csv(path)
    >>> values = {o.name: o.default for o in namespace_options("compare",
    ...                                                         count_options("compare"))}
    >>> values.update(path=path, by=["g"], where=None, separator=None, dtype=None,
    ...               y_pred="new", baseline="old")
    >>> frame, header = run_rows_command("compare", values)
    >>> frame["selection_rate_change"].to_list(), header
    ([0.0, -1.0], "polars-fair compare: 2 row(s); by ['g']")
    """
    from polars_fair.api.namespace import FairLazyFrame

    opts = namespace_options(method, count_options(method))
    given = {o.name: convert(o, values.get(o.name, o.default)) for o in opts}
    lf = scan(values["path"], values.get("separator"), parse_dtypes(values.get("dtype")))
    labels = given["y_true"]
    # without labels the prediction's dtype decides pos_label's (1, 1.0, '1' or true)
    args = resolve_inputs(
        lf, values["by"], y_true_text=labels or given["y_pred"], y_pred_text=given["y_pred"],
        y_score_text=None, pos_label_text=given["pos_label"],
        reference_text=given["reference"], where=values.get("where"),
        source=values["path"].name)
    schema = args.lf.collect_schema()
    resolved = {"y_true": args.y_true if labels else None, "y_pred": args.y_pred,
                "pos_label": args.pos_label, "reference": args.reference}
    kw = {o.name: resolved[o.name] if o.name in resolved else
          column_or_sql(given[o.name], schema, o.flag)
          if o.kind == "column" and given[o.name] is not None else given[o.name]
          for o in opts}
    frame = getattr(FairLazyFrame(args.lf), method)(args.by, **kw).collect()
    keys = [k for k in frame.columns if k in set(schema.names()) | {
        b.meta.output_name() for b in args.by if isinstance(b, pl.Expr)}]
    return frame, f"polars-fair {method}: {frame.height} row(s); by {keys}"


def namespace_command(method: str, guard: Callable[..., None],
                      run: Callable[[dict[str, Any]], tuple[pl.DataFrame, str]],
                      params: list[inspect.Parameter], call: str) -> Callable[..., None]:
    """The typer callback of a command that runs a namespace method on a file.

    Parameters
    ----------
    method : str
        The :class:`polars_fair.api.namespace.FairLazyFrame` method (its docstring's summary is
        the command's help).
    guard : callable
        Runs the command's body (:func:`polars_fair.cli.entry._guard`).
    run : callable
        ``run(values) -> (frame, header)``: the command's work on its parsed options.
    params : list of inspect.Parameter
        The command's parameters (input and output options, then its own).
    call : str
        The arguments shown in the help's ``pl.scan_...(PATH).fair.METHOD(CALL)`` line.

    Returns
    -------
    callable
        The callback, with ``params`` as its signature.

    Examples
    --------
    >>> from polars_fair.cli.entry import _guard
    >>> cb = namespace_command("monitor", _guard, lambda v: run_rows_command("monitor", v),
    ...                        io_parameters(), "--by ..., ...")
    >>> cb.__name__, cb.__doc__.splitlines()[0]
    ('monitor', 'Each group against the reference, period by period, with anytime-valid sequences.')
    """
    from polars_fair.api.namespace import FairLazyFrame

    def command(**values: Any) -> None:
        if BASELINE_ALIAS in values:  # one of --baseline-pred and --baseline: a usage error
            values["baseline"] = one_baseline(values["baseline"], values.pop(BASELINE_ALIAS),
                                              required=True)

        def body() -> None:
            fmt = check_outputs(values["format"], values["output"], inputs=[values["path"]])
            frame, header = run(values)
            frame, header = select_columns(frame, values["columns"], fmt, header)
            emit(frame, fmt, values["output"], header)

        guard(body, json_errors=values["format"] == "json")

    head, _ = parse(getattr(FairLazyFrame, method).__doc__ or "")
    command.__doc__ = (f"{head.split(chr(10) + chr(10))[0]}\n\npl.scan_...(PATH).fair.{method}"
                       f"({call}): the Python API's namespace method lf.fair.{method}, "
                       "its options generated from the declaration.")
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {}
    command.__name__ = method
    return command


@borrow(NamespaceCommand.register, params=("app", "guard"), sections=("Returns",))
def register(app: typer.Typer, guard: Callable[..., None]) -> list[str]:
    """Add ``compare`` and ``monitor`` to ``app``.

    Examples
    --------
    >>> from polars_fair.cli.entry import _guard
    >>> register(typer.Typer(), _guard)
    ['compare', 'monitor']
    """
    return [name for method in _COMMANDS for name in NamespaceCommand(
        method, functools.partial(run_rows_command, method),
        functools.partial(_rows_parameters, method), "--by ..., ...").register(app, guard)]


def _rows_parameters(method: str) -> list[inspect.Parameter]:
    """The input and output options, then the method's options and the count arguments.

    ``--baseline-pred`` (compare's ``baseline``) is followed by its hidden spelling
    ``--baseline`` (:data:`polars_fair.cli.io.BaselineAliasOpt`); neither is required by the
    parser, :func:`namespace_command` asks for one of them (:func:`.io.one_baseline`).
    """
    params = io_parameters()
    for o in namespace_options(method, count_options(method)):
        p = option_parameter(o)
        if o.flag == BASELINE_FLAGS[0]:
            typ, info = get_args(p.annotation)
            info.help = f"{info.help} Required."  # the parser cannot say it (two spellings)
            params += [p.replace(default=None, annotation=Annotated[typ | None, info]),
                       inspect.Parameter(BASELINE_ALIAS, inspect.Parameter.KEYWORD_ONLY,
                                         default=None, annotation=BaselineAliasOpt)]
        else:
            params.append(p)
    return params
