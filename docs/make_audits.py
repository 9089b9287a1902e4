"""Write the HTML audits of Adult and COMPAS and their screenshots under ``docs/``.

Run from the project root, with the plot extra, headless Chromium and the shared data
(``../shared/data``)::

    python docs/make_audits.py            # docs/adult_audit.png, docs/compas_audit.png
    python docs/make_audits.py --html     # also keep the two HTML pages in docs/

The audits are what ``polars-fair report ... --html`` writes (:func:`polars_fair.audit.html.
audit_html`), seeded (the ABROCA test: 1,000 permutations, seed 0), with the generation time
fixed so the pages change only when the code or the data do:

* Adult (``adult-scored.csv``: a logistic regression's out-of-fold scores): ``race × sex``,
  ``y_score >= 0.5``;
* COMPAS (``compas-scores-two-years.csv`` after ProPublica's standard filter, audit columns
  only): ``race`` against Caucasian defendants, the favourable outcome positive
  (``pos_label=0``: predicted Low, not re-arrested), ``11 − decile_score`` as the score.

The screenshot is the top of each page (the verdict, the headline, the provenance, the data),
1280 × 2600 pixels; each page takes a few seconds (the Adult one runs the permutation test of
its five testable groups on 32,561 rows).
"""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import polars as pl

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair.audit.html import audit_html
from polars_fair.datasets import scan_compas

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
ADULT = DATA / "adult" / "adult-scored.csv"
COMPAS = DATA / "compas" / "compas-scores-two-years.csv"
WHEN = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.timezone.utc)
SIZE = (1280, 2600)
PROPUBLICA = ("ProPublica's standard filter: days_b_screening_arrest in [-30, 30], "
              "is_recid != -1, c_charge_degree != 'O', score_text != 'N/A'")


def browser() -> str:
    """The headless Chromium binary."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit("headless Chromium is needed: apt-get install -y chromium")


def screenshot(page: Path, png: Path) -> Path:
    """Chromium's screenshot of the top of ``page``, offline, in a throw-away profile."""
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([
            browser(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--hide-scrollbars", f"--user-data-dir={profile}",
            f"--window-size={SIZE[0]},{SIZE[1]}", f"--screenshot={png}", page.resolve().as_uri(),
        ], check=True, capture_output=True, timeout=120)
    return png


def adult_page() -> str:
    """The Adult audit: race × sex at threshold 0.5."""
    lf = pl.scan_csv(ADULT).select("race", "sex", "y_true", "y_score")
    return audit_html(lf, ["race", "sex"], y_score="y_score", threshold=0.5, source=ADULT,
                      title="Fairness audit: UCI Adult, income > 50K",
                      model="logistic regression, out-of-fold scores (adult-scored.csv)",
                      generated=WHEN)


def compas_page() -> str:
    """The COMPAS audit by race against Caucasian defendants, in the OFI paper's orientation.

    The favourable outcome (not a recidivist; predicted Low) is positive.
    """
    rows_read = pl.scan_csv(COMPAS).select(pl.len()).collect().item()
    lf = scan_compas(COMPAS).select(
        "race", "y_true", "y_pred", low_risk=11 - pl.col("decile_score"))
    return audit_html(lf, "race", y_pred="y_pred", y_score="low_risk", pos_label=0,
                      reference="Caucasian", source=COMPAS, rows_read=rows_read,
                      filters=[PROPUBLICA],
                      title="Fairness audit: COMPAS, two-year recidivism",
                      model="COMPAS risk score (Northpointe): Medium/High = predicted to reoffend",
                      note=("Positive = the favourable outcome: predicted Low (y_pred = 0) and "
                            "not re-arrested within two years (y_true = 0); the score is 11 − "
                            "decile score, so higher means more likely favourable. The label is "
                            "a recorded re-arrest, itself contested."),
                      generated=WHEN)


def main(out: Path, keep_html: bool) -> list[Path]:
    """Write both screenshots (and the pages with ``keep_html``); return the paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, make in (("adult_audit", adult_page), ("compas_audit", compas_page)):
        with tempfile.TemporaryDirectory() as tmp:
            page = Path(tmp) / f"{name}.html"
            page.write_text(make(), encoding="utf-8")
            written.append(screenshot(page, out / f"{name}.png"))
            if keep_html:
                written.append(Path(shutil.copy(page, out / page.name)))
    return written


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent,
                        help="directory to write to (default: docs/)")
    parser.add_argument("--html", action="store_true", help="also keep the HTML pages")
    args = parser.parse_args()
    start = time.perf_counter()
    for p in main(args.out, args.html):
        print(f"{p}  {p.stat().st_size / 1000:.0f} KB")
    print(f"done in {time.perf_counter() - start:.1f} s")
