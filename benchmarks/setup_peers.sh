#!/usr/bin/env bash
# Create the peers' own virtual environments (their pins clash with ours). Optional: without them
# the Aequitas and abroca rows say "not run" with the reason.
#   aequitas: Aequitas (pandas 2) plus pyarrow to read the benchmark's Parquet.
#   divexplorer: DivExplorer 0.2.6 (pandas 3, mlxtend), for benchmarks/divergence_bench.py and
#             the oracle of tests/test_divergence.py.
#   abroca:   the PyPI `abroca` package (0.1.3) crashes on pandas 2 (Series.between(inclusive=True))
#             and declares none of its imports, so pin pandas<2 and numpy<2 and add them by hand.
set -euo pipefail
ENVS="${POLARS_FAIR_BENCH_ENVS:-/work/bench-envs}"
mkdir -p "$ENVS"
python3 -m venv "$ENVS/aequitas"
"$ENVS/aequitas/bin/pip" install -q aequitas pyarrow
python3 -m venv "$ENVS/abroca"
"$ENVS/abroca/bin/pip" install -q abroca "numpy<2" "pandas<2" "scikit-learn<1.6" "scipy<1.14" \
    "matplotlib<3.10" "pyarrow<17"
python3 -m venv "$ENVS/divexplorer"   # DivExplorer 0.2.6: divergence_bench and its test oracle
"$ENVS/divexplorer/bin/pip" install -q divexplorer==0.2.6
