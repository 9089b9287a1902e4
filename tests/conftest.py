"""Shared fixtures: every frame-level test runs over each way a frame can arrive."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

#: Bytecode caches (``__pycache__``, git-ignored) are written even under
#: ``PYTHONDONTWRITEBYTECODE=1``: else every xdist worker compiles the package and rewrites the
#: asserts of every test module again, and every subprocess a test starts compiles the package,
#: on each run (half of the collection time). Set before the package is imported below.
sys.dont_write_bytecode = False

import polars as pl  # noqa: E402
import pytest  # noqa: E402

import polars_fair  # noqa: E402, F401  (registers .fair)

if TYPE_CHECKING:
    import click
    import typer

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
COMPAS_CSV = SHARED_DATA / "compas" / "compas-scores-two-years.csv"
ADULT_CSV = SHARED_DATA / "adult" / "adult.csv"
ADULT_SCORED_CSV = SHARED_DATA / "adult" / "adult-scored.csv"

Runner = Callable[..., pl.DataFrame]

#: Click commands built by :func:`_built_once`, per Typer app: (its command and group counts, the
#: command). Read by ``tests/cli/test_launch.py``, which checks that the cache is in effect.
BUILT: WeakKeyDictionary[typer.Typer, tuple[tuple[int, int], click.Command]] = WeakKeyDictionary()


def _built_once() -> None:
    """Make ``CliRunner().invoke(app, ...)`` build the app's click group once, not per call.

    ``typer.testing.CliRunner.invoke`` calls ``typer.main.get_command(app)`` on every call,
    which builds all of the app's commands again (20-40 ms for polars_fair's 29; the fast loop
    invokes the app about 600 times, some 15 CPU-seconds). A click group is not changed by
    running it (each run makes its own context; ``ReadableCommand.get_params`` readies each
    parameter once), so the group built from the same app, with the same commands and groups
    registered, is reused. An app that registers a command afterwards is built again. If a Typer
    release no longer reaches ``typer.testing._get_command``, nothing is cached (the tests
    still run, only slower) and ``test_launch.py`` fails to say so.
    """
    import typer.main
    import typer.testing

    build = typer.main.get_command
    if getattr(typer.testing, "_get_command", None) is not build:
        return

    def get_command(app: typer.Typer) -> click.Command:
        shape = (len(app.registered_commands), len(app.registered_groups))
        hit = BUILT.get(app)
        if hit is None or hit[0] != shape:
            hit = BUILT[app] = (shape, build(app))
        return hit[1]

    typer.testing._get_command = get_command  # type: ignore[attr-defined]


_built_once()


def one_row_groups(df: pl.DataFrame, *columns: str) -> bool:
    """Whether an attribute has 3 or more groups that are each a single row (issue 20).

    Such an attribute is refused at any size (:data:`polars_fair.counting.boundary.
    MIN_LEVELS_ALL_SINGLE`: a filter leaving a few people would print one name each). Property
    strategies whose tiny frames can draw it (3 rows, 3 distinct values) assume it away.
    """
    from polars_fair.counting.boundary import MIN_LEVELS_ALL_SINGLE

    for column in columns:
        sizes = df[column].drop_nulls().value_counts()
        if sizes.height >= MIN_LEVELS_ALL_SINGLE and bool((sizes["count"] == 1).all()):
            return True
    return False


def require(path: Path) -> Path:
    """Skip (or fail, when POLARS_FAIR_REQUIRE_DATA=1) if a shared data file is absent."""
    if not path.exists():
        reason = f"shared data file {path} is absent (../shared/data next to the project root)"
        if os.environ.get("POLARS_FAIR_REQUIRE_DATA") == "1":
            pytest.fail(f"POLARS_FAIR_REQUIRE_DATA=1 but {reason}")
        pytest.skip(reason)
    return path


@pytest.fixture(params=["eager", "lazy", "streaming"])
def run(request: pytest.FixtureRequest) -> Runner:
    """``run(df, "report", by, **kw)`` through df.fair, lf.fair + collect, or streaming collect."""
    kind = request.param

    def _run(df: pl.DataFrame, method: str, *args: Any, **kwargs: Any) -> pl.DataFrame:
        if kind == "eager":
            out = getattr(df.fair, method)(*args, **kwargs)
            assert isinstance(out, pl.DataFrame)
            return out
        lazy = getattr(df.lazy().fair, method)(*args, **kwargs)
        assert isinstance(lazy, pl.LazyFrame)
        return lazy.collect(engine="streaming" if kind == "streaming" else "in-memory")

    return _run


@pytest.fixture(scope="session")
def compas() -> pl.DataFrame:
    """COMPAS after ProPublica's standard filter (6,172 rows), audit columns only."""
    from polars_fair.datasets import scan_compas

    return scan_compas(require(COMPAS_CSV)).collect()


#: Modules whose every test is slow (a Spark session, Chromium, the benchmark smoke run) and
#: single tests that take seconds (simulations, oracles over many frames, a fresh interpreter).
#: ``pytest -m "not slow" -n 2`` runs the rest, each test within :data:`FAST_TEST_BUDGET`
#: (docs/development.md, "Checks", gives the measured time); CI runs everything. The entries with
#: a comment name the fast test that runs the same code.
SLOW_MODULES = {"test_spark.py", "test_engines.py", "test_benchmarks_smoke.py", "test_html.py",
                "test_pdf.py", "test_engines_classes.py",
                "test_duckdb.py"}  # every analysis on DuckDB against Polars, as test_engines.py
SLOW_TESTS = {
    "test_power_reaches_080_for_delta_auc_010_with_1000_rows",
    "test_power_stays_below_080_for_delta_auc_005_with_2000_rows",
    "test_type_one_error_is_close_to_alpha_under_equal_aucs",
    "test_matches_fairlearn_where_no_rate_is_undefined",
    "test_between_groups_values_are_max_minus_min_of_the_exact_rates",
    "test_results_from_counts_equal_results_from_rows",
    "test_results_from_score_tables_equal_results_from_rows",
    "test_wilson_coverage_by_simulation_is_near_nominal",
    "test_newcombe_coverage_by_simulation_is_near_nominal",
    "test_log_ratio_coverage_by_simulation_is_near_nominal",
    "test_abroca_of_a_million_rows",
    "test_every_chart_renders_to_png",
    "test_null_search_keeps_false_discoveries_rare_with_bh_not_without",
    "test_adult_thresholds_equal_a_loop_over_report_and_the_readme",
    "test_each_generated_subcommand_equals_the_python_api_on_compas",
    "test_report_html_takes_threshold_title_model_and_note",
    "test_each_readme_example_runs_on_adult",
    # a fresh interpreter or the console script per test (seconds of imports each)
    "test_a_sql_option_naming_a_file_never_opens_it_and_opens_no_socket",
    "test_console_script_entry_point",
    "test_help_and_an_unknown_command_build_no_command_and_load_no_numpy",
    "test_a_command_runs_through_the_launcher_and_builds_only_itself",
    "test_the_console_script_answers_help_without_polars_then_runs_commands_in_the_package",
    "test_the_console_script_tells_a_usage_error_without_polars",
    "test_a_report_on_rows_imports_no_pydantic",
    "test_the_tables_usage_errors_are_the_full_command_lines",  # every command's mistakes
    "test_intervals_import_scipy_on_first_use_and_give_the_wilson_bounds",
    "test_core_modules_import_without_the_plot_extra",
    "test_two_proportion_test_does_not_import_scipy_stats",
    # the console script's process, its exit code and stderr; the fast loop runs the same usage
    # errors in-process: test_usage_errors_name_the_option
    "test_usage_errors_through_main_exit_2_in_one_line",
    "test_a_shell_block_that_exits_non_zero_fails_the_page",
    # a whole HTML audit, or every chart rendered to PNG/SVG (as test_html.py)
    "test_the_html_audit_draws_a_group_with_control_characters",
    "test_plot_save_writes_a_chart_of_a_group_with_control_characters",
    "test_the_cli_report_html_survives_a_control_character",
    "test_audit_html_escapes_its_data_block_and_draws_every_chart",
    "test_every_chart_draws_a_label_with_a_javascript_line_end",
    # every chart kind rendered three times; the fast loop checks the compare chart's spec:
    # test_compare_chart_names_its_attributes_in_the_axis_title_not_the_channel
    "test_no_chart_kind_writes_a_raw_invisible_or_line_separator",
    # two whole HTML audits; the fast loop checks the helper's SVG equals this process's:
    # test_the_helper_renders_what_to_svg_renders
    "test_the_page_is_the_same_with_and_without_the_helper",
    # two whole HTML audits through the CLI; the fast loop takes both spellings of the baseline
    # on compare: test_compare_takes_baseline_pred_and_keeps_baseline
    "test_one_spelling_on_report_html_works_as_before",
    # three whole HTML audits (the ABROCA test in the helper, here, and after the helper
    # fails); the fast loop checks the helper's table equals this process's, bit for bit:
    # test_the_helper_gives_the_table_this_process_gives
    "test_the_page_is_the_same_with_the_helper_without_it_and_when_it_fails",
    # scipy's and our Fisher test over random tables, and at FISHER_MAX_TOTAL (a billion
    # applicants); the fast loop keeps the hand-worked tables and scipy's ties
    # (test_tea_tasting_by_hand, test_asymmetric_margins_by_hand, test_ties_follow_scipys_slack,
    # test_fisher_matches_scipy_fisher_exact) and the z-test above the limit
    # (test_fisher_above_a_billion_applicants_gives_the_z_tests_p_on_every_method)
    "test_equals_the_exact_fraction_and_scipy_on_random_and_tied_tables",
    "test_fisher_at_the_limit_is_still_fishers_exact_test",
    # 3,000 Fisher tests; the fast loop checks the size against the exact power:
    # test_fisher_method_reaches_the_power_and_not_one_less
    "test_fisher_methods_power_holds_by_simulation",
    # the peer library run live in its own venv (holisticai imports pandas and scikit-learn, two
    # seconds a run); the fast loop compares the same figures with the peer's frozen ones:
    # test_holisticai_frozen_figures and test_the_figures_equal_holisticais_frozen_figures
    "test_holisticai_regression_bias_metrics",
    "test_the_figures_equal_holisticai_run_live",
    # 36,000 permutation draws and a two-sample test (two seconds); the fast loop checks each
    # kernel's law and result: test_draw_cells_hold_the_sample_size_and_the_hypergeometric_mean,
    # test_observed_abroca_is_the_same_double_whichever_kernel_draws_the_null
    "test_cell_and_row_kernels_draw_the_same_null_two_sample",
}


def _starts_spark(item: pytest.Item) -> bool:
    """A ``spark`` fixture, or a route parameter ``"spark"`` (``request.getfixturevalue``):
    the JVM starts in half a minute. Each such test has the same case on DuckDB and Polars
    (the other values of its parameter) in the fast loop."""
    if "spark" in getattr(item, "fixturenames", ()):
        return True
    params = getattr(getattr(item, "callspec", None), "params", {})
    return any(isinstance(v, str) and v == "spark" for v in params.values())


def _fast_loop(config: pytest.Config) -> bool:
    return " ".join(str(config.getoption("markexpr", "")).split()) == "not slow"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under ``-m "not slow"``, :data:`SLOW_MODULES` are not even imported (their tests would
    all be deselected): each worker saves their import and assertion rewriting."""
    if _fast_loop(config) and collection_path.name in SLOW_MODULES:
        return True
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the slow tests: :data:`SLOW_MODULES`, :data:`SLOW_TESTS`, every test that starts
    Spark (:func:`_starts_spark`) and every hypothesis property (hundreds of examples each); the
    fast loop keeps the hand-worked examples, the frozen oracle figures and the doctests."""
    for item in items:
        name = getattr(item, "originalname", item.name)
        fn = getattr(item, "function", None)
        is_property = getattr(fn, "is_hypothesis_test", False)
        if (item.path.name in SLOW_MODULES or name in SLOW_TESTS or _starts_spark(item)
                or is_property):
            item.add_marker(pytest.mark.slow)


#: The fast loop's budget per test: CPU-seconds of its setup, call and teardown (its process and
#: the subprocesses it waited for). A fast test above it is listed at the end of the run (not
#: failed): make it cheaper, or add it to :data:`SLOW_TESTS` with the fast test that covers the
#: same code named beside it (docs/development.md, "Checks").
FAST_TEST_BUDGET = 1.0
_CPU_AT_START = pytest.StashKey[float]()


def _cpu_seconds() -> float:
    """CPU time of this process (all its threads) and of the subprocesses it has waited for."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    item.stash[_CPU_AT_START] = _cpu_seconds()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """The teardown report carries the test's CPU-seconds (``cpu_seconds``; pytest-xdist sends
    a report's attributes to the controller, which prints the summary)."""
    outcome = yield
    if call.when == "teardown" and _CPU_AT_START in item.stash:
        report = outcome.get_result()  # type: ignore[attr-defined]
        report.cpu_seconds = _cpu_seconds() - item.stash[_CPU_AT_START]


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Under ``-m "not slow"``, list the tests over :data:`FAST_TEST_BUDGET` CPU-seconds."""
    if not _fast_loop(config):
        return
    over = sorted(((r.cpu_seconds, r.nodeid) for reports in terminalreporter.stats.values()
                   for r in reports if getattr(r, "when", None) == "teardown"
                   and getattr(r, "cpu_seconds", 0.0) > FAST_TEST_BUDGET), reverse=True)
    if over:
        terminalreporter.write_sep(
            "-", f"{len(over)} fast test(s) over {FAST_TEST_BUDGET:g} CPU-second: make them "
                 "cheaper or slow with a fast twin (tests/conftest.py SLOW_TESTS)")
        for seconds, nodeid in over:
            terminalreporter.write_line(f"{seconds:6.2f} s  {nodeid}")


REQUIRE_SPARK = os.environ.get("POLARS_FAIR_REQUIRE_SPARK") == "1"


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local Spark for the whole run (2 cores, loopback, no UI, 2 shuffle partitions).

    Skips without PySpark or Java, unless ``POLARS_FAIR_REQUIRE_SPARK=1``, when it fails.
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        if REQUIRE_SPARK:
            raise
        pytest.skip("pyspark is not installed (pip install -e '.[spark]')")
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    try:
        session = (
            SparkSession.builder.master("local[2]")
            .appName("polars_fair-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.default.parallelism", "2")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .getOrCreate()
        )
    except Exception as exc:  # noqa: BLE001  (no Java, no loopback: any startup error)
        if REQUIRE_SPARK:
            pytest.fail(f"POLARS_FAIR_REQUIRE_SPARK=1 but Spark did not start: {exc}")
        pytest.skip(f"Spark did not start (is Java 17+ installed?): {exc}")
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
