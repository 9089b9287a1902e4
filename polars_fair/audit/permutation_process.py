"""The audit page's ABROCA permutation test, run by a helper process while the page computes.

The test (1,000 seeded permutations per tested group) is about a third of the Adult audit page's
CPU, and it holds Python's global interpreter lock for most of it (many small numpy calls), so a
thread gains little. :func:`permutation_process` starts one helper process
(``_permutation_worker.py``) when the page starts, which imports the test while the page scans
its rows; :meth:`PermutationProcess.submit` sends it the score table of the tested groups as
soon as it is known, and :meth:`PendingTest.result` reads the table back when the page first
needs it, so the test runs on the machine's second core while the page computes its other
tables. The helper runs the same call as this process would
(``from_scores(scores, keys).abroca_test(...)``, the same seed, the same numpy), so the table,
and the page, are the same byte for byte.

Where the helper cannot start, fails or ends without answering, the test is run in this process
(:meth:`PendingTest.result`), which raises what the test raises.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import polars as pl

__all__ = ["WORKER", "PendingTest", "PermutationProcess", "permutation_process"]

#: The helper's script, run with ``python -P`` (its directory is not put on ``sys.path``).
WORKER = Path(__file__).with_name("_permutation_worker.py")


class PermutationProcess:
    """One helper process that runs one ABROCA test (see the module).

    Parameters
    ----------
    command : list of str
        How to start the helper; by default this interpreter runs :data:`WORKER`.

    Examples
    --------
    Started, then released with no test sent: it is ended at once.

    >>> from polars_fair.audit.permutation_process import PermutationProcess
    >>> helper = PermutationProcess()
    >>> helper.release()
    >>> helper._proc.poll() is not None
    True
    """

    def __init__(self, command: list[str] | None = None) -> None:
        self._proc = subprocess.Popen(
            command or [sys.executable, "-P", str(WORKER)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._used = False

    def submit(self, scores: pl.DataFrame, keys: list[str], reference: Any,
               n_permutations: int, seed: int | None) -> Future[pl.DataFrame]:
        """Send the test; the future gives its table, or raises :class:`RuntimeError`.

        Parameters
        ----------
        scores : polars.DataFrame
            The score table of the tested groups and the reference (integer counts).
        keys : list of str
            Its group key columns.
        reference : Any
            The reference group, as ``abroca_test`` takes it.
        n_permutations : int
            Draws per tested group.
        seed : int or None
            The random stream's seed.

        Returns
        -------
        concurrent.futures.Future of polars.DataFrame
            The table ``from_scores(scores, keys).abroca_test(...).collect()`` gives.

        Examples
        --------
        >>> helper = PermutationProcess()  # doctest: +SKIP
        >>> helper.submit(table, ["g"], "a", 99, 0).result().height  # doctest: +SKIP
        1
        """
        from polars_fair.core.limits import LIMITS

        future: Future[pl.DataFrame] = Future()
        if self._used:
            future.set_exception(RuntimeError("the permutation process runs one test"))
            return future
        self._used = True
        request = {"scores": scores, "keys": keys, "reference": reference,
                   "n_permutations": n_permutations, "seed": seed, "limits": dict(LIMITS)}
        # the helper reads the request after its imports: the write waits in a thread
        threading.Thread(target=self._exchange, args=(request, future), daemon=True,
                         name="polars-fair-permutation").start()
        return future

    def _exchange(self, request: dict[str, Any], future: Future[pl.DataFrame]) -> None:
        try:
            assert self._proc.stdin is not None and self._proc.stdout is not None
            pickle.dump(request, self._proc.stdin)
            self._proc.stdin.close()
            status, value = pickle.load(self._proc.stdout)  # noqa: S301  (our own helper)
            self._proc.wait()
        except Exception as exc:  # noqa: BLE001  (the page runs the test itself)
            future.set_exception(RuntimeError(f"the permutation process failed: {exc}"))
            return
        finally:
            self.close()
        if status == "ok" and isinstance(value, pl.DataFrame):
            future.set_result(value)
        else:
            future.set_exception(RuntimeError(f"the permutation process failed: {value}"))

    def release(self) -> None:
        """End the helper if no test was sent to it (one that was ends after answering).

        Examples
        --------
        >>> helper = PermutationProcess()  # doctest: +SKIP
        >>> helper.release()  # doctest: +SKIP
        """
        if not self._used:
            self.close()

    def close(self) -> None:
        """End the helper if it still runs (a test not needed, or an error of the page).

        Examples
        --------
        >>> helper = PermutationProcess()  # doctest: +SKIP
        >>> helper.close()  # doctest: +SKIP
        """
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        for pipe in (self._proc.stdin, self._proc.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass


def permutation_process() -> PermutationProcess | None:
    """A new helper, started now; ``None`` when it cannot start (the test then runs here).

    Returns
    -------
    PermutationProcess or None
        The helper, importing the test while the caller goes on.

    Examples
    --------
    >>> from polars_fair.audit.permutation_process import permutation_process
    >>> helper = permutation_process()  # doctest: +SKIP
    """
    try:
        return PermutationProcess()
    except OSError:
        return None


class PendingTest:
    """An ABROCA test sent to the helper, or to be run here: :meth:`result` gives its table.

    Parameters
    ----------
    plan : polars.LazyFrame
        The test as this process runs it (``from_scores(...).abroca_test(...)``).
    pending : Future or None
        The helper's answer (:meth:`PermutationProcess.submit`), if the test was sent.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.audit.permutation_process import PendingTest
    >>> PendingTest(pl.LazyFrame({"p_value": [0.5]}), None).result()["p_value"].item()
    0.5
    """

    def __init__(self, plan: pl.LazyFrame, pending: Future[pl.DataFrame] | None) -> None:
        self._plan = plan
        self._pending = pending
        self._table: pl.DataFrame | None = None

    def done(self) -> bool:
        """Whether :meth:`result` would answer at once (the helper has answered, or none runs).

        Returns
        -------
        bool
            ``True`` when no helper runs the test or it has answered.

        Examples
        --------
        >>> import polars as pl
        >>> PendingTest(pl.LazyFrame({"n": [4]}), None).done()
        True
        """
        return self._pending is None or self._pending.done()

    def result(self) -> pl.DataFrame:
        """The test's table: the helper's, else computed here (raising what the test raises).

        Returns
        -------
        polars.DataFrame
            The columns of ``abroca_test``.

        Raises
        ------
        polars_fair.errors.PolarsFairError
            What ``abroca_test`` raises (run here).

        Examples
        --------
        >>> import polars as pl
        >>> PendingTest(pl.LazyFrame({"n": [4]}), None).result()["n"].to_list()
        [4]
        """
        if self._table is None:
            if self._pending is not None:
                try:
                    self._table = self._pending.result()
                except RuntimeError:
                    pass  # run here, raising what the test raises
                self._pending = None
            if self._table is None:
                self._table = self._plan.collect()
        return self._table
