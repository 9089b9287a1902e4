"""polars_fair benchmark suite: ratios against baselines measured side by side in one run.

Run everything with ``python -m benchmarks.run`` from the project root (``--smoke`` for a quick
check that every benchmark still runs, ``--only NAME`` for one benchmark). See
``benchmarks/README.md``.
"""
