"""The helper process of :mod:`polars_fair.audit.svg_process`: Vega-Lite specs in, SVG out.

Run as a script (``python -P _svg_worker.py``), never imported by the package: it imports only
``json``, ``sys`` and ``vl_convert``, starts the renderer at once (its start-up then overlaps the
page's computations in the parent), and answers each line of stdin (one Vega-Lite spec as JSON)
with one line of stdout: ``{"svg": ...}`` or ``{"error": ...}``. It ends at the end of stdin.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    """Render each spec read from stdin with network access refused, as ``plot.to_svg``."""
    import vl_convert as vlc

    # start the renderer before the first spec arrives (a one-point chart)
    vlc.vegalite_to_svg({"mark": "point", "data": {"values": [{}]}}, allowed_base_urls=[])
    for line in sys.stdin:
        try:
            answer = {"svg": str(vlc.vegalite_to_svg(json.loads(line), allowed_base_urls=[]))}
        except Exception as exc:  # noqa: BLE001  (the parent renders it again, and raises)
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
