"""Explaining divergent patterns: redundancy pruning and the Shapley values of their items.

Each function reads a divergence table
(:func:`polars_fair.analyses.divergence.divergence_from_counts`: ``attributes``, the attribute
columns, ``n``, ..., ``divergence``) and nothing else:
:func:`top_divergent` prunes redundant patterns (DivExplorer's redundancy pruning),
:func:`shapley_values` and :func:`global_shapley_values` explain them (DivExplorer's Shapley
values of items, per pattern and over every pattern; Pastor, de Alfaro & Baralis, SIGMOD 2021).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair._lazy import np
from polars_fair.core import rules as R
from polars_fair.core.labels import MISSING_GROUP, text_of
from polars_fair.core.spec import check_int

__all__ = ["global_shapley_values", "shapley_values", "top_divergent"]


class Item(NamedTuple):
    """One item of a pattern, by identity: its attribute, its value and whether it is missing.

    Its printed text (:attr:`label`, DivExplorer's ``"attribute=value"``) is for reading only:
    an attribute name may hold ``=``. A missing value reads ``(missing)``, the text ``"None"``
    reads ``None``.

    Parameters
    ----------
    attribute : str
        The attribute (a key column).
    value : Any
        The value; ``None`` when missing.
    missing : bool
        Whether the value is missing (the rows whose attribute is null).

    Examples
    --------
    >>> Item("race", None, True) == Item("race", "None", False)
    False
    >>> Item("age>=25", True, False).label
    'age>=25=True'
    >>> Item("race", None, True).label, Item("race", "None", False).label
    ('race=(missing)', 'race=None')
    """

    attribute: str
    value: Any
    missing: bool

    @property
    def label(self) -> str:
        """``"attribute=value"``, as DivExplorer prints an item; missing reads ``(missing)``.

        A missing value reads ``(missing)``, the spelling of a missing group everywhere text
        names one (:data:`polars_fair.core.labels.MISSING_GROUP`), so it never prints as the
        text ``"None"``; a text that could be read as it (``"(missing)"``, or one starting with
        ``"``) is written in double quotes (:func:`polars_fair.core.labels.text_of`).
        """
        if self.missing:
            shown = MISSING_GROUP
        elif isinstance(self.value, str):
            shown = text_of(self.value)
        else:
            shown = str(self.value)
        return f"{self.attribute}={shown}"


def _order(item: Item) -> tuple[str, str, bool]:
    """Items sorted by their text, then attribute, then missing (the values may not compare)."""
    return item.label, item.attribute, item.missing


def _items(df: pl.DataFrame, keys: Sequence[str]) -> list[frozenset[Item]]:
    """Each pattern as a frozenset of its items, by identity (:class:`Item`)."""
    out = []
    pos = {k: i for i, k in enumerate(keys)}
    for attrs, *values in df.select("attributes", *keys).iter_rows():
        out.append(frozenset(Item(a, values[pos[a]], values[pos[a]] is None) for a in attrs))
    return out


def _keys_of(patterns: pl.DataFrame) -> list[str]:
    names = patterns.columns
    if "attributes" not in names or "n" not in names or "divergence" not in names:
        raise E.InvalidArgumentError(E.NOT_A_DIVERGENCE_TABLE.format(columns=names))
    return names[names.index("attributes") + 1: names.index("n")]


def _scores(patterns: pl.DataFrame, keys: Sequence[str]) -> dict[frozenset[Item], float]:
    items = _items(patterns, keys)
    div = [math.nan if v is None else float(v) for v in patterns["divergence"].to_list()]
    scores = dict(zip(items, div, strict=True))
    scores[frozenset()] = 0.0
    return scores


def _collect(patterns: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    return patterns.collect() if isinstance(patterns, pl.LazyFrame) else patterns


def top_divergent(patterns: pl.DataFrame | pl.LazyFrame, k: int | None = None, *,
                  epsilon: float = 0.0) -> pl.DataFrame:
    """The most harmful patterns without redundant ones (DivExplorer's redundancy pruning).

    A pattern ``I`` is redundant when removing one of its items barely changes its divergence:
    ``|Δ(I) − Δ(I ∖ {item})| <= epsilon`` for some item (the divergence of the empty pattern
    is 0, so a single item within ``epsilon`` of 0 is dropped too). "Black ∧ male" then does
    not crowd out "Black" when sex adds nothing
    (``divexplorer.DivergencePatternProcessor.redundancy_pruning``). A pattern with an
    undefined divergence is kept.

    Parameters
    ----------
    patterns : pl.DataFrame or pl.LazyFrame
        The output of ``divergence`` (every frequent pattern, so each sub-pattern is present).
    k : int, optional
        Keep the first ``k`` patterns left (in the table's order, most harmful first).
    epsilon : float, default 0.0
        The redundancy threshold, >= 0.

    Returns
    -------
    pl.DataFrame
        The rows of ``patterns`` that are not redundant, in their order (the first ``k``).

    Raises
    ------
    InvalidArgumentError
        ``patterns`` is not a divergence table, ``k`` not an integer >= 1, ``epsilon`` not a
        number >= 0.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.analyses.divergence import divergence_from_counts
    >>> c = pl.LazyFrame({"race": ["a", "a", "b", "b"], "sex": ["F", "M", "F", "M"],
    ...                   "n": [50] * 4, "tp": [10] * 4, "fp": [20, 20, 10, 10],
    ...                   "fn": [0] * 4, "tn": [20, 20, 30, 30]})
    >>> d = divergence_from_counts(c, ["race", "sex"], min_support=0.25)
    >>> top_divergent(d, epsilon=0.01).select("attributes", "race", "sex").rows()
    [(['race'], 'a', None), (['race'], 'b', None)]
    """
    df = _collect(patterns)
    keys = _keys_of(df)
    eps = float(R.option(epsilon, "epsilon", low=0))
    scores = _scores(df, keys)
    keep = []
    for items in _items(df, keys):
        v = scores[items]
        redundant = any(abs(v - scores.get(items - {i}, math.nan)) <= eps for i in items)
        keep.append(not redundant)
    out = df.filter(pl.Series(keep, dtype=pl.Boolean))
    return out if k is None else out.head(check_int(k, "k"))


def _shapley(items: frozenset[Item], scores: Mapping[frozenset[Item], float],
             ) -> dict[Item, float]:
    n = len(items)
    out = {}
    for i in sorted(items, key=_order):
        rest = sorted(items - {i}, key=_order)
        total = 0.0
        for r in range(len(rest) + 1):
            w = math.factorial(r) * math.factorial(n - r - 1) / math.factorial(n)
            for sub in itertools.combinations(rest, r):
                s = frozenset(sub)
                total += w * (scores.get(s | {i}, math.nan) - scores.get(s, math.nan))
        out[i] = total
    return out


def shapley_values(patterns: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    r"""Each item's contribution to its pattern's divergence: its Shapley value.

    For a pattern :math:`I` and an item :math:`\alpha \in I` (Pastor et al. 2021, Def. 4.1;
    ``divexplorer.shapley_value.compute_shapley_value``):

    .. math::

        \Delta_I(\alpha) = \sum_{B \subseteq I \setminus \{\alpha\}}
        \frac{|B|!\,(|I| - |B| - 1)!}{|I|!}\,
        \bigl[\Delta(B \cup \{\alpha\}) - \Delta(B)\bigr]

    with :math:`\Delta(\emptyset) = 0`, so the items' values sum to the pattern's divergence.
    Every sub-pattern of a frequent pattern is frequent, so the divergence table holds them.

    Parameters
    ----------
    patterns : pl.DataFrame or pl.LazyFrame
        The output of ``divergence``.

    Returns
    -------
    pl.DataFrame
        One row per pattern and item, patterns in the table's order, items sorted:
        ``attributes`` and the keys (the pattern, as in ``patterns``), ``item`` (String,
        ``"attribute=value"``, for reading), ``item_attribute`` (String, the item's attribute:
        with the row's key it identifies the item, a null key being the missing value),
        ``shapley`` (Float64; null where a divergence it reads is). Items are told apart by
        (attribute, value, missing), never by their text (:class:`Item`): a missing value and
        the text ``"None"`` are two items, and an attribute name may hold ``=``.

    Raises
    ------
    InvalidArgumentError
        ``patterns`` is not a divergence table.

    Examples
    --------
    >>> from polars_fair.analyses.divergence import divergence_from_counts
    >>> from polars_fair.datasets import example_counts
    >>> d = divergence_from_counts(example_counts().lazy(), ["race", "sex"], min_support=0.25)
    >>> shapley_values(d).head(2).select("item", "shapley").rows()
    [('race=a', 0.1875), ('sex=F', 0.1875)]
    """
    df = _collect(patterns)
    keys = _keys_of(df)
    scores = _scores(df, keys)
    rows: list[int] = []
    names: list[Item] = []
    values: list[float] = []
    for idx, items in enumerate(_items(df, keys)):
        for item, v in _shapley(items, scores).items():
            rows.append(idx)
            names.append(item)
            values.append(v)
    base = df.select("attributes", *keys)[rows] if rows else df.select("attributes", *keys).clear()
    return base.with_columns(
        item=pl.Series([i.label for i in names], dtype=pl.String),
        item_attribute=pl.Series([i.attribute for i in names], dtype=pl.String),
        shapley=pl.Series(np.asarray(values, dtype=np.float64), nan_to_null=True))


@borrow(shapley_values, params=("patterns",), sections=("Raises",))
def global_shapley_values(patterns: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    r"""Each item's contribution to divergence over every frequent pattern (global Shapley).

    DivExplorer's global Shapley value (Pastor et al. 2021, Def. 4.3;
    ``divexplorer.DivergencePatternProcessor.global_shapley_value``) of an item
    :math:`\alpha` of attribute :math:`a`, with :math:`A` the attributes that have a frequent
    item and :math:`m_b` the number of frequent items of attribute :math:`b`:

    .. math::

        \Delta^g(\alpha) = \sum_{J}
        \frac{|J|!\,(|A| - |J| - 1)!}{|A|!\,\prod_{b \in attr(J) \cup \{a\}} m_b}
        \bigl[\Delta(J \cup \{\alpha\}) - \Delta(J)\bigr]

    over the frequent patterns :math:`J` (the empty one included) without attribute :math:`a`
    whose union with :math:`\alpha` is frequent.

    Returns
    -------
    pl.DataFrame
        One row per frequent item, sorted by ``global_shapley`` descending: ``attribute``,
        ``item`` (String, ``"attribute=value"``, for reading), ``missing`` (Boolean: the item
        is the missing value of ``attribute``), ``divergence`` (Float64, the item's own),
        ``global_shapley`` (Float64). Items are identified by (attribute, value, missing)
        (:class:`Item`), so an attribute name holding ``=``, or a value whose text is
        ``"None"``, is its own item.

    Examples
    --------
    >>> from polars_fair.analyses.divergence import divergence_from_counts
    >>> from polars_fair.datasets import example_counts
    >>> d = divergence_from_counts(example_counts().lazy(), ["race", "sex"], min_support=0.25)
    >>> g = global_shapley_values(d)
    >>> g.select("item", "global_shapley").head(1).rows()
    [('race=a', 0.0625)]
    """
    df = _collect(patterns)
    keys = _keys_of(df)
    scores = _scores(df, keys)
    singles = [next(iter(s)) for s in scores if len(s) == 1]  # each an Item: no text is split

    card: dict[str, int] = {}
    for it in singles:
        card[it.attribute] = card.get(it.attribute, 0) + 1
    n_attr = len(card)
    out = []
    for it in singles:
        a = it.attribute
        total = 0.0
        for j, dj in scores.items():
            if any(x.attribute == a or x.attribute not in card for x in j):
                continue
            joined = j | {it}
            if joined not in scores:
                continue
            prod = math.prod(card[x.attribute] for x in joined)
            w = math.factorial(len(j)) * math.factorial(n_attr - len(j) - 1) / (
                math.factorial(n_attr) * prod)
            total += (scores[joined] - dj) * w
        out.append((a, it.label, it.missing, scores[frozenset([it])], total))
    frame = pl.DataFrame(out, orient="row", schema={
        "attribute": pl.String, "item": pl.String, "missing": pl.Boolean,
        "divergence": pl.Float64, "global_shapley": pl.Float64}).fill_nan(None)
    return frame.sort("global_shapley", "item", "attribute", "missing",
                      descending=[True, False, False, False], nulls_last=True)
