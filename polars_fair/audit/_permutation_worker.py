"""The helper process of :mod:`polars_fair.audit.permutation_process`: one ABROCA test.

Run as a script (``python -P _permutation_worker.py``), never imported by the package. It imports
the test (``from_scores(...).abroca_test``, :mod:`polars_fair.api.external`) at once, so its
start-up overlaps the page's first scan in the parent, then reads one pickled request from
stdin (the score table, its keys, the test's options and the parent's limits), runs the test
and writes one pickled answer to stdout: ``("ok", table)`` or ``("error", text)``. It serves
one request and ends.
"""

from __future__ import annotations

import pickle
import sys


def main() -> None:
    """Run the one test read from stdin; its table, or the error's text, on stdout."""
    from polars_fair.api.external import from_scores
    from polars_fair.core import limits

    request = pickle.load(sys.stdin.buffer)  # noqa: S301  (from the parent process only)
    try:
        limits.LIMITS.update(request["limits"])  # the parent's limits, as in the parent
        answer: tuple[str, object] = ("ok", from_scores(request["scores"], request["keys"])
                                      .abroca_test(reference=request["reference"],
                                                   n_permutations=request["n_permutations"],
                                                   seed=request["seed"], progress=False)
                                      .collect())
    except Exception as exc:  # noqa: BLE001  (the parent runs the test again, and raises)
        answer = ("error", f"{type(exc).__name__}: {exc}")
    pickle.dump(answer, sys.stdout.buffer)
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
