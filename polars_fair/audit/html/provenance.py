"""Where an audit page's numbers came from, and the page's tables as JSON.

:func:`provenance` records the input (its file name, never its directory, with its SHA-256 and
size), the rows read, filtered and audited, every filter and parameter and the versions; the
page's ``<script type="application/json">`` block carries it with every table, and
:func:`page_data` reads that block back.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import platform
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import polars as pl

from polars_fair import __version__
from polars_fair import errors as E
from polars_fair.audit.escape import script_json
from polars_fair.audit.html.text import DATA_ID
from polars_fair.core.numbers import plain_number

__all__ = ["page_data", "provenance"]


def _hash_file(digest: Any, path: Path) -> None:
    """Feed a file to a digest in 1 MiB chunks (a large input is never read whole)."""
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)


def _fingerprint(path: Path) -> dict[str, Any]:
    """The file's name (never its directory), SHA-256 and size.

    A directory's files are hashed in name order (relative name and bytes of each), as one.
    """
    digest = hashlib.sha256()
    if path.is_dir():
        files = sorted(f for f in path.rglob("*") if f.is_file())
        size = 0
        for f in files:
            digest.update(f.relative_to(path).as_posix().encode() + b"\0")
            _hash_file(digest, f)
            size += f.stat().st_size
        return {"name": path.name, "sha256": digest.hexdigest(), "size_bytes": size,
                "files": len(files)}
    _hash_file(digest, path)
    return {"name": path.name, "sha256": digest.hexdigest(), "size_bytes": path.stat().st_size}


def _plain(x: Any) -> Any:
    """A JSON-ready value.

    Expressions and other objects become their text, non-finite floats the strings ``"inf"``,
    ``"-inf"``, ``"nan"`` (JSON has no such numbers).
    """
    if x is None or isinstance(x, (bool, int, str)):
        return x
    if isinstance(x, float):
        if math.isfinite(x):
            return x
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, (Decimal, Fraction)):  # the command line's exact numbers: not rounded
        return plain_number(x)
    if isinstance(x, Mapping):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, Path):
        return x.name
    if isinstance(x, (_dt.date, _dt.datetime, _dt.time)):
        return x.isoformat()
    return str(x)


def provenance(
    path: str | Path | None = None,
    *,
    rows_read: int | None = None,
    rows_filtered: int | None = None,
    rows_audited: int | None = None,
    filters: Sequence[str] = (),
    params: Mapping[str, Any] | None = None,
    title: str | None = None,
    model: str | None = None,
    note: str | None = None,
    generated: _dt.datetime | None = None,
) -> dict[str, Any]:
    r"""Where a result came from: the input, its rows, the filters, every parameter, versions.

    The input is named by its file name only, never its directory (a page may be published;
    a local path says nothing about the data and may say too much about its author), with the
    SHA-256 of its bytes and its size, so anyone holding a copy can check it is the same file.
    A directory (a partitioned dataset) is hashed file by file in name order (relative name
    and bytes of each). A path that does not exist (a URL, a table name) is recorded by its
    last component with no digest.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        The input file or directory.
    rows_read : int, optional
        Rows in the input.
    rows_filtered : int, optional
        Rows removed before the audit (by ``filters``, a ``where`` filter, dropped null groups).
    rows_audited : int, optional
        Rows the analyses counted.
    filters : str or sequence of str, default ()
        Every filter applied, as text, in order (a str is one filter).
    params : mapping, optional
        Every parameter of the analysis (label, prediction or score and threshold, positive
        value, reference rule and the group it chose, thresholds, permutations, seed, ...);
        expressions are recorded as their text.
    title, model, note : str, optional
        The document's title, the model audited (name, version) and a free note.
    generated : datetime, optional
        The generation time; default now. Recorded in UTC, to the second.

    Returns
    -------
    dict
        JSON-ready: ``generated_utc`` (ISO 8601, ``Z``), ``input`` (``name``, ``sha256``,
        ``size_bytes`` [, ``files``]; or None), ``rows`` (``read``, ``filtered``,
        ``audited``), ``filters`` (list of str), ``parameters`` (dict), ``versions``
        (``polars_fair``, ``polars``, ``python``), ``title``, ``model``, ``note``.

    Raises
    ------
    OSError
        The file exists but cannot be read.
    InvalidArgumentError
        The three row counts are given, and one is negative or read ≠ filtered + audited.

    Examples
    --------
    >>> import datetime as dt, tempfile
    >>> from pathlib import Path
    >>> data = Path(tempfile.mkdtemp()) / "scored.csv"
    >>> _ = data.write_bytes(b"y_true,y_pred\n1,1\n")
    >>> p = provenance(data, rows_read=1, rows_filtered=0, rows_audited=1,
    ...                params={"threshold": 0.5}, model="screen-v2",
    ...                generated=dt.datetime(2026, 11, 30, 19, 0, tzinfo=dt.timezone.utc))
    >>> p["generated_utc"], p["input"]["name"], p["input"]["size_bytes"]
    ('2026-11-30T19:00:00Z', 'scored.csv', 18)
    >>> p["input"]["sha256"][:12], p["model"], p["parameters"]
    ('abd27f51e6ef', 'screen-v2', {'threshold': 0.5})
    """
    if rows_read is not None and rows_filtered is not None and rows_audited is not None and (
            rows_read != rows_filtered + rows_audited
            or min(rows_read, rows_filtered, rows_audited) < 0):
        raise E.InvalidArgumentError(E.PROVENANCE_ROWS.format(
            read=rows_read, filtered=rows_filtered, audited=rows_audited))
    when = generated if generated is not None else _dt.datetime.now(_dt.timezone.utc)
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    stamp = when.astimezone(_dt.timezone.utc).replace(microsecond=0).isoformat()
    source: dict[str, Any] | None = None
    if path is not None:
        p = Path(path)
        if p.exists():
            source = _fingerprint(p)
        else:
            source = {"name": re.split(r"[\\/]", str(path).rstrip("/\\"))[-1] or str(path),
                      "sha256": None, "size_bytes": None}
    return {
        "generated_utc": stamp.replace("+00:00", "Z"),
        "input": source,
        "rows": {"read": rows_read, "filtered": rows_filtered, "audited": rows_audited},
        "filters": [filters] if isinstance(filters, str) else [str(f) for f in filters],
        "parameters": _plain(dict(params or {})),
        "versions": {"polars_fair": __version__, "polars": pl.__version__,
                     "python": platform.python_version()},
        "title": title, "model": model, "note": note,
    }


def _json_rows(frame: pl.DataFrame) -> list[dict[str, Any]]:
    return [_plain(row) for row in frame.to_dicts()]


def _data_block(data: Mapping[str, Any]) -> str:
    """The JSON block, escaped so no text can close or confuse the element (:func:`script_json`)."""
    text = script_json(_plain(dict(data)), allow_nan=False)
    return f'<script type="application/json" id="{DATA_ID}">{text}</script>'


def page_data(page: str) -> dict[str, Any]:
    """Read the tables back from an audit page's JSON block.

    Parameters
    ----------
    page : str
        An HTML document written by :func:`audit_html`.

    Returns
    -------
    dict
        The block's object: keys of :data:`DATA_KEYS` (the ABROCA ones with scores), each
        table a list of rows ``{column: value}``; ``provenance`` a dict (:func:`provenance`).
        Non-finite numbers are the strings ``"inf"``, ``"-inf"``, ``"nan"``.

    Raises
    ------
    InvalidArgumentError
        ``page`` is not a str, or the page has no ``polars-fair-data`` block.

    Examples
    --------
    >>> page = '<script type="application/json" id="polars-fair-data">{"a": 1}</script>'
    >>> page_data(page)
    {'a': 1}
    """
    if not isinstance(page, str):
        raise E.InvalidArgumentError(E.PAGE_NOT_TEXT.format(value=page, type=type(page).__name__))
    found = re.search(
        rf'<script type="application/json" id="{DATA_ID}">(.*?)</script>', page, re.DOTALL)
    if found is None:
        raise E.InvalidArgumentError(f"the page has no <script id={DATA_ID!r}> block")
    data: dict[str, Any] = json.loads(found.group(1))
    return data
