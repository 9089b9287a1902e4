"""Progress bars for long runs (tqdm): shown on a terminal, silent otherwise."""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["show_progress", "progress_bar"]


def show_progress(progress: bool | None) -> bool:
    """Whether to draw a bar: ``None`` means only when stderr is a terminal.

    Parameters
    ----------
    progress : bool or None
        ``True``: always; ``False``: never; ``None``: when ``sys.stderr`` is a terminal.

    Returns
    -------
    bool

    Examples
    --------
    >>> show_progress(False), show_progress(True)
    (False, True)
    """
    if progress is None:
        return sys.stderr is not None and sys.stderr.isatty()
    return bool(progress)


def progress_bar(total: int, desc: str, progress: bool | None) -> Any:
    """A tqdm bar on stderr over ``total`` steps, disabled unless :func:`show_progress`.

    Parameters
    ----------
    total : int
        The number of steps.
    desc : str
        The label shown before the bar.
    progress : bool or None
        Whether to draw it (:func:`show_progress`).

    Returns
    -------
    tqdm.auto.tqdm
        A context manager with ``update(n)`` and ``close()``, not left on screen when closed;
        when no bar is shown, a stand-in with the same methods that draws nothing (no tqdm
        object: its construction costs about a millisecond per call).

    Examples
    --------
    >>> with progress_bar(3, "demo", progress=False) as bar:
    ...     bar.update(3)
    """
    if not show_progress(progress):  # nothing drawn: no tqdm object (about 1 ms each)
        return _NoBar()
    from tqdm.auto import tqdm  # imported on first use: import polars_fair stays cheap

    return tqdm(total=total, desc=desc, disable=not show_progress(progress), file=sys.stderr,
                leave=False)


class _NoBar:
    """The disabled bar: ``update``, ``close`` and the context manager, drawing nothing."""

    def update(self, n: int = 1) -> None:
        """Nothing to draw."""

    def close(self) -> None:
        """Nothing to close."""

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None
