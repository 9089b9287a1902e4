"""Chart SVGs rendered by a helper process, while the page's other work goes on.

vl-convert holds Python's global interpreter lock while it renders, so rendering in a thread
gains nothing; its start-up (about 0.4 s) and each chart (0.1 to 0.2 s) were paid one after the
other with everything else on one core. :func:`svg_process` starts one helper process
(``_svg_worker.py``: ``json``, ``sys`` and ``vl_convert`` only, no Polars) that starts the
renderer at once; the audit page starts it before its first scan
(:func:`polars_fair.audit.html.audit_html`), sends each chart's Vega-Lite spec as soon as the
chart is built (:meth:`SvgProcess.submit`) and reads the SVG when it writes the charts section,
so the start-up and the renders run on the second core while the page computes and writes its
other sections. The SVG is the one :func:`polars_fair.audit.plot.to_svg` gives (the same spec,
the same vl-convert, network access refused); the page is the same byte for byte.

One helper serves the Python process (started on first use, restarted if it ended, a new one
after a fork) and ends with it. Where it cannot start (no ``vl_convert``, no subprocess) or a
chart fails in it, the chart is rendered in this process by :func:`~polars_fair.audit.plot.to_svg`,
which raises what it raises.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import threading
from collections import deque
from concurrent.futures import Future
from pathlib import Path
from typing import IO, Any

__all__ = ["WORKER", "SvgProcess", "render_ahead", "svg_of", "svg_process"]

#: The helper's script, run with ``python -P`` (its directory is not put on ``sys.path``).
WORKER = Path(__file__).with_name("_svg_worker.py")
#: Seconds the helper gets to end after its input closes, at exit, before it is killed.
_EXIT_WAIT = 2.0


class SvgRenderError(RuntimeError):
    """A chart the helper process could not render (it is then rendered in this process)."""


class SvgProcess:
    """One helper process that renders Vega-Lite specs to SVG, in the order sent.

    Parameters
    ----------
    command : list of str
        The helper's command line (default: this Python running :data:`WORKER`).

    Examples
    --------
    >>> from polars_fair.audit.svg_process import SvgProcess
    >>> helper = SvgProcess()  # doctest: +SKIP
    >>> helper.submit({"mark": "point", "data": {"values": [{}]}}).result()[:4]  # doctest: +SKIP
    '<svg'
    """

    def __init__(self, command: list[str] | None = None) -> None:
        self.pid = os.getpid()  # the process that owns the pipes (a fork makes a new helper)
        self._proc = subprocess.Popen(
            command or [sys.executable, "-P", str(WORKER)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, encoding="utf-8")
        self._pending: deque[Future[str]] = deque()
        self._lock = threading.Lock()
        self._ended = False
        self._reader = threading.Thread(target=self._read, name="polars-fair-svg", daemon=True)
        self._reader.start()

    @property
    def alive(self) -> bool:
        """Whether the helper still takes specs (and belongs to this process)."""
        return not self._ended and self.pid == os.getpid()

    def submit(self, spec: dict[str, Any]) -> Future[str]:
        """Send one spec; the future gives its SVG, or raises :class:`SvgRenderError`.

        Parameters
        ----------
        spec : dict
            A Vega-Lite spec as :func:`polars_fair.audit.plot.to_svg` renders it (JSON data).

        Returns
        -------
        concurrent.futures.Future of str
            The ``<svg>`` document, when the helper has rendered it.

        Examples
        --------
        >>> helper = SvgProcess()  # doctest: +SKIP
        >>> spec = {"mark": "point", "data": {"values": [{}]}}
        >>> helper.submit(spec).result()[:4]  # doctest: +SKIP
        '<svg'
        """
        future: Future[str] = Future()
        line = json.dumps(spec) + "\n"
        with self._lock:
            if not self.alive:
                future.set_exception(SvgRenderError("the SVG process has ended"))
                return future
            self._pending.append(future)  # before the write: the answer finds it
            try:
                stdin = self._stdin()
                stdin.write(line)
                stdin.flush()
            except (OSError, ValueError):  # the helper ended: the reader fails what waits
                pass
        return future

    def close(self) -> None:
        """End the helper: close its input, wait briefly, then kill it.

        Examples
        --------
        >>> helper = SvgProcess()  # doctest: +SKIP
        >>> helper.close()  # doctest: +SKIP
        >>> helper.alive  # doctest: +SKIP
        False
        """
        with self._lock:
            self._ended = True
        if self.pid != os.getpid():
            return
        try:
            self._stdin().close()
            self._proc.wait(_EXIT_WAIT)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            self._proc.kill()
            self._proc.wait()
        self._reader.join(_EXIT_WAIT)  # it closes the helper's output at its end

    def _stdin(self) -> IO[str]:
        assert self._proc.stdin is not None
        return self._proc.stdin

    def _read(self) -> None:
        """Answer the futures in order; at the helper's end, fail those still waiting."""
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            future = self._pending.popleft()
            answer = json.loads(line)
            if "svg" in answer:
                future.set_result(answer["svg"])
            else:
                future.set_exception(SvgRenderError(answer.get("error", "no answer")))
        self._proc.stdout.close()
        with self._lock:
            self._ended = True
            while self._pending:
                self._pending.popleft().set_exception(
                    SvgRenderError("the SVG process ended before answering"))


_SHARED: list[SvgProcess] = []


def svg_process() -> SvgProcess | None:
    """The process's helper, started now if there is none; ``None`` where none can run.

    Returns
    -------
    SvgProcess or None
        A live helper, or ``None`` without ``vl_convert`` or when the helper cannot start (the
        caller then renders in this process).

    Examples
    --------
    >>> from polars_fair.audit.svg_process import svg_process
    >>> helper = svg_process()  # doctest: +SKIP
    """
    import importlib.util

    if _SHARED and _SHARED[-1].alive:
        return _SHARED[-1]
    if importlib.util.find_spec("vl_convert") is None:
        return None
    try:
        helper = SvgProcess()
    except OSError:
        return None
    if not _SHARED:
        atexit.register(_close_all)
    _SHARED.append(helper)
    return helper


def _close_all() -> None:
    for helper in _SHARED:
        helper.close()


def render_ahead(charts: list[Any]) -> list[Future[str] | None]:
    """Send every chart to the helper now; ``None`` for a reason given instead of a chart.

    Parameters
    ----------
    charts : list
        Altair charts (or dicts), or text (a reason the chart was not drawn).

    Returns
    -------
    list of Future or None
        One per chart: its SVG to come (``None`` for text, or for every chart without a
        helper).

    Raises
    ------
    SizeLimitError
        A chart above ``chart_pixels`` (:func:`polars_fair.audit.plot.check_render_size`),
        before any chart is sent.

    Examples
    --------
    >>> from polars_fair.audit.svg_process import render_ahead
    >>> render_ahead(["not drawn: no scores"])
    [None]
    """
    from polars_fair.audit.plot import _spec, check_render_size

    if all(isinstance(c, str) for c in charts):
        return [None] * len(charts)
    for c in charts:  # the pixels of each, before any is sent to the renderer
        if not isinstance(c, str):
            check_render_size(c, 1.0, "the page's figure")
    helper = svg_process()
    return [None if helper is None or isinstance(c, str)
            else helper.submit(_spec(c.to_dict(validate=False) if hasattr(c, "to_dict") else c))
            for c in charts]


def svg_of(chart: Any, pending: Future[str] | None) -> str:
    """The chart's SVG: the helper's answer, else rendered here by ``plot.to_svg``.

    Parameters
    ----------
    chart : altair chart or dict
        The chart.
    pending : Future or None
        Its SVG from :func:`render_ahead`, if it was sent.

    Returns
    -------
    str
        The ``<svg>`` document.

    Raises
    ------
    ImportError
        Without the plot extra (rendering here).

    Examples
    --------
    >>> from polars_fair.audit.svg_process import svg_of
    >>> svg_of({"mark": "point", "data": {"values": [{}]}}, None)[:4]  # doctest: +SKIP
    '<svg'
    """
    from polars_fair.audit.plot import to_svg

    if pending is not None:
        try:
            return pending.result()
        except SvgRenderError:
            pass  # rendered here, raising what vl-convert raises
    return to_svg(chart.to_dict(validate=False) if hasattr(chart, "to_dict") else chart)
