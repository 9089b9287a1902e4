"""The one dtype of a multiclass audit's label and prediction, or a typed refusal.

:func:`class_dtype` decides the dtype the classes of ``y_true`` and ``y_pred`` are read in;
:func:`check_enum_pair` refuses two Enums of no one class order; ``_kinds_error`` is the error
of a text label beside a numeric prediction (or the reverse), whose advice reads the values.
Kept apart from :mod:`polars_fair.counting.classes` (the class table) for its length.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair.core.spec import Audit
from polars_fair.counting import boundary
from polars_fair.counting.tables import Engine

__all__ = ["check_enum_pair", "class_dtype"]


def _is_text(dtype: pl.DataType) -> bool:
    return dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum))


def class_dtype(true_dtype: pl.DataType | None, pred_dtype: pl.DataType) -> pl.DataType:
    """The one dtype of the classes of a label and a prediction.

    Parameters
    ----------
    true_dtype : pl.DataType, optional
        The label's dtype (``None`` without labels).
    pred_dtype : pl.DataType
        The prediction's dtype.

    Returns
    -------
    pl.DataType
        The common dtype: the dtype itself when both agree; an Enum prediction's Enum with a
        String or Categorical label (the classes are its categories, in its order); of two
        Enums, the one whose categories hold the other's in the same order (``[Low, High]``
        within ``[Low, Medium, High]``); ``String`` for two other different text dtypes (two
        Enums of no one order: :func:`check_enum_pair` refuses them without ``classes=``);
        ``Float64`` when either number is a float, else ``Int64``.

    Examples
    --------
    >>> class_dtype(pl.Int32, pl.Int64), class_dtype(pl.Categorical(), pl.String)
    (Int64, String)
    >>> class_dtype(pl.Enum(["Low", "High"]), pl.Enum(["Low", "Medium", "High"]))
    Enum(categories=['Low', 'Medium', 'High'])
    """
    if true_dtype is None or true_dtype == pred_dtype or true_dtype == pl.Null:
        return pred_dtype
    if pred_dtype == pl.Null:
        return true_dtype
    if isinstance(pred_dtype, pl.Enum) and isinstance(true_dtype, pl.Enum):
        for small, big in ((true_dtype, pred_dtype), (pred_dtype, true_dtype)):
            if _within(small.categories.to_list(), big.categories.to_list()):
                return big
    if isinstance(pred_dtype, pl.Enum) and (true_dtype == pl.String
                                            or isinstance(true_dtype, pl.Categorical)):
        return pred_dtype
    if _is_text(true_dtype) and _is_text(pred_dtype):
        return pl.String()
    return pl.Float64() if true_dtype.is_float() or pred_dtype.is_float() else pl.Int64()


def _within(small: list[Any], big: list[Any]) -> bool:
    """Whether ``small`` is a subsequence of ``big`` (its items there, in its order)."""
    rest = iter(big)
    return all(any(x == y for y in rest) for x in small)


def check_enum_pair(true_dtype: pl.DataType | None, pred_dtype: pl.DataType,
                    classes: Any, names: tuple[str, str]) -> None:
    """Refuse two Enums of no one class order (:func:`class_dtype`) when ``classes`` is not given.

    Parameters
    ----------
    true_dtype : pl.DataType, optional
        The label's dtype.
    pred_dtype : pl.DataType
        The prediction's dtype.
    classes : sequence, optional
        The ``classes=`` argument: given, it is the order (both are read as text).
    names : (str, str)
        The label's and the prediction's column names, for the message.

    Raises
    ------
    InvalidArgumentError
        Two Enums, neither of whose categories holds the other's in its order, and no
        ``classes``; the advice lists the prediction's categories, then the label's others.

    Examples
    --------
    >>> check_enum_pair(pl.Enum(["a"]), pl.Enum(["a", "b"]), None, ("t", "p")) is None
    True
    """
    if classes is not None or not (isinstance(true_dtype, pl.Enum)
                                   and isinstance(pred_dtype, pl.Enum)):
        return
    if isinstance(class_dtype(true_dtype, pred_dtype), pl.Enum):
        return
    true_cats, pred_cats = true_dtype.categories.to_list(), pred_dtype.categories.to_list()
    example = [*pred_cats, *(c for c in true_cats if c not in pred_cats)]
    raise E.class_error(E.InvalidArgumentError, E.ENUM_CLASSES_DIFFER, y_true=names[0],
                        y_pred=names[1], true_categories=E.Classes(true_cats, every=True),
                        pred_categories=E.Classes(pred_cats, every=True),
                        example=E.Classes(example, names[1], every=True))


def check_identifying(df: pl.DataFrame, columns: dict[str, tuple[str, str]]) -> None:
    """Refuse a class column whose values may identify people, with counts, never values.

    The rule of attributes (:func:`polars_fair.counting.boundary.identifying`): a multiclass
    audit would print its classes as an audit by it would print its groups, and its errors
    would list them.

    Parameters
    ----------
    df : pl.DataFrame
        A label or class table: the class columns and ``n``.
    columns : dict of str to (str, str)
        Each class column of ``df`` -> (the column the user gave, its role).

    Raises
    ------
    InvalidLabelError
        :data:`~polars_fair.errors.CLASS_COLUMN_HIDDEN`.

    Examples
    --------
    >>> df = pl.DataFrame({"p": ["Ann", "Bob", "Cy"], "n": [1, 1, 1]})
    >>> check_identifying(df, {"p": ("name", "y_pred")})
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidLabelError: column 'name' (y_pred) is a String column with 3 ...
    """
    for c, (name, role) in columns.items():
        found = boundary.identifying(df, c)
        if found.why is not None:
            raise E.InvalidLabelError(E.CLASS_COLUMN_HIDDEN.format(
                column=name, role=role, dtype=df.schema[c], levels=found.levels,
                rows=found.rows, why=found.why))


def _kinds_error(engine: Engine, a: Audit) -> E.InvalidLabelError:
    """The error of a text label beside a numeric prediction (or the reverse).

    The advice turns the numbers into text when that makes a class in common; when it would
    not (the values are read from the label table, on the error path only), it says so and
    advises leaving ``y_true`` out or mapping both columns, as a cast would only lead to
    :data:`~polars_fair.errors.NO_COMMON_CLASSES`.
    """
    assert a.y_true_name is not None and a.y_pred_name is not None
    assert a.true_dtype is not None
    numeric = ("y_pred", a.y_pred_name) if _is_text(a.true_dtype) else ("y_true", a.y_true_name)
    facts = {"y_true": a.y_true_name, "true_dtype": a.true_dtype, "y_pred": a.y_pred_name,
             "pred_dtype": a.pred_dtype}
    sql = E.sql_name(numeric[1])
    cast = E.InvalidLabelError(
        E.CLASS_KINDS.format(**facts, role=numeric[0], column=numeric[1]),
        cli_message=E.CLI_CLASS_KINDS.format(
            **facts, flag="--" + numeric[0].replace("_", "-"), sql=sql))
    try:
        labels = engine.label_table(a).select(boundary.Y, boundary.P, "n").collect()
    except Exception:  # noqa: BLE001 - values unreadable: the dtypes' advice stands
        return cast
    check_identifying(labels, {boundary.Y: (a.y_true_name, "y_true"),
                               boundary.P: (a.y_pred_name, "y_pred")})
    values = [labels[c].drop_nulls().unique().sort() for c in (boundary.Y, boundary.P)]
    if set(values[0].cast(pl.String).to_list()) & set(values[1].cast(pl.String).to_list()):
        return cast
    return E.class_error(E.InvalidLabelError, E.CLASS_KINDS_APART, E.CLI_CLASS_KINDS_APART,
                         **facts, true_values=E.Classes(values[0].to_list()),
                         pred_values=E.Classes(values[1].to_list()))
