"""Progress bars for long runs (tqdm): shown on a terminal, silent otherwise."""

from __future__ import annotations

import sys
from typing import Any

from tqdm.auto import tqdm

__all__ = ["show_progress", "progress_bar"]


def show_progress(progress: bool | None) -> bool:
    """Whether to draw a bar: ``None`` means only when stderr is a terminal.

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

    Examples
    --------
    >>> with progress_bar(3, "demo", progress=False) as bar:
    ...     bar.update(3)
    """
    return tqdm(total=total, desc=desc, disable=not show_progress(progress), file=sys.stderr,
                leave=False)
