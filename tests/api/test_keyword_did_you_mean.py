"""A misspelled keyword on any ``df.fair`` / ``lf.fair`` method is the typed "did you mean"
report gives (issue 24 re-review, item 4), never Python's TypeError."""

from __future__ import annotations

import datetime

import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E

DF = pl.DataFrame({"p_a": [1.0, 0.0], "p_b": [0.0, 1.0], "y_pred": [1, 0], "y_true": [1, 0],
                   "g": ["a", "b"], "t": [datetime.date(2020, 1, 1)] * 2})
MEMBERSHIP = {"g2": {"a": "p_a", "b": "p_b"}}


def test_membership_calibration_know_gets_did_you_mean_known() -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        DF.fair.membership_calibration(membership=MEMBERSHIP, know="g")
    # by hand: UNKNOWN_ARGUMENT over the method's keywords, 'know' closest to 'known'
    assert str(info.value) == (
        "unexpected membership_calibration argument(s) ['know'] (did you mean 'known'?); the "
        "membership_calibration arguments are ['membership', 'known', 'bins', "
        "'sample_weight', 'normalize', 'null_groups']")


@pytest.mark.parametrize(("call", "hint"), [
    (lambda f: f.compare("g", y_pred="y_pred", baseline="y_pred", sample_weigth="y_pred"),
     "(did you mean 'sample_weight'?)"),
    (lambda f: f.monitor("g", time="t", every="1d", y_pred="y_pred", min_suport=1),
     "(did you mean 'min_support'?)"),
    (lambda f: f.proxy_report("g", membership=MEMBERSHIP, referense="a"),
     "(did you mean 'reference'?)"),
    (lambda f: f.continuous_report("g", y_pred="y_pred", smd_sdd="pooled"),
     "(did you mean 'smd_sd'?)"),
    (lambda f: f.moments("g", y_pred="y_pred", null_group="keep"),
     "(did you mean 'null_groups'?)"),
    (lambda f: f.bias_audit(["g"], y_pred="y_pred", max_group=5),
     "(did you mean 'max_groups'?)"),
])
def test_the_methods_without_it_before_say_did_you_mean(call: object, hint: str) -> None:
    for frame in (DF, DF.lazy()):
        with pytest.raises(E.InvalidArgumentError) as info:
            call(frame.fair)  # type: ignore[operator]
        assert hint in str(info.value)


def test_no_method_raises_a_raw_type_error_for_an_unknown_keyword() -> None:
    for frame in (DF, DF.lazy()):
        for name in dir(frame.fair):
            method = getattr(frame.fair, name)
            if name.startswith("_") or not callable(method):
                continue
            with pytest.raises(E.PolarsFairError):
                method(bogus_keyword=1)
