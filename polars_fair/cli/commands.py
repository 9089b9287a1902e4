"""The command line's analysis subcommands, generated from the declarations of the Python API.

Every public method of :class:`polars_fair.api.objects.FairCounts`,
:class:`polars_fair.api.objects.FairScores` and :class:`polars_fair.api.continuous.FairMoments`
becomes a subcommand named like it (``abroca_test`` ->
``polars-fair abroca-test``), unless a hand-written command reaches it (:data:`HAND_WRITTEN`:
``report`` adds the HTML audit, ``bias-audit`` writes the LL 144 document). Nothing is written
again here: a command's options are the method's keyword parameters (names, defaults, types
from the annotations, help from the numpydoc Parameters section :mod:`polars_fair._docs`
composes) and the count or score arguments declared once in :mod:`polars_fair.core.spec`
(:data:`~polars_fair.core.spec.COUNT_ARGS`, :data:`~polars_fair.core.spec.SCORE_ARGS` and their
docs; the moment arguments in :mod:`polars_fair.counting.moments`), beside the input and output
options every command shares. A method added to any of these classes gets its subcommand when
the package is imported.

A generated command scans the file, resolves its text arguments against the schema
(:func:`polars_fair.cli.io.resolve_inputs`), counts once (:func:`polars_fair.counts` or
:func:`polars_fair.scores`), calls the method and writes its frame
(:func:`polars_fair.cli.io.emit`: table, csv, json, parquet or markdown).

Why one module: reading a declaration (annotations, defaults, numpydoc) and
turning it into options, values and a command is one translation, kept in one place so every
generated command reads its declaration the same way; about 40% of the lines are docstrings
and their examples.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, localcontext
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import polars as pl
import typer

from polars_fair import errors as E
from polars_fair._docs import parse
from polars_fair.api.classes import FairClassCounts
from polars_fair.api.continuous import FairMoments
from polars_fair.api.objects import FairCounts, FairScores
from polars_fair.cli.group import ReadableCommand
from polars_fair.cli.io import (
    BASELINE_FLAGS,
    BY_HELP,
    FLAGS,
    FORMATS,
    check_one_attribute,
    check_outputs,
    check_rows,
    choices,
    cli_message,
    column_or_sql,
    emit,
    note_attribute_flag,
    note_group_keys,
    note_membership,
    parse_dtypes,
    parse_reference,
    parse_value,
    resolve_inputs,
    scan,
    where_condition,
)
from polars_fair.cli.numbers import NUMBER, exact_thresholds, read_number
from polars_fair.cli.pages import PAGE_FLAGS, PAGES, page_html, page_parameters
from polars_fair.cli.quoting import QUOTING, split_items, split_name, unquote
from polars_fair.cli.summary import impact_note, ratio_note
from polars_fair.cli.table import EXPORT_HELP, select_columns
from polars_fair.core.options import DEFAULTS
from polars_fair.core.spec import (
    COUNT_ARGS,
    COUNT_ARGS_DOC,
    SCORE_ARGS,
    SCORE_ARGS_DOC,
    CountArgs,
    ScoreArgs,
)
from polars_fair.counting.classes import CLASS_ARGS, CLASS_ARGS_DOC, ClassArgs
from polars_fair.counting.moments import MOMENT_ARGS, MOMENT_ARGS_DOC, MomentArgs

__all__ = [
    "HAND_WRITTEN",
    "Opt",
    "analysis_methods",
    "command_name",
    "convert",
    "declared",
    "method_options",
    "namespace_options",
    "option_parameter",
    "io_parameters",
    "by_parameter",
    "param_help",
    "read_against",
    "rows_text",
    "register",
    "run_analysis",
]

F = TypeVar("F", bound=Callable[..., Any])

#: Methods reached by a hand-written command (its name): ``report`` also writes the HTML audit
#: and defines its metric columns; ``bias_audit`` (both classes) writes the NYC LL 144 summary.
HAND_WRITTEN = {"report": "report", "bias_audit": "bias-audit"}
#: Method parameters the command line gives otherwise: ``by`` is the ``--by`` of the count.
SKIPPED = frozenset({"by"})
#: Analyses whose command is read from the rows-level method of the ``lf.fair`` namespace
#: (:class:`polars_fair.api.namespace.FairLazyFrame`) and runs it: options that work on the rows
#: before counting (``divergence``'s ``bins=``, ``strategy=``; ``stratified``'s ``strata``,
#: counted with the ``--by`` groups but not one of them, so the command takes the arguments of
#: ``df.fair.stratified``; ``availability``'s ``benchmark``, checked against ``--by`` and the
#: file's columns as ``df.fair.availability`` checks it) and only the count arguments that
#: method takes (``divergence`` refuses ``combinations``; ``max_order`` is its own).
ROWS_LEVEL = frozenset({"divergence", "stratified", "availability"})
#: A command's example in its ``--help``, where its arguments differ from the other commands'.
HELP_EXAMPLES = {
    "stratified": "polars-fair stratified admissions.csv --by sex --strata dept --reference "
                  "Male (the groups are the --by attributes, compared within the strata; a "
                  "stratum is not also a --by)",
}
#: Options whose values come from a registry, listed in their ``--help``.
LISTED = {"metric": "PROPORTIONS"}
#: The ``--help`` type of each kind of option (no ``<bool>``-style annotation text).
METAVARS = {
    "column": "COLUMN|SQL", "text": "TEXT", "int": "INTEGER", "float": "NUMBER",
    "value": "VALUE", "texts": "TEXT,...", "floats": "X,...", "ints": "N,...",
    "mapping": "COLUMN=SPEC", "shares": "COLUMN=V:X,...", "groups": "A=G:C,...",
}
#: What a list option takes, for ``--help`` and messages.
LISTS = {"texts": "names A,B,...", "floats": "numbers X,Y,... or START:STOP:STEP",
         "ints": "integers N,M,...",
    "mapping": "COLUMN=N (N quantile bins) or COLUMN=E1,E2,... (the edges); repeat",
    "shares": "COLUMN=V1:X1,V2:X2,... (a number per value of the column); repeat",
    "groups": "A=G1:C1,G2:C2,... (attribute A; C, the probability of group G, a column or a "
              "SQL expression over the columns)"}


def command_name(method: str) -> str:
    """The subcommand of a method: ``abroca_test`` -> ``abroca-test``.

    Parameters
    ----------
    method : str
        A method name of :class:`FairCounts` or :class:`FairScores`.

    Returns
    -------
    str

    Examples
    --------
    >>> command_name("abroca_test")
    'abroca-test'
    """
    return HAND_WRITTEN.get(method, method.replace("_", "-"))


def analysis_methods() -> dict[str, tuple[type, str]]:
    """Every public analysis method of both classes, by its subcommand's name.

    Returns
    -------
    dict of str to (type, str)
        Subcommand -> (:class:`FairCounts`, :class:`FairScores` or
        :class:`~polars_fair.api.classes.FairClassCounts`, method name); a name several classes
        declare (``bias_audit``) maps to :class:`FairCounts`.

    Examples
    --------
    >>> methods = analysis_methods()
    >>> methods["abroca-test"][1], methods["disparity"][0].__name__
    ('abroca_test', 'FairCounts')
    """
    out: dict[str, tuple[type, str]] = {}
    # FairCounts first: it keeps a shared name (bias_audit); then moments, the multiclass ones
    for cls in (FairCounts, FairScores, FairMoments, FairClassCounts):
        for name, member in vars(cls).items():
            if not name.startswith("_") and inspect.isfunction(member):
                out.setdefault(command_name(name), (cls, name))
    return out


#: Options whose flags are not the parameter's name with dashes: the flag shown (and named in
#: errors) first, then its aliases.
OPTION_FLAGS = {"baseline": BASELINE_FLAGS[:1]}  # --baseline: a hidden parameter of its own


@dataclass(frozen=True)
class Opt:
    """One option of a generated command, read from a declaration.

    Parameters
    ----------
    name : str
        The Python parameter (``four_fifths``); the flag is ``--four-fifths``.
    kind : str
        ``column`` (a column or SQL text), ``text``, ``int``, ``float``, ``bool``, ``choice``,
        ``value`` (any value, read as a Python literal or kept as text), ``texts``, ``floats``
        or ``ints`` (repeatable, or comma-separated), ``mapping`` (``COLUMN=SPEC``, repeatable)
        , ``shares`` (``COLUMN=V1:X1,V2:X2``: a number per value, repeatable) or ``groups``
        (``ATTRIBUTE=G1:COLUMN1,G2:COLUMN2``: a probability column per group, ``membership``).
    default : Any
        The declared default (``None`` when optional).
    help : str
        The first paragraph of its documentation, without reST markup.
    choices : tuple of str, default ()
        The values of a ``choice`` (a ``Literal`` annotation).
    target : {"count", "method"}, default "method"
        Whether the value goes to the count (:func:`polars_fair.counts`) or to the method.

    Examples
    --------
    >>> Opt("level", "float", 0.95, "The confidence level.").flag
    '--level'
    """

    name: str
    kind: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    target: str = "method"

    @property
    def flag(self) -> str:
        """The option's flag: the name with dashes (:data:`OPTION_FLAGS` where it differs)."""
        return self.flags[0]

    @property
    def flags(self) -> tuple[str, ...]:
        """The flag, then its aliases (:data:`OPTION_FLAGS`)."""
        return OPTION_FLAGS.get(self.name, ("--" + self.name.replace("_", "-"),))


def param_help(doc: str) -> dict[str, str]:
    r"""The first paragraph of each entry of a numpydoc Parameters section, as plain text.

    Parameters
    ----------
    doc : str
        A numpydoc docstring, or the body of a Parameters section (entries ``name : type``).

    Returns
    -------
    dict of str to str
        Parameter name -> its description (reST roles and literals unmarked); entries naming
        several parameters (``a, b : float``) give each name.

    Examples
    --------
    >>> param_help("level : float\n    The ``level`` of :func:`x.y`.\n\n    More.")
    {'level': 'The level of x.y.'}
    """
    _, sections = parse(doc)
    body = sections.get("Parameters", doc if " : " in doc.split("\n", 1)[0] else "")
    out: dict[str, str] = {}
    names: list[str] = []
    lines: list[str] = []

    def flush() -> None:
        text = " ".join(" ".join(lines).split("\n\n")[0].split())
        for n in names:
            out[n] = _plain(text)

    for line in body.splitlines():
        if line and not line[0].isspace():
            flush()
            names = [n.strip().lstrip("*") for n in line.split(" : ")[0].split(",")]
            lines = []
        elif not line.strip():
            lines.append("\n\n")
        else:
            lines.append(line.strip())
    flush()
    return out


def _plain(text: str) -> str:
    text = re.sub(r":\w+:`~?([^`]+)`", r"\1", text)
    text = text.replace("``", "").replace("\n\n", " ")
    return " ".join(text.split())


def _kind(annotation: Any, name: str) -> tuple[str, tuple[str, ...], bool]:
    """(kind, choices, optional) of an annotation; unknown types are read as a ``value``."""
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    optional = False
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        optional = len(rest) < len(args)
        if pl.Expr in rest:
            return "column", (), optional
        if len(rest) == 1:
            kind, choices, _ = _kind(rest[0], name)
            return kind, choices, optional
        if str in rest and any(typing.get_origin(a) in (Sequence, list, tuple) for a in rest):
            return "texts", (), optional  # str | Sequence[str]: one or several
        return "value", (), optional
    if origin is Literal:
        return "choice", tuple(str(a) for a in args), optional
    if origin is Mapping and args and typing.get_origin(args[-1]) is Mapping:
        if typing.get_args(args[-1])[-1] is not float:  # {attribute: {group: column}}
            return "groups", (), optional  # (membership's probability columns)
        return "shares", (), optional  # {column: {value: number}} (availability's benchmark)
    if origin is Mapping or annotation is Mapping:
        return "mapping", (), optional
    if origin in (Sequence, list, tuple) or annotation in (Sequence, list, tuple):
        inner = args[0] if args else str
        kind = {float: "floats", int: "ints"}.get(inner, "texts")
        return kind, (), optional
    simple = {bool: "bool", int: "int", float: "float", str: "text"}
    if annotation is Any and name in ("pos_label", "reference"):
        return "text", (), True
    return simple.get(annotation, "value"), (), optional


def _hints(obj: Any) -> dict[str, Any]:
    """Each annotation evaluated in its module; one that cannot be is ``Any`` (a ``value``).

    So a method whose annotation names a type this module cannot resolve still gets its
    subcommand (its option read as a Python literal) instead of breaking the command line.
    """
    import sys

    namespace = {**vars(typing), **vars(sys.modules[obj.__module__])}
    out: dict[str, Any] = {}
    for name, annotation in inspect.get_annotations(obj).items():
        try:
            out[name] = eval(annotation, namespace) if isinstance(annotation, str) else annotation
        except Exception:  # noqa: BLE001  (any failure to evaluate: read the option as a value)
            out[name] = Any
    return out


def method_options(owner: type, method: str) -> list[Opt]:
    """The options of a method's subcommand: its keyword parameters, then the count/score args.

    A method's own parameter wins over a count argument of the same name (``combinations``,
    ``max_order`` roll the count table up in the method); ``by`` is the count's ``--by``.

    Parameters
    ----------
    owner : type
        :class:`FairCounts` or :class:`FairScores`.
    method : str
        The method's name.

    Returns
    -------
    list of Opt
        The method's options (``target="method"``), then the count arguments
        (:data:`polars_fair.core.spec.COUNT_ARGS`) or score arguments
        (:data:`polars_fair.core.spec.SCORE_ARGS`) it does not declare (``target="count"``).

    Examples
    --------
    >>> [o.flag for o in method_options(FairScores, "calibration")][:3]
    ['--n-bins', '--strategy', '--y-true']
    """
    if owner is FairCounts and method in ROWS_LEVEL:
        return _with_choices(method, _options_of(getattr(_namespace(), method), True, rows=True))
    if owner is FairClassCounts:  # its own options, then the class-table arguments
        own = [o for o in _options_of(getattr(owner, method), True) if o.target == "method"]
        taken = {o.name for o in own} | ({"sample_weight"} if method in UNWEIGHTED else set())
        return [*own, *[o for o in _class_options() if o.name not in taken]]
    opts = _options_of(getattr(owner, method), owner is FairCounts, moments=owner is FairMoments)
    return _with_choices(method, [o for o in opts
                                  if not (method in ONE_SET and o.name == "combinations")])


def _metric_choices() -> dict[tuple[str, str], tuple[str, ...]]:
    """The text options whose values are a fixed list, checked by the method: made choices."""
    from polars_fair.analyses.monitor import MONITOR_METRICS
    from polars_fair.analyses.uncertainty import DISPARITY_METRICS
    from polars_fair.core.registry import PROPORTIONS

    return {("disparity", "metric"): tuple(DISPARITY_METRICS),
            ("divergence", "metric"): tuple(PROPORTIONS),
            ("monitor", "metric"): tuple(MONITOR_METRICS)}


def _with_choices(method: str, opts: Sequence[Opt]) -> list[Opt]:
    """``opts`` with each option of a fixed list of values (:func:`_metric_choices`) a choice.

    So a value outside the list is a usage error told as the command line parses, before
    Polars (:mod:`polars_fair.cli.usage`), with "did you mean" (``--metric tprr``).
    """
    table = _metric_choices()
    return [dataclasses.replace(o, kind="choice", choices=table[method, o.name])
            if (method, o.name) in table and o.kind == "text" else o for o in opts]


#: Methods that report one attribute set per call (``combinations=`` refused,
#: :data:`polars_fair.errors.ONE_SET_DOC`), so their command takes no ``--combinations``, with
#: why, in their help.
ONE_SET = {
    "continuous_report": "No --combinations: the moment table is counted for one attribute set "
                         "(the intersection of every --by); run the command once per set.",
}
#: Class-table methods that count rows, so their command takes no ``--sample-weight`` (the
#: method refuses weights, :data:`polars_fair.errors.TEST_WEIGHTS`), with why, in their help.
UNWEIGHTED = {
    "multiclass_test": "No --sample-weight: the chi-square test counts rows, and weight sums "
                       "are not numbers of observations (multiclass-report reads the weights).",
}


@functools.lru_cache(maxsize=1)
def _class_options() -> tuple[Opt, ...]:
    """The class-table arguments as options, read once from their declaration."""
    hints = typing.get_type_hints(ClassArgs)
    docs = param_help(CLASS_ARGS_DOC)
    out = []
    for name, default in CLASS_ARGS.items():
        kind, choices, _ = _kind(hints[name], name)
        out.append(Opt(name, kind, default, docs.get(name, ""), choices, target="count"))
    return tuple(out)


def namespace_options(method: str, counts: Sequence[str] = ()) -> list[Opt]:
    """The options of a namespace method that reads rows and has no object method.

    ``lf.fair.compare`` and ``lf.fair.monitor`` count their own tables (paired, by period):
    their options are the method's keyword parameters, then the count arguments named in
    ``counts``, each read from its one declaration as for a generated command.

    Parameters
    ----------
    method : str
        The :class:`polars_fair.api.namespace.FairLazyFrame` method.
    counts : sequence of str
        The count arguments (:data:`polars_fair.core.spec.COUNT_ARGS`) it takes.

    Returns
    -------
    list of Opt
        The method's options, then the count arguments.

    Examples
    --------
    >>> [o.flag for o in namespace_options("compare", ["pos_label"])][:3]
    ['--y-pred', '--baseline-pred', '--y-true']
    """
    own = [o for o in _options_of(getattr(_namespace(), method), True, rows=True)
           if o.target == "method"]
    declared = {o.name: o for o in _argument_options(True)}
    return _with_choices(method, own + [declared[name] for name in counts])


def option_parameter(opt: Opt) -> inspect.Parameter:
    """The typer option of ``opt`` (as a generated command declares it).

    Parameters
    ----------
    opt : Opt
        The option.

    Returns
    -------
    inspect.Parameter
        A keyword parameter annotated with its ``typer.Option``.

    Examples
    --------
    >>> option_parameter(Opt("level", "float", 0.95, "The level.")).name
    'level'
    """
    return _parameter(opt)


def io_parameters(by_optional: bool = False) -> list[inspect.Parameter]:
    """The input and output parameters every generated command takes (PATH, ``--by``, ...).

    Parameters
    ----------
    by_optional : bool, default False
        ``--by`` may be left out (a command with ``--membership``, whose groups are then the
        attribute audited); the command checks that one of the two is given.

    Returns
    -------
    list of inspect.Parameter
        ``path``, ``by``, ``where``, ``format``, ``output``, ``columns``, ``separator``,
        ``dtype``.

    Examples
    --------
    >>> [p.name for p in io_parameters()][:3]
    ['path', 'by', 'where']
    """
    return _io_parameters(by_optional=by_optional)


def _namespace() -> type:
    from polars_fair.api.namespace import FairLazyFrame

    return FairLazyFrame


@functools.lru_cache(maxsize=128)
def _options_of(fn: Callable[..., Any], counts: bool, rows: bool = False,
                moments: bool = False) -> tuple[Opt, ...]:
    """:func:`method_options` of one method function (read once per function).

    ``rows``: ``fn`` is a rows-level method of the namespace whose signature lists the count
    arguments it takes; only those are added. ``moments``: a method of :class:`FairMoments`,
    whose table takes the moment arguments (:data:`~polars_fair.counting.moments.MOMENT_ARGS`).
    """
    hints = _hints(fn)
    docs = param_help(fn.__doc__ or "")
    out: list[Opt] = []
    signature = inspect.signature(fn).parameters
    for p in signature.values():
        named = p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
        if p.name == "self" or p.name in SKIPPED or not named:
            continue  # a second positional parameter (strata, benchmark) is an option too
        if rows and p.name not in hints:
            continue  # a count argument the signature lists: declared in spec, added below
        kind, choices, _ = _kind(hints.get(p.name, Any), p.name)
        default = p.default
        if kind in ("texts", "floats", "ints") and default is not None:
            default = ",".join(str(d) for d in ([default] if isinstance(default, str)
                                                 else default))
        if kind == "text" and p.name == "reference":
            default = None if default == DEFAULTS.reference else default
        text = docs.get(p.name, "")
        if p.name in LISTED and kind == "text":
            from polars_fair.core import registry

            text += f" One of: {', '.join(getattr(registry, LISTED[p.name]))}."
        out.append(Opt(p.name, kind, default, text, choices))
    taken = {o.name for o in out}
    return (*out, *[o for o in _argument_options(counts, moments) if o.name not in taken
                    and (not rows or o.name in signature)])


@functools.lru_cache(maxsize=3)
def _argument_options(counts: bool, moments: bool = False) -> tuple[Opt, ...]:
    """The count, score or moment arguments as options, read once from their declarations."""
    declared, doc = (COUNT_ARGS, COUNT_ARGS_DOC) if counts else (SCORE_ARGS, SCORE_ARGS_DOC)
    hinted: type = CountArgs if counts else ScoreArgs
    if moments:
        declared, doc, hinted = MOMENT_ARGS, MOMENT_ARGS_DOC, MomentArgs
    arg_hints = typing.get_type_hints(hinted)
    arg_docs = param_help(doc)
    out = []
    for name, default in declared.items():
        kind, choices, _ = _kind(arg_hints[name], name)
        if name == "pos_label":
            default = None  # 1 in the label's dtype (cli_io.resolve_inputs)
        out.append(Opt(name, kind, default, arg_docs.get(name, ""), choices, target="count"))
    return tuple(out)


@functools.lru_cache(maxsize=512)
def _help(text: str) -> str:
    """A help text with parameter names as flags (many commands share one count argument).

    Python paths read as their last name (``polars_fair.analyses.scores.abroca.abroca_from_scores``
    -> ``abroca_from_scores``): one long word would be cut in ``--help`` at 100 columns.
    """
    return re.sub(r"polars_fair\.(?:\w+\.)*(\w+)", r"\1", cli_message(text))


def _parameter(opt: Opt) -> inspect.Parameter:
    """A typer option for ``opt``, as a keyword parameter of a generated signature."""
    help_text = _help(opt.help)  # parameter names read as their flags
    if opt.kind in ("mapping", "shares", "groups"):  # the declaration's example is Python
        help_text = help_text.split(":")[0].rstrip(".") + "."
    if opt.kind == "groups":  # what a probability may be is said once, in LISTS (SQL here)
        help_text = re.sub(r"\s*\([^()]*expression\)", "", help_text)
    if opt.kind in LISTS:
        help_text += f" Takes {LISTS[opt.kind]}."
    if opt.kind in ("mapping", "shares", "groups", "texts") or opt.name == "reference":
        help_text += " " + QUOTING
    if opt.kind == "bool":
        typ: Any = bool
        # a flag off by default is just --flag (--no-flag would say the default again)
        names = opt.flag if opt.default is False else f"{opt.flag}/--no-{opt.flag[2:]}"
        info = typer.Option(names, help=help_text)
        if opt.default is None:
            typ = bool | None
    elif opt.kind in ("mapping", "shares", "groups"):
        typ = list[str] | None
        info = typer.Option(opt.flag, help=help_text, metavar=METAVARS[opt.kind])
    elif opt.kind == "choice":
        typ = Literal[opt.choices]
        if opt.default is None:
            typ = typ | None
        # a long list reads as its name in --help; its values are in the help text
        metavar = (f"[{'|'.join(opt.choices)}]" if len(opt.choices) <= 6
                   else opt.name.upper().replace("_", "-"))
        info = typer.Option(opt.flag, help=help_text, metavar=metavar)
    elif opt.kind == "float":  # the decimal written, decided by the Python rule (cli.numbers)
        typ = Decimal | None if opt.default is None else Decimal
        info = typer.Option(opt.flag, help=help_text, metavar=NUMBER, parser=read_number)
    else:
        base = int if opt.kind == "int" else str
        typ = base | None if opt.default is None else base
        shown: bool | str = True
        if isinstance(opt.default, str) and len(opt.default) > 24 and opt.kind in LISTS:
            parts = opt.default.split(",")  # a long grid: its ends (help stays readable)
            shown = f"{parts[0]},{parts[1]},...,{parts[-1]}" if len(parts) > 3 else True
        info = typer.Option(*opt.flags, help=help_text, metavar=METAVARS.get(opt.kind, "TEXT"),
                            show_default=shown)
    return inspect.Parameter(opt.name, inspect.Parameter.KEYWORD_ONLY, default=opt.default,
                             annotation=Annotated[typ, info])


#: The input and output options every generated command takes (beside PATH and ``--by``).
def _io_parameters(formats: Sequence[str] = FORMATS,
                   by_optional: bool = False) -> list[inspect.Parameter]:
    kw = inspect.Parameter.KEYWORD_ONLY
    return [
        inspect.Parameter("path", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Annotated[
            Path, typer.Argument(help="CSV, Parquet or NDJSON file (read lazily).",
                                 metavar="PATH")]),
        by_parameter(by_optional),
        inspect.Parameter("where", kw, default=None, annotation=Annotated[str | None, typer.Option(
            help="SQL filter applied before the audit.", metavar="SQL")]),
        inspect.Parameter("format", kw, default="table", annotation=Annotated[
            choices(formats), typer.Option(
                "--format", help=" | ".join(formats) + " (default: the --output suffix, else "
                "table). " + EXPORT_HELP, metavar="FORMAT")]),
        inspect.Parameter("output", kw, default=None, annotation=Annotated[
            Path | None, typer.Option(help="Write to this file.", metavar="FILE")]),
        inspect.Parameter("columns", kw, default=None, annotation=Annotated[
            str | None, typer.Option(help=(
                "The columns to write, comma-separated (keys included when named); default: "
                "every column, and in --format table as many as fit 120 characters. "
                + QUOTING),
                metavar="COL,..."),
        ]),
        inspect.Parameter("separator", kw, default=None, annotation=Annotated[
            str | None, typer.Option(help="CSV field separator (one character; \\t for a tab).",
                                     metavar="CHAR")]),
        inspect.Parameter("dtype", kw, default=None, annotation=Annotated[
            list[str] | None, typer.Option("--dtype", help=(
                "COLUMN=TYPE: read a column as str, int64, float64, bool, date, datetime, "
                "decimal(P,S), ...; repeat."), metavar="COLUMN=TYPE")]),
    ]


def by_parameter(optional: bool = False) -> inspect.Parameter:
    """The ``--by`` option: required, or optional beside ``--membership``.

    Parameters
    ----------
    optional : bool, default False
        The command takes ``--membership``: ``--by`` defaults to no attribute (the membership
        groups alone) and the command requires one of the two as it parses
        (:data:`polars_fair.cli.group.ONE_OF`).

    Returns
    -------
    inspect.Parameter
        The keyword parameter ``by``.

    Examples
    --------
    >>> by_parameter(True).default, by_parameter().default is inspect.Parameter.empty
    ([], True)
    """
    text = BY_HELP
    if optional:
        text += (" Optional with --membership (crossed with its groups; default: the groups "
                 "alone).")
    return inspect.Parameter(
        "by", inspect.Parameter.KEYWORD_ONLY, default=[] if optional else inspect.Parameter.empty,
        annotation=Annotated[list[str], typer.Option("--by", help=text, metavar="COLUMN|SQL")])


#: The most values a ``START:STOP:STEP`` range may expand to; the analysis' own size limit
#: (``max_thresholds``, default 10,000) applies to what is left.
MAX_RANGE_VALUES = 1_000_000


def _coarser_range(start: Decimal, stop: Decimal, name: str) -> dict[str, Any]:
    """A ``START:STOP:STEP`` over the same ends whose values the command takes as they are.

    The step is the smallest of 1, 2 or 5 times a power of ten that keeps the values within
    the option's own default limit (``max_thresholds`` for ``--thresholds``: 10,000), else
    within :data:`MAX_RANGE_VALUES`.
    """
    most = min(MAX_RANGE_VALUES, getattr(DEFAULTS, f"max_{name}", MAX_RANGE_VALUES))
    need = (stop - start) / (most - 1)
    step = Decimal(1).scaleb(need.adjusted()) if need > 0 else Decimal(1)
    for factor in (1, 2, 5, 10):
        if step * factor >= need:
            step = (step * factor).normalize()
            break
    count = int((stop - start) // step) + 1
    return {"example": ":".join(format(d.normalize(), "f") for d in (start, stop, step)),
            "count": count}


def _split(text: str, opt: Opt, cast: Callable[[str], Any]) -> list[Any]:
    items = split_items(text)
    parts = [unquote(p) for p in items if p] if cast is str else [p for p in items if p.strip()]
    try:
        if cast is read_number and len(parts) == 1 and parts[0].count(":") == 2:
            start, stop, step = (read_number(x) for x in parts[0].split(":"))
            if not all(x.is_finite() for x in (start, stop, step)) or step <= 0 \
                    or stop < start:
                raise ValueError
            count = int((stop - start) // step) + 1  # exact: decimals, both ends included
            if count > MAX_RANGE_VALUES:  # refused before any value is built
                raise E.SizeLimitError(E.CLI_RANGE_TOO_LONG.format(
                    flag=opt.flag, text=text, size=count, limit=MAX_RANGE_VALUES,
                    **_coarser_range(start, stop, opt.name)))
            with localcontext() as ctx:
                ctx.prec = 60  # exact for any written decimals: no step rounds
                return [start + i * step for i in range(count)]
        return [cast(p) for p in parts]
    except E.SizeLimitError:
        raise
    except (ValueError, ArithmeticError):
        raise E.InvalidArgumentError(E.CLI_BAD_LIST.format(
            flag=opt.flag, value=text, kind=LISTS[opt.kind])) from None


def _mapping(items: Sequence[str], opt: Opt) -> dict[str, Any]:
    """``--bins age=5 --bins income=0,20000,50000`` -> ``{"age": 5, "income": [0.0, ...]}``.

    ``--benchmark sex=F:0.5,M:0.5`` -> ``{"sex": {"F": 0.5, "M": 0.5}}`` (a number per value;
    a value is read as a Python literal where it is one, else kept as text). ``--membership
    g=a:p_a, b:p_b`` -> ``{"g": {"a": "p_a", "b": "p_b"}}``: a group and its probability are
    names, so the spaces around them are dropped (a group that holds spaces at its ends is
    written in double quotes); a group left empty, or given twice once the spaces are
    dropped (``a:p_a, a :p_b``), is refused.
    """
    out: dict[str, Any] = {}
    for item in items:
        named = split_name(item)  # the quoting rule of every option (cli.quoting.QUOTING)
        try:
            if named is None or not named[0] or not named[1].strip():
                raise ValueError
            column, spec = named
            parts = split_items(spec)
            if opt.kind in ("shares", "groups"):
                pairs = [p.rpartition(":") for p in parts]
                if opt.kind == "groups":  # names, not data values: spaces around are layout
                    pairs = [(v.strip(), c, x.strip()) for v, c, x in pairs]
                if any(not v or not c or not x for v, c, x in pairs):
                    raise ValueError
                read = unquote if opt.kind == "groups" else read_number
                if opt.kind == "groups":
                    _membership_typo(item, column, spec)
                    _once(opt, item, "attribute", [*out, column])
                    note_membership(column, spec)  # advice renaming it repeats the rest
                    _once(opt, item, "group", [_share_value(v) for v, _, _ in pairs])
                out[column] = {_share_value(v): read(x) for v, _, x in pairs}
                continue
            out[column] = int(parts[0]) if len(parts) == 1 else [read_number(x) for x in parts]
        except E.InvalidArgumentError:  # a name given twice (_once): its own message
            raise
        except ValueError:
            raise E.InvalidArgumentError(E.CLI_BAD_LIST.format(
                flag=opt.flag, value=item, kind=LISTS[opt.kind])) from None
    return out


def _membership_fault(spec: str) -> str | None:
    """Why ``--membership``'s groups (the text after ``A=``) are no list of groups, or None.

    A group (unquoted) or a column holding ``:`` or ``;`` (``a:p_a;b:p_b`` read as one group
    ``a:p_a;b``), or a single group (an audit compares groups), is a typo, not a membership.
    """
    pairs = [p.rpartition(":") for p in split_items(spec)]
    for group, _, column in pairs:
        group = group.strip()
        if not group or not column.strip():
            return "a group or its column is left out"
        if unquote(group) == group and (":" in group or ";" in group):
            return f"the group {group!r} holds ':' or ';'"
        if unquote(column.strip()) == column.strip() and ";" in column:
            return f"the column {column.strip()!r} holds ';'"
    if len(pairs) == 1:
        return f"it lists one group ({pairs[0][0].strip()!r}), and an audit compares groups"
    return None


def _membership_typo(item: str, column: str, spec: str) -> None:
    """Refuse ``--membership`` text that is a typo (:func:`_membership_fault`), with a guess.

    The guess (``;`` or spaces between pairs read as ``,``) is offered only when it parses as
    two or more groups.
    """
    why = _membership_fault(spec)
    if why is None:
        return
    fixed = re.sub(r"\s*;\s*|(?<=[^\s,;])\s+(?=[^\s:,;]+:)", ",", spec.strip())
    advice = ""
    if fixed != spec.strip() and _membership_fault(fixed) is None:
        advice = E.CLI_MEMBERSHIP_GUESS.format(fixed=E.shell_word(f"{column}={fixed}"))
    raise E.InvalidArgumentError(E.CLI_MEMBERSHIP_TYPO.format(given=item, why=why,
                                                              advice=advice))


def _once(opt: Opt, item: str, what: str, names: Sequence[Any]) -> None:
    """Refuse a name given twice in ``--membership`` (a later one would replace the first)."""
    seen: set[Any] = set()
    for name in names:
        if name in seen:
            raise E.InvalidArgumentError(E.CLI_MEMBERSHIP_TWICE.format(
                what=what, name=name, given=item))
        seen.add(name)


def _share_value(text: str) -> Any:
    """A value of ``--benchmark``: a quoted one as written, else a Python literal or the text."""
    return unquote(text) if unquote(text) != text else _literal(text)


def _literal(text: str) -> Any:
    """A Python literal (``1``, ``2.5``, ``True``) where the text is one, else the text."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def convert(opt: Opt, value: Any) -> Any:
    """A command-line value as the method or count argument takes it.

    Parameters
    ----------
    opt : Opt
        The option.
    value : Any
        What typer parsed (text for lists and values).

    Returns
    -------
    Any
        A list for ``texts`` / ``floats`` / ``ints`` (comma-separated, or ``START:STOP:STEP``
        for numbers, both ends included); a Python literal or the text for ``value``; the
        value itself otherwise.

    Raises
    ------
    InvalidArgumentError
        A list item that is not a number.

    Examples
    --------
    >>> convert(Opt("thresholds", "floats", None, ""), "0.2:0.4:0.1")
    [Decimal('0.2'), Decimal('0.3'), Decimal('0.4')]
    """
    if value is None:
        return None
    if opt.kind == "texts":
        return _split(value, opt, str)
    if opt.kind in ("floats", "ints"):
        return _split(value, opt, read_number if opt.kind == "floats" else int)
    if opt.kind in ("mapping", "shares", "groups"):
        return _mapping(value, opt) or None
    if opt.kind == "value" and isinstance(value, str):
        return _literal(value)
    return value


def run_analysis(owner: type, method: str, values: dict[str, Any]) -> tuple[pl.DataFrame, str]:
    """Run one generated command: scan, resolve, count once, call the method.

    Parameters
    ----------
    owner : type
        :class:`FairCounts` or :class:`FairScores`.
    method : str
        The method.
    values : dict
        The command's parsed options (every :func:`method_options` name, ``path``, ``by``,
        ``where``, ``separator``, ``dtype``).

    Returns
    -------
    frame : pl.DataFrame
        The method's collected result.
    header : str
        A line describing the run (the table format prints it above the table).

    Raises
    ------
    PolarsFairError
        Bad input, as :func:`polars_fair.cli.io.resolve_inputs`, :func:`polars_fair.counts`,
        :func:`polars_fair.scores` and the method.

    Examples
    --------
    >>> from polars_fair.datasets import example_file, make_hiring
    >>> path = example_file(make_hiring(600, seed=0))
    >>> values = {o.name: o.default for o in method_options(FairCounts, "rates")}
    >>> df, header = run_analysis(FairCounts, "rates", {**values, "path": path, "by": ["sex"],
    ...                           "where": None, "separator": None, "dtype": None})
    >>> df["n"].sum(), header
    (600, "polars-fair rates: 2 row(s); by ['sex']; 600 rows counted")
    """
    import polars_fair

    opts = method_options(owner, method)
    counts, moments = owner is FairCounts, owner is FairMoments
    path: Path = values["path"]
    lf = scan(path, values.get("separator"), parse_dtypes(values.get("dtype")))
    if owner is FairClassCounts:
        return _run_classes(method, values, opts, lf)
    given = {o.name: convert(o, values.get(o.name, o.default)) for o in opts}
    y_true_text = given["y_true"]
    if moments:  # --y-pred is the continuous value; --y-true is optional
        y_pred_text = given.get("y_pred")
        if y_pred_text is None:
            raise E.InvalidArgumentError(E.CONTINUOUS_NEEDS_Y_PRED)
        y_true_text = y_true_text or y_pred_text
    elif counts and given.get("y_score") is None and given.get("y_pred") is None:
        y_pred_text = "y_pred"
    else:
        y_pred_text = given.get("y_pred") if counts else None
    try:
        args = resolve_inputs(
            lf, values["by"], y_true_text=y_true_text, y_pred_text=y_pred_text,
            y_score_text=given.get("y_score"), pos_label_text=given.get("pos_label"),
            reference_text=given.get("reference"), where=values.get("where"),
            source=path.name, membership=given.get("membership"),
        )
    except E.InvalidArgumentError:  # --reference dept=A,sex=F naming a stratum (several --by)
        _stratum_as_reference(given.get("reference"), given.get("strata"), values["by"])
        raise
    schema = args.lf.collect_schema()
    count_kw: dict[str, Any] = {}
    for o in opts:
        if o.target != "count":
            continue
        value = given[o.name]
        if o.name in ("y_true", "y_pred", "y_score", "pos_label"):
            value = getattr(args, o.name)
        else:
            value = read_against(o, value, schema)
        count_kw[o.name] = value
    if moments and given["y_true"] is None:
        count_kw["y_true"] = None
    method_kw = {o.name: given[o.name] for o in opts if o.target == "method"}
    if "reference" in method_kw:
        method_kw["reference"] = args.reference
    strata = method_kw.get("strata")
    for name in [strata] if isinstance(strata, str) else list(strata or []):
        note_attribute_flag(name, "--strata")  # advice about a stratum names --strata
    if counts and method in ROWS_LEVEL:  # the namespace's method, on the rows
        fair: Any = _namespace()(args.lf)
        try:
            frame = getattr(fair, method)(args.by, **method_kw, **count_kw).collect()
        except (E.UnknownGroupError, E.InvalidArgumentError):  # as read: no such group
            _stratum_as_reference(given.get("reference"), method_kw.get("strata"), args.by)
            raise
        member = set(count_kw.get("membership") or {})  # its attribute: a key, not a column
        keys = [k for k in frame.columns if k in set(schema.names()) | member | {
            b.meta.output_name() for b in args.by if isinstance(b, pl.Expr)}]
        return frame, (f"polars-fair {command_name(method)}: {frame.height} row(s); by "
                       f"{keys}" + ratio_note(frame, keys))
    if moments:
        obj: Any = polars_fair.moments(args.lf, args.by, **count_kw)
    elif counts:
        obj = polars_fair.counts(args.lf, args.by, **count_kw)
    else:
        obj = polars_fair.scores(args.lf, args.by, **count_kw)
    frame = getattr(obj, method)(**method_kw).collect()
    rows = rows_text(obj.frame, count_kw.get("sample_weight") is not None)
    header = (f"polars-fair {command_name(method)}: {frame.height} row(s); by "
              f"{list(obj.keys)}; {rows} counted")
    if method == "impact_analysis":  # no silent choice of the benchmark
        header += impact_note(frame, list(obj.keys), method_kw["reference"],
                              method_kw["min_support"]) + ratio_note(frame, list(obj.keys))
    return frame, header


#: The ``--membership`` option as :func:`read_against` reads it (for a hand-written command).
GROUPS = Opt("membership", "groups", None, "")


def read_against(opt: Opt, value: Any, schema: pl.Schema) -> Any:
    """A converted option read against the input's columns (after :func:`convert`).

    Parameters
    ----------
    opt : Opt
        The option.
    value : Any
        Its converted value.
    schema : pl.Schema
        The input's schema.

    Returns
    -------
    Any
        For a ``column`` option, the column or a SQL expression over the columns
        (:func:`polars_fair.cli.io.column_or_sql`); for ``groups`` (``--membership``), the same
        for each group's probability (``g=a:p_a,b:1 - p_a``); any other value as it is.

    Raises
    ------
    ColumnNotFoundError, SQLRefusedError, NotRowLevelError
        As :func:`polars_fair.cli.io.column_or_sql`, naming the flag.

    Examples
    --------
    >>> schema = pl.Schema({"p_a": pl.Float64})
    >>> opt = Opt("membership", "groups", None, "")
    >>> got = read_against(opt, {"g": {"a": "p_a", "b": "1 - p_a"}}, schema)
    >>> got["g"]["a"], got["g"]["b"].meta.output_name()
    ('p_a', '1 - p_a')
    """
    if value is None:
        return None
    if opt.kind == "column":
        return column_or_sql(value, schema, opt.flag)
    if opt.kind == "groups":
        return {attribute: {group: column_or_sql(text, schema, opt.flag)
                            for group, text in groups.items()}
                for attribute, groups in value.items()}
    return value


def _stratum_as_reference(text: str | None, strata: Any, by: list[str | pl.Expr]) -> None:
    """Raise :data:`polars_fair.errors.REFERENCE_IS_STRATUM` when ``--reference`` names a stratum.

    Called once the reference was refused (``--reference dept=A`` with ``dept`` a stratum):
    with one ``--by`` the text was read as a group value the groups lack (the message said the
    group does not exist), with several as a mapping over another attribute.
    """
    names = [strata] if isinstance(strata, str) else list(strata or [])
    for item in split_items(text) if text and names else []:
        split = split_name(item)
        if split is not None and split[0] in names:
            groups = [b if isinstance(b, str) else b.meta.output_name() for b in by]
            raise E.InvalidArgumentError(E.REFERENCE_IS_STRATUM.format(  # once, not chained
                column=split[0], groups=groups)) from None


def _run_classes(method: str, values: dict[str, Any], opts: list[Opt],
                 lf: pl.LazyFrame) -> tuple[pl.DataFrame, str]:
    """:func:`run_analysis` of a multiclass method: the class table, then the method.

    ``--classes`` is read in the prediction's dtype (``--classes 0,1,2`` for an integer
    column).
    """
    import polars_fair

    path: Path = values["path"]
    given = {o.name: convert(o, values.get(o.name, o.default)) for o in opts}
    where = values.get("where")
    if where:
        lf = lf.filter(where_condition(lf, where))
    schema = lf.collect_schema()
    for b in values["by"]:
        check_one_attribute(b, schema)
    by = [column_or_sql(b, schema, "--by") for b in values["by"]]
    table_kw: dict[str, Any] = {}
    for o in opts:
        if o.target != "count":
            continue
        value = given[o.name]
        if o.kind == "column" and value is not None:
            value = column_or_sql(value, schema, o.flag)
        table_kw[o.name] = value
    check_rows(lf, path.name)
    method_kw = {o.name: given[o.name] for o in opts if o.target == "method"}
    dtype = lf.select(table_kw["y_pred"]).collect_schema().dtypes()[0]
    for kw in (table_kw, method_kw):  # read as --pos-label is: in the prediction's dtype
        if kw.get("classes") is not None:
            kw["classes"] = [parse_value(c, dtype, "--classes") for c in kw["classes"]]
    if "reference" in method_kw:
        method_kw["reference"] = parse_reference(method_kw["reference"], lf, by)
    obj = polars_fair.class_counts(lf, by, **table_kw)
    note_group_keys(list(obj.keys))  # a missing group and the text "null" read apart
    frame = getattr(obj, method)(**method_kw).collect()
    rows = int(obj.frame.select(pl.col("n").sum()).collect().item())
    return frame, (f"polars-fair {command_name(method)}: {frame.height} row(s); by "
                   f"{list(obj.keys)}; {rows:,} rows counted")


def _page(cls: type, method: str, values: dict[str, Any]) -> str | None:
    """The command's HTML page with ``--html`` (:mod:`polars_fair.cli.pages`), else None."""
    if method not in PAGES:
        return None
    if values.get("html") is None:
        for flag in PAGE_FLAGS:
            if values.get(flag) is not None:
                raise E.InvalidArgumentError(E.CLI_PAGE_OPTION.format(flag=f"--{flag}"))
        return None
    opts = method_options(cls, method)
    given = {o.name: convert(o, values.get(o.name, o.default)) for o in opts}
    return page_html(method, values, given, {o.name: o for o in opts})


def rows_text(table: pl.DataFrame | pl.LazyFrame, weighted: bool = False) -> str:
    """How many rows a count table counted, as a header says it.

    A crisp table's ``n`` sums to the rows. A weighted membership table (with ``n_effective``)
    counts a row in every group it may belong to, so its ``n`` does not: each row's
    probabilities sum to 1, so ``weight_sum`` summed over the groups is the number of rows
    (the sum of the weights with ``--sample-weight``, then said as such).

    Parameters
    ----------
    table : pl.DataFrame or pl.LazyFrame
        The count table.
    weighted : bool, default False
        ``--sample-weight`` was given.

    Returns
    -------
    str
        ``"1,000 rows"`` or ``"a weight of 812.5"``.

    Examples
    --------
    >>> rows_text(pl.DataFrame({"g": ["a", "b"], "n": [4, 4], "tp": [1.5, 0.5],
    ...                         "weight_sum": [2.5, 1.5], "n_effective": [2.0, 1.0]}))
    '4 rows'
    """
    lazy = table.lazy()
    if "n_effective" not in lazy.collect_schema():
        return f"{_rows_counted(lazy):,} rows"
    total = lazy.select(pl.col("weight_sum").sum()).collect().item()
    return f"a weight of {total:,.4g}" if weighted else f"{round(total):,} rows"


def _rows_counted(obj: Any) -> int:
    table = obj if isinstance(obj, pl.LazyFrame) else obj.frame
    if "n" in table.collect_schema():
        col = "n"
    elif "n_rows" in table.collect_schema():
        col = "n_rows"
    else:
        return int(table.select(pl.col("positives").sum() + pl.col("negatives").sum())
                   .collect().item())
    if "attributes" in table.collect_schema():  # stacked sets: the first set holds every row
        table = table.filter(pl.col("attributes") == pl.first("attributes"))
    return int(table.select(pl.col(col).sum()).collect().item())


def _callback(cls: type, method: str, guard: Callable[..., None]) -> Callable[..., None]:
    def command(**values: Any) -> None:
        def run() -> None:
            html = values.get("html")
            fmt = check_outputs(values["format"], values["output"], html,
                                inputs=[values["path"]])
            page = _page(cls, method, values)  # everything computed before anything is written
            frame, header = run_analysis(cls, method, values)
            frame = exact_thresholds(frame, values, fmt)  # the limits the verdicts used
            frame, header = select_columns(frame, values["columns"], fmt, header)
            emit(frame, fmt, values["output"], header)
            if html is not None and page is not None:
                html.write_text(page, encoding="utf-8")
                typer.echo(f"polars-fair: wrote the HTML audit to {html}", err=True)

        guard(run, json_errors=values["format"] == "json")

    rows = cls is FairCounts and method in ROWS_LEVEL
    fn = getattr(_namespace() if rows else cls, method)
    head, _ = parse(fn.__doc__ or "")
    what = {FairCounts: "counts", FairScores: "scores", FairMoments: "moments",
            FairClassCounts: "class_counts"}[cls]
    api = (f"pl.scan_...(PATH).fair.{method}(--by ..., ...): the Python API's namespace method "
           f"lf.fair.{method}" if rows else
           f"polars_fair.{what}(PATH, --by ...).{method}(...): the Python API's "
           f"{cls.__name__}.{method}")
    example = HELP_EXAMPLES.get(command_name(method))
    command.__doc__ = (f"{_plain(head.split(chr(10) + chr(10))[0])}\n\n{api}, its options "
                       "generated from the declaration."
                       + (f"\n\n{UNWEIGHTED[method]}" if method in UNWEIGHTED else "")
                       + (f"\n\n{ONE_SET[method]}" if method in ONE_SET else "")
                       + (f"\n\nExample: {example}" if example else ""))
    opts = method_options(cls, method)
    params = _io_parameters(by_optional=any(o.kind == "groups" for o in opts))
    params += [_parameter(o) for o in opts]
    if method in PAGES:  # a command with an audit page of its own: --html and its texts
        params += page_parameters()
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {}
    command.__name__ = method
    return command


def register(app: typer.Typer, guard: Callable[..., None]) -> list[str]:
    """Add a subcommand to ``app`` for every analysis method without a hand-written command.

    Also adds each option's flag to :data:`polars_fair.cli.io.FLAGS`, so messages naming a
    parameter name its flag.

    Parameters
    ----------
    app : typer.Typer
        The command line.
    guard : callable
        Runs a command's body: one line and exit 2 for a failure
        (:func:`polars_fair.cli.entry._guard`).

    Returns
    -------
    list of str
        The subcommands added.

    Examples
    --------
    >>> from polars_fair.cli.entry import app, _guard
    >>> probe = typer.Typer()
    >>> "abroca-test" in register(probe, _guard)
    True
    """
    added = []
    methods = analysis_methods()
    for cls, method in methods.values():
        for o in method_options(cls, method):
            FLAGS.setdefault(o.name, o.flag)
    for name, (cls, method) in methods.items():
        if method in HAND_WRITTEN:
            continue
        app.command(name=name, cls=ReadableCommand)(_callback(cls, method, guard))
        added.append(name)
    return added


def declared(owner: type, method: str, names: Sequence[str]) -> Callable[[F], F]:
    """Add options read from a method's declaration to a hand-written command's signature.

    The command takes them in ``**declared`` (typer passes every option by name).

    Parameters
    ----------
    owner : type
        :class:`FairCounts` or :class:`FairScores`.
    method : str
        The method whose options (:func:`method_options`, count arguments included) are added.
    names : sequence of str
        The options to add, in order.

    Returns
    -------
    callable
        A decorator setting the command's ``__signature__``.

    Raises
    ------
    KeyError
        A name the method and its count arguments do not declare (when the module is
        imported).

    Examples
    --------
    >>> @declared(FairCounts, "report", ["four_fifths"])
    ... def cmd(path: str, **declared: Any) -> None: ...
    >>> list(inspect.signature(cmd).parameters)
    ['path', 'four_fifths']
    """
    def deco(fn: F) -> F:
        opts = {o.name: o for o in method_options(owner, method)}
        sig = inspect.signature(fn, eval_str=True)  # typer reads the Annotated options
        params = [p for p in sig.parameters.values() if p.kind is not p.VAR_KEYWORD]
        params += [_parameter(opts[n]) for n in names]
        fn.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
        return fn

    return deco
