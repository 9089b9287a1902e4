"""Error types and message templates of polars_fair.

Every message names the column (or group) at fault and shows the offending values or counts.
The templates are module constants so that tests can assert the exact wording.

Why one module: it is a leaf every layer imports, and the error contract
(every type and every message template, asserted word for word by the tests) is read in one
place; it holds declarations, no logic.
"""

from __future__ import annotations

import datetime as _dt
import math as _math
import re as _re
from collections.abc import Collection, Iterable, Sequence
from typing import Any, TypeVar

__all__ = [
    "PolarsFairError",
    "ColumnNotFoundError",
    "InvalidLabelError",
    "NullValuesError",
    "EmptyFrameError",
    "UnknownGroupError",
    "NullGroupError",
    "TooManyLevelsError",
    "InvalidWeightError",
    "InvalidScoreError",
    "InvalidArgumentError",
    "NotRowLevelError",
    "SizeLimitError",
    "SQLRefusedError",
    "Classes",
    "class_error",
    "cli_classes",
    "cli_item",
    "closest",
    "cut_off",
    "levels_error",
    "pos_label_not_held",
    "too_many_labels",
    "shell_escaped",
    "shell_word",
    "show_values",
    "sql_name",
    "InvalidInputError",
    "InvalidMembershipError",
]

MISSING_COLUMN = "column {column!r} ({role}) not found; the frame has columns: {available}"
#: :data:`MISSING_COLUMN` with :data:`DID_YOU_MEAN` when a column is close (:func:`missing_column`).
MISSING_COLUMN_NEAR = (
    "column {column!r} ({role}) not found{near}; the frame has columns: {available}"
)
#: A comma-joined name whose parts are all columns, given to an argument that takes a list
#: (issue 20: "race,sex" was answered "did you mean 'race'?", which drops sex).
COMMA_JOINED_COLUMNS = (
    "column {column!r} ({role}) not found: it joins the columns {parts} with commas; pass a "
    "list, {advice}"
)
#: The arguments that take a list of columns, by the role their errors name.
LIST_ARGUMENTS = {"by": "by", "key": "keys", "keys": "keys", "categories": "categories",
                  "strata": "strata"}
NULL_LABELS = (
    "column {column!r} ({role}) holds {count} null value(s); labels and predictions may not be "
    "null"
)
#: :data:`NULL_LABELS` on the command line, where a blank field of the file is missing too.
CLI_NULL_LABELS = (
    "column {column!r} ({role}) holds {count} missing value(s) (null, or an empty or blank field "
    "of the file); labels and predictions may not be missing"
)
NAN_LABELS = (
    "column {column!r} ({role}) holds {count} NaN value(s); labels and predictions may not be NaN"
)
RESERVED_NAME = (
    "attribute name(s) {names} clash with output columns of polars_fair; rename them, for "
    "example by=pl.col({example!r}).alias({example!r} + '_attr')"
)
#: An attribute column named with the reserved prefix of polars_fair's working columns: the
#: advice drops the prefix (:func:`renamed`), since ``name + '_attr'`` would still start with it.
RESERVED_PREFIX = (
    "attribute name(s) {names} clash with polars_fair's working columns (their prefix '__pf_' "
    "is reserved); rename them, for example by=pl.col({example!r}).alias({renamed!r})"
)
#: :data:`COLUMN_CLASH` on a table made elsewhere (``from_counts``, ``from_scores``, ...),
#: whose key is a column of the table: it is renamed there (a table has no ``by=`` expression).
COLUMN_CLASH_TABLE = (
    "attribute name(s) {names} clash with output column(s) of {analysis}; rename the table's "
    "column, for example table.rename({{{example!r}: {renamed!r}}})"
)
#: :data:`KEY_SUFFIX_CLASH` on a table made elsewhere: the table's column is renamed.
KEY_SUFFIX_CLASH_TABLE = (
    "attribute name(s) {names} read as another attribute's pair column (<key>_i / <key>_j); "
    "rename the table's column, for example table.rename({{{example!r}: {renamed!r}}})"
)
#: The attribute of ``membership=`` (its key) named like an output column: it is named in the
#: mapping, so the advice renames it there, not with a ``by=`` expression.
MEMBERSHIP_ATTRIBUTE_CLASH = (
    "attribute name(s) [{name!r}] clash with output column(s) of {analysis}; name the "
    "attribute otherwise in membership=, for example "
    "membership={{{renamed!r}: membership[{name!r}]}}"
)
#: A count table's key column named with the reserved prefix of polars_fair's working columns.
RESERVED_KEY = (
    "key column(s) {names} of the {role} start with '__pf_', the prefix of polars_fair's "
    "working columns; rename them, for example table.rename({{{example!r}: {renamed!r}}})"
)
#: :data:`RESERVED_NAME` of an expression's output name (``pl.col("g").alias("n")``): the
#: expression is named again, there may be no column of that name to read.
RESERVED_NAME_EXPR = (
    "attribute name(s) {names} clash with output columns of polars_fair; name the expression "
    "otherwise, for example by=<the expression>.alias({example!r})"
)
#: The command line's advice of :data:`RESERVED_NAME` and :data:`KEY_SUFFIX_CLASH`: a SQL
#: ``--by`` is named by its text, so the column read under another text has another key name.
CLI_RENAME_ADVICE = "pass it as SQL named otherwise, for example --by {example}"
NOT_A_COLUMN = "{role} must be a column name or a polars expression, got {value!r} ({type})"
NOT_ONE_COLUMN = (
    "{role}={expr} does not give one named column (a selector or several columns); {advice}"
)
#: A selector (``cs.by_name(..., require_all=False)``, ``cs.starts_with(...)``) that matches no
#: column of the input; ``{columns}`` shows a few of them (:func:`show_values`).
SELECTS_NO_COLUMN = "{role}={expr} selects no column of the input (its columns: {columns})"
#: The advice of :data:`NOT_ONE_COLUMN` for ``by`` (and ``categories``): the selector's own
#: columns when known.
ONE_PER_ATTRIBUTE = "pass a list of one name or expression per attribute, {role}={example}"
#: The advice of :data:`NOT_ONE_COLUMN` for a role that takes one column (``y_pred``, ...).
ONE_COLUMN_ONLY = "{role} takes one column: pass one name or expression{choices}"
TOO_MANY_VALUES = (
    "column {column!r} ({role}) must hold pos_label={pos_label!r} and at most one other value; "
    "found other values {values}"
)
#: A label of two values neither of which is ``pos_label`` (the default 1 on a text label): no
#: third value to remove, the positive one to name (:func:`pos_label_not_held`).
POS_LABEL_NOT_HELD = (
    "column {column!r} ({role}) holds two values, {values}, and neither is pos_label="
    "{pos_label!r}; pass the one that means {meaning} as pos_label, for example "
    "pos_label={example!r}"
)
#: :data:`TOO_MANY_VALUES` of a label column whose values may identify people, by the rule of
#: attributes (:func:`polars_fair.counting.boundary.identifying`: a name, a date of birth, an
#: id): counts and the dtype only, and ``{why}``, what was counted (:data:`WHY_ALL_SINGLE`, ...).
TOO_MANY_VALUES_HIDDEN = (
    "column {column!r} ({role}) must hold pos_label={pos_label!r} and at most one other value; "
    "it is a {dtype} column with {levels:,} distinct values in {rows:,} rows: {why} (values not "
    "shown: such a column can identify people); is it the right column?"
)
#: A class column (``y_pred`` or ``y_true`` of a multiclass audit) whose values may identify
#: people (:func:`polars_fair.counting.boundary.identifying`): refused as such an attribute is,
#: since its classes would be printed; counts and the dtype only.
#: TOO_MANY_VALUES of a label, with the way to make it binary (:func:`too_many_labels`).
TOO_MANY_LABELS = TOO_MANY_VALUES + (
    "; a label of more than two values is made binary first, for example "
    "y_true=pl.col({column!r}) == {example!r} with pos_label=True"
)
CLI_TOO_MANY_LABELS = TOO_MANY_VALUES + (
    "; a label of more than two values is made binary first, for example --y-true "
    "\"{sql} = {example_sql}\" with --pos-label true"
)
#: TOO_MANY_VALUES of a prediction, with the way to audit more than two classes.
TOO_MANY_CLASSES = TOO_MANY_VALUES + (
    "; a prediction of more than two classes is audited per class: multiclass_report, or "
    "bias_audit(..., classes={classes}) for NYC LL 144 (one selection table per class)"
)
CLI_TOO_MANY_CLASSES = TOO_MANY_VALUES + (
    "; a prediction of more than two classes is audited per class: polars-fair "
    "multiclass-report, or bias-audit with classes={classes} and no pos_label= (one selection "
    "table per class)"
)
LOOKS_LIKE_SCORES = (
    "column {column!r} ({role}) holds values between {low} and {high} besides "
    "pos_label={pos_label!r}: it looks like a score, not a binary prediction. Pass it as "
    "y_score={column!r} with a threshold= (for example threshold=0.5), or use fair.abroca() for "
    "score-based metrics"
)
#: ``{advice}``: :data:`NEGATIVES_ADVICE` (Python), :data:`RELATION_NEGATIVES_ADVICE` (a DuckDB or
#: Spark relation) or :data:`CLI_NEGATIVES_ADVICE` (the command line): the prediction's negative
#: value mapped onto the label's.
NEGATIVES_DIFFER = (
    "y_true column {y_true!r} and y_pred column {y_pred!r} use different negative values "
    "({neg_true!r} and {neg_pred!r}) beside pos_label={pos_label!r}; {advice}"
)
NEGATIVES_ADVICE = (
    "map one onto the other first, for example {role}=pl.col({column!r}).replace({neg_pred!r}, "
    "{neg_true!r})"
)
RELATION_NEGATIVES_ADVICE = (
    "map one onto the other in the relation first, for example with SQL CASE WHEN {sql} = "
    "{neg_pred_sql} THEN {neg_true_sql} ELSE {sql} END AS {mapped}, and pass {role}={mapped!r}"
)
CLI_NEGATIVES_ADVICE = (
    "map one onto the other first, for example --{flag} \"CASE WHEN {sql} = {neg_pred_sql} THEN "
    "{neg_true_sql} ELSE {sql} END\""
)
POS_LABEL_ABSENT = (
    "pos_label={pos_label!r} occurs in neither {y_true!r} nor {y_pred!r}; values found: "
    "{values}. Pass pos_label= the value that means the positive (favourable) outcome"
)
#: :data:`POS_LABEL_ABSENT` of a paired table: the label and both models.
POS_LABEL_ABSENT_PAIRED = (
    "pos_label={pos_label!r} occurs in none of {y_true!r}, {y_pred!r} (the candidate) and "
    "{baseline!r} (the baseline); values found: {values}. Pass pos_label= the value that means "
    "the positive (favourable) outcome"
)
#: ``demo`` with too few rows (``--n 1``): its labels are 0/1 and it takes no --pos-label.
CLI_DEMO_TOO_FEW = (
    "the demo's {n:,} synthetic row(s) hold no positive outcome (1) to audit; pass a larger "
    "--n (the default is 20,000)"
)
#: ``{example}``: the same value in the column's type (:func:`polars_fair.core.values.value_like`),
#: ", for example pos_label=1", or the column type's usual positive value when it has no reading.
POS_LABEL_DTYPE = (
    "pos_label={pos_label!r} ({pos_type}) cannot be compared with column {column!r} of dtype "
    "{dtype}; pass a pos_label of the column's type{example}"
)
#: A label and a prediction of different kinds (text and Boolean, text and numbers): no one
#: pos_label can be both, so the advice is to turn the label into the prediction's kind.
#: A text label with a Boolean or numeric prediction, or the reverse (:func:`label_kinds_error`):
#: ``{advice}`` turns the text column (``{what}``: "label" or "prediction", ``{role}`` its
#: argument) into a Boolean by one of its values (``{values}``: :data:`KINDS_VALUES`), or, for
#: a column whose many values may identify people, :data:`KINDS_HIDDEN`.
LABEL_PREDICTION_KINDS = (
    "y_true column {y_true!r} ({true_dtype}) and y_pred column {y_pred!r} ({pred_dtype}) hold "
    "different kinds of values, so no one pos_label fits both; {advice}"
)
CLI_LABEL_PREDICTION_KINDS = (
    "--y-true column {y_true!r} ({true_dtype}) and --y-pred {y_pred!r} ({pred_dtype}) hold "
    "different kinds of values, so no one --pos-label fits both; {advice}"
)
KINDS_ADVICE = (
    "turn the {what} into a Boolean first, for example {role}=pl.col({column!r}) == "
    "{example!r} ({values}), and pass pos_label={pos!r}"
)
CLI_KINDS_ADVICE = (
    "turn the {what} into a Boolean first, for example --{flag} \"{sql} = {example_sql}\" "
    "({values}) with --pos-label {pos_cli}"
)
#: A label or prediction given as an expression whose value is the same on every row
#: (:func:`polars_fair.counting.tables.count_table`): a warning, since every rate that needs
#: both values is then undefined or trivial (a comparison with a value the column lacks).
CONSTANT_OUTCOME = (
    "{role} {name!r} is {value} on every one of the {rows:,} rows counted, so every rate that "
    "needs both values is undefined or trivial; is the value it compares with one the column "
    "holds?"
)
KINDS_UNREAD = (
    "turn the {what} into a Boolean first by comparing {column!r} with its positive value, and "
    "pass pos_label={pos!r}"
)
KINDS_VALUES = "its values: {values}; compare it with the positive one"
#: :data:`KINDS_VALUES` on the command line: the values as the SQL of the example writes them,
#: space-separated (:func:`cli_values`), not a Python list.
CLI_KINDS_VALUES = "its values: {values}; put the positive one in place of {example}"
#: :data:`POS_LABEL_DTYPE`'s ``{example}`` for a text column, read from its rows: one of its
#: own values (``pos_label`` as text when the column holds it, else the first in sorted order).
POS_LABEL_VALUES = (
    ", for example pos_label={example!r} (its values: {values}; pass the positive one)"
)
#: :data:`POS_LABEL_VALUES` on the command line: each value as ``--pos-label`` takes it, one
#: shell word (:func:`cli_values`).
CLI_POS_LABEL_VALUES = (
    ", for example --pos-label {example} (its values: {values}; pass the positive one)"
)
KINDS_HIDDEN = (
    "turn the {what} into a Boolean first by comparing {column!r} with its positive value; its "
    "values are not shown ({levels:,} distinct values in {rows:,} rows: {why}; they may "
    "identify people): is it the right column?"
)
EMPTY_FRAME = "the frame has no rows{detail}: there is nothing to audit"
#: Multiclass decisions (:mod:`polars_fair.counting.classes`, ``analyses.multiclass``).
ONE_CLASS = (
    "column {column!r} ({role}) holds one class only ({values}); a multiclass audit compares at "
    "least two classes: pass classes= with every class the tool can assign"
)
FEW_CLASSES = "classes= must list at least two distinct, non-null classes, got {values}"
UNKNOWN_CLASSES = (
    "column {column!r} ({role}) holds {count} value(s) not in classes={classes}: {values}; pass "
    "classes={wanted} (the classes given, then those found), or map them to a listed class first"
)
#: :data:`UNKNOWN_CLASSES` when a class given never occurs while a close one found is unlisted
#: (``Meduim`` given, ``Medium`` found): the list advised has the misspelt class replaced.
UNKNOWN_CLASSES_TYPO = (
    "column {column!r} ({role}) holds {count} value(s) not in classes={classes}: {values}, "
    "while {absent} never occurs (did you mean {hint}?); pass classes={wanted} (the classes "
    "given with the misspelt one(s) replaced), or map them to a listed class first"
)
#: Not one row's class among ``classes=``: none of the classes given occurs (a misspelt list,
#: or classes of another column); the classes the column holds, to pass instead.
CLASSES_ABSENT = (
    "none of classes={classes} occurs in column {column!r} ({role}): its {count:,} row(s) hold "
    "{values}; pass the classes it holds, for example classes={wanted}"
)
#: ``classes=`` as a set: it has no order, and the classes' order is the report's.
CLASSES_UNORDERED = (
    "classes= is a {kind}, which has no order, but the order of the classes matters (the rows "
    "of the report follow it, and ordered=True reads it from the lowest class up); pass a list "
    "in the order you mean, for example classes={example}"
)
#: A class table whose every count ``n`` is 0 (:func:`polars_fair.from_class_counts`).
CLASS_COUNTS_ZERO = (
    "every n of the class table is 0 ({rows:,} table row(s), classes {values}): none of its "
    "classes occurs, so there is nothing to audit"
)
#: A label's classes outside the categories of the Enum prediction that declares the classes:
#: the Enum cannot hold them, so ``classes=`` cannot take them; the Enum widened can.
ENUM_OUTSIDE = (
    "column {column!r} ({role}) holds {count} value(s) outside the categories of the Enum column "
    "{enum!r} (y_pred): {values} (its categories: {categories}); cast it to an Enum that has "
    "them, for example y_pred=pl.col({enum!r}).cast(pl.Enum({widened})){also}"
)
#: :data:`ENUM_OUTSIDE` on the command line: the Enum read as text, the classes in order.
CLI_ENUM_OUTSIDE = (
    "column {column!r} ({role}) holds {count} value(s) outside the categories of the Enum column "
    "{enum!r} (y_pred): {values} (its categories: {categories}); read it as text with the "
    "classes in order, for example --y-pred {sql} --classes {wanted}"
)
#: The classes found in a column whose values may identify people
#: (:func:`polars_fair.counting.boundary.identifying`), in place of their list: counts and dtype.
CLASSES_HIDDEN = (
    "({levels:,} distinct {dtype} values in {rows:,} rows, not shown: such a column can identify "
    "people; is it the right column?)"
)
#: A class column too fine to be an attribute (the attributes' rule, ``{why}`` the part that
#: decided: :func:`polars_fair.counting.boundary.identifying`): an id, a name or a birth date
#: given as the class; counts and dtype only.
CLASS_COLUMN_HIDDEN = (
    "column {column!r} ({role}) is a {dtype} column with {levels:,} distinct values in "
    "{rows:,} rows: {why}, so it cannot hold classes (values not shown: such a column can "
    "identify people); is it the right column?"
)
#: ``classes=`` longer than the limit ``classes`` (:mod:`polars_fair.core.limits`).
CLASSES_TOO_MANY = (
    "classes= lists {size:,} classes, more than the limit of {limit:,} (each class is a report "
    "of every group); pass at most {limit:,}"
)
#: A class column (no ``classes=``) with more distinct values than that limit: counts only.
CLASS_VALUES_TOO_MANY = (
    "column {column!r} ({role}) holds {size:,} distinct values, read as its classes: more than "
    "the limit of {limit:,} classes (each class is a report of every group; values not shown); "
    "is it the right column? Map it onto at most {limit:,} classes first"
)
#: :data:`UNKNOWN_CLASSES` of such a column: no value, and no advice to list them.
UNKNOWN_CLASSES_HIDDEN = (
    "column {column!r} ({role}) holds {count} value(s) not in classes={classes} {values}"
)
CLASS_DTYPE = (
    "classes= {values} cannot be compared with column {column!r} of dtype {dtype}; pass classes "
    "of the column's type"
)
ENUM_CLASSES = (
    "classes= {values} holds {bad} that the Enum column {column!r} cannot hold (its categories: "
    "{categories}); cast it to an Enum that has them, for example "
    "y_pred=pl.col({column!r}).cast(pl.Enum({wanted}))"
)
#: :data:`ENUM_CLASSES` on the command line: the Enum read as text.
CLI_ENUM_CLASSES = (
    "classes= {values} holds {bad} that the Enum column {column!r} cannot hold (its categories: "
    "{categories}); read it as text, for example --y-pred {sql} with the same --classes"
)
CLASS_KINDS = (
    "y_true column {y_true!r} ({true_dtype}) and y_pred column {y_pred!r} ({pred_dtype}) hold "
    "different kinds of values, so their classes cannot match; turn the numbers into text, for "
    "example {role}=pl.col({column!r}).cast(pl.String)"
)
CLI_CLASS_KINDS = (
    "--y-true column {y_true!r} ({true_dtype}) and --y-pred column {y_pred!r} ({pred_dtype}) "
    "hold different kinds of values, so their classes cannot match; turn the numbers into "
    "text, for example {flag} \"CAST({sql} AS VARCHAR)\""
)
#: Two Enums whose categories neither contain the other's in its order: no one class order.
ENUM_CLASSES_DIFFER = (
    "y_true column {y_true!r} and y_pred column {y_pred!r} are Enums with different categories "
    "({true_categories} and {pred_categories}), neither holding the other's in its order, so "
    "the classes have no one order; pass classes= with every class in order, for example "
    "classes={example}"
)
#: :data:`CLASS_KINDS` when the numbers, turned into text, match none of the text classes
#: (COMPAS: two_year_recid 0/1 against score_text Low/Medium/High): a cast would only lead to
#: :data:`NO_COMMON_CLASSES`.
CLASS_KINDS_APART = (
    "y_true column {y_true!r} ({true_dtype}) holds {true_values} and y_pred column {y_pred!r} "
    "({pred_dtype}) holds {pred_values}: different kinds of values, and none would match as "
    "text, so no prediction can be right; leave y_true out (the selection rates per class need "
    "no labels), or map both columns to the same classes first"
)
#: :data:`CLASS_KINDS_APART` on the command line.
CLI_CLASS_KINDS_APART = (
    "--y-true column {y_true!r} ({true_dtype}) holds {true_values} and --y-pred column "
    "{y_pred!r} ({pred_dtype}) holds {pred_values}: different kinds of values, and none would "
    "match as text, so no prediction can be right; leave --y-true out (the selection rates per "
    "class need no labels), or map both columns to the same classes first (SQL CASE)"
)
NO_COMMON_CLASSES = (
    "y_true column {y_true!r} holds the classes {true_values} and y_pred column {y_pred!r} the "
    "classes {pred_values}: none in common, so no prediction can be right; map both columns to "
    "the same classes first, or leave y_true out (the selection rates per class need no labels)"
)
#: :data:`NO_COMMON_CLASSES` on the command line (a mapping is SQL there).
CLI_NO_COMMON_CLASSES = (
    "--y-true column {y_true!r} holds the classes {true_values} and --y-pred column {y_pred!r} "
    "the classes {pred_values}: none in common, so no prediction can be right; map both "
    "columns to the same classes first (SQL CASE), or leave --y-true out (the selection rates "
    "per class need no labels)"
)
#: :data:`NULL_LABELS` / :data:`NAN_LABELS` of a class table handed in (``from_class_counts``):
#: its table rows are counted, and the rows they stand for (their ``n``) said as such.
NULL_CLASS_TABLE = (
    "class table column {column!r} holds {count} {what} value(s) (in table rows whose n sum to "
    "{rows}); every row of a class table needs its class"
)
#: :data:`TEST_WEIGHTS` of a class table handed in with a ``weight_sum`` column (no
#: ``sample_weight`` was passed: the table was made elsewhere).
TEST_WEIGHT_SUMS = (
    "multiclass_test counts rows: a chi-square test on weight sums is not valid for sampling "
    "weights (their scale is not a number of observations), so a class table with a weight_sum "
    "column is refused; pass the table without its weight_sum column for the test (its n are "
    "the rows; the report reads the weight sums)"
)
TEST_WEIGHTS = (
    "multiclass_test counts rows: a chi-square test on weight sums is not valid for sampling "
    "weights (their scale is not a number of observations), so sample_weight={weight!r} is "
    "refused; build the class table without sample_weight for the test (the report reads the "
    "weights)"
)
CLASSES_CONFLICT = (
    "classes= is for a y_pred column of classes (one selection table per class) and cannot be "
    "combined with {other}; {advice}"
)
MANY_CLASSES_LL144 = (
    "y_pred column {column!r} holds more than two values ({values}): a binary selection is "
    "pos_label and one other value; for a tool that classifies (6 RCNY 5-301(b)(4)) pass "
    "classes={classes} (one selection table per class), or map the column to selected / not "
    "selected first"
)
ORDER_NEEDS_CLASSES = (
    "ordered=True reads the classes from the lowest to the highest, but column {column!r} of dtype "
    "{dtype} has no order of its own; pass classes= with its values in that order, for example "
    "classes={example}{guess} (found, sorted as text: {values})"
)
#: :data:`ORDER_NEEDS_CLASSES` on the command line: the classes as ``--classes`` takes them.
CLI_ORDER_NEEDS_CLASSES = (
    "--ordered reads the classes from the lowest to the highest, but column {column!r} of dtype "
    "{dtype} has no order of its own; pass --classes with its values in that order, for example "
    "--classes {example}{guess}"
)
#: :data:`ORDER_NEEDS_CLASSES`'s note when no known scale orders the classes (they are shown
#: sorted as text).
ORDER_GUESSED = " (sorted as text here: put them in their order)"
#: :data:`ORDER_NEEDS_CLASSES`'s note when an Enum label (read as text beside a text
#: prediction) orders the classes.
ORDER_OF_LABEL = " (in the order of the y_true Enum's categories)"
UNKNOWN_GROUP = "reference group {group!r} does not exist{near}; the groups are: {groups}"
#: :data:`UNKNOWN_GROUP` on the command line: the group and a few groups as the shell words
#: ``--reference`` takes (:func:`polars_fair.core.labels.cli_words`; the missing group
#: ``'(missing)'``, the text "(missing)" ``'"(missing)"'``).
CLI_UNKNOWN_GROUP = (
    "--reference {group} names no group{near}; the groups are: {groups} (each as --reference "
    "takes it)"
)
#: :data:`CLI_UNKNOWN_GROUP`'s note when the value holds ``,<column>=`` for a column of the
#: input that is not audited (``--reference 'g=a,zz=b'``): the Python mapping
#: ``{'g': 'a', 'zz': 'b'}`` is refused naming the attributes (:data:`BAD_REFERENCE_MAPPING`);
#: the command line reads ``zz=b`` as part of the value, by its quoting rule, and says so.
CLI_REFERENCE_NOT_AUDITED = (
    "; not an audited attribute: {names} (--reference names exactly the attributes of --by, "
    "{attributes}; the rest of its text is read as part of the value)"
)
EMPTY_REFERENCE = "reference group {group!r} has no rows (n = 0): it cannot be a reference"
#: ``{example}``: the same value in the attribute's type (:func:`polars_fair.core.values.
#: value_advice`: ", for example datetime.date(2020, 1, 31)"), or "" when it has none.
VALUE_DTYPE = (
    "{role} value {value!r} ({type}) cannot be compared with attribute {column!r} of dtype "
    "{dtype}; pass a value of the attribute's type{example}"
)
NULL_GROUPS = (
    "attribute column(s) hold null (or NaN) values: {counts}. Pass null_groups='keep' to audit "
    "them as a group of their own, or null_groups='drop' to drop them with a warning"
)
DROPPED_NULL_GROUPS = (
    "dropped {rows} row(s) whose attribute is null ({counts}) because null_groups='drop'; "
    "pass null_groups='keep' to audit them as a group of their own"
)
DROPPED_NULL_GROUPS_SETS = (
    "dropped row(s) whose attribute is null, in each attribute set that holds the attribute, "
    "because null_groups='drop': {counts}; pass null_groups='keep' to audit them as a group of "
    "their own"
)
#: An attribute refused for its number of levels: counts and the dtype, never a value (a column
#: too fine to form groups, a name, a date of birth or an id, identifies people). ``{why}`` is
#: :data:`WHY_FLOAT_LEVELS`, :data:`WHY_ALL_SINGLE`, :data:`WHY_FEW_ROWS` or :data:`WHY_SINGLES`
#: (what was counted), ``{advice}`` one of :data:`LEVELS_ADVICE`
#: (Python) or :data:`CLI_LEVELS_ADVICE` (the command line), by the kind of the column's dtype.
TOO_MANY_LEVELS = (
    "attribute {column!r} is a {dtype} column with {levels:,} distinct values in {rows:,} rows: "
    "{why}, so it cannot form groups (values not shown: such a column can identify people); "
    "{advice}"
)
NUMERIC_LEVELS = TOO_MANY_LEVELS
#: Attributes each fine alone whose intersection, the groups actually counted, is too fine
#: (:func:`intersection_error`): the attribute names and counts, never a value.
FINE_INTERSECTION = (
    "attributes {columns} together form {levels:,} groups in {rows:,} rows: {why}, so they "
    "cannot form groups (values not shown: such groups can identify people); {advice}"
)
INTERSECTION_ADVICE = (
    "leave one of them out of by=, or map their values to a few categories first"
)
#: ``{flags}``: ``--by COLUMN`` of each attribute, joined by " or ".
CLI_INTERSECTION_ADVICE = (
    "leave one of {flags} out, or map their values to a few categories first with a CASE "
    "expression"
)
WHY_FLOAT_LEVELS = "more than {limit} values of a number"
#: The parts of the rule of :func:`polars_fair.counting.boundary.fineness`, each saying what it
#: counted: ``{unit}`` is "value" (one column) or "group" (an intersection of attributes).
WHY_ALL_SINGLE = "each of the {levels:,} {unit}s is a single row"
WHY_FEW_ROWS = "fewer than two rows per {unit} on average"
WHY_SINGLES = "{singles:,} of the {levels:,} {unit}s ({share} or more) are a single row each"
LEVELS_ADVICE = {
    "number": "bin it first, for example by=pl.col({column!r}).bin_quantiles(5, labels=False) "
              "(five quantile bins), or in divergence pass bins={{{column!r}: 5}}",
    "date": "take a coarser unit first, for example by=pl.col({column!r}).dt.year() // 10 * 10 "
            "(the decade)",
    "time": "take a coarser unit first, for example by=pl.col({column!r}).dt.hour()",
    "duration": "bin it first, for example by=pl.col({column!r}).dt.total_days()"
                ".bin_quantiles(5, labels=False) (five quantile bins)",
    "text": "leave it out of by= (a name or an identifier marks a person or a record, not a "
            "group), or map its values to a few categories first",
}
#: ``{sql}`` is the SQL identifier escaped for a double-quoted shell word, ``{word}`` the column
#: as a shell word and ``{bins}`` :data:`CLI_BINS_ADVICE` (:func:`levels_error`).
CLI_LEVELS_ADVICE = {
    "number": "bin it first, for example --by \"CASE WHEN {sql} < {cut} THEN 'under {cut}' "
              "ELSE '{cut} or more' END\" (a cut-off of your choice){bins}",
    "date": "take a coarser unit first, for example --by \"FLOOR(DATE_PART('year', {sql}) / 10) "
            "* 10\" (the decade)",
    "time": "take a coarser unit first, for example --by \"DATE_PART('hour', {sql})\"",
    "duration": "leave --by {word} out, or bin it with --where and a CASE expression of "
                "your choice",
    "text": "leave --by {word} out (a name or an identifier marks a person or a record, not "
            "a group), or map its values to a few categories first with a CASE expression",
}
#: The ``--bins`` part of :data:`CLI_LEVELS_ADVICE`, written as the item ``bins[COLUMN]=5`` that
#: :func:`polars_fair.cli.io.cli_message` turns into ``--bins`` and one shell word the command
#: line parses for any column name (``--bins 'by=5'``, ``--bins '"a=b"=5'``, ``--bins age=5``).
#: The command line drops it for a SQL ``--by`` (``--bins`` bins columns only).
CLI_BINS_ADVICE = ", or in divergence bins[{column!r}]=5"
#: The advice of a level error on a count or score table made elsewhere: by= would be refused.
TABLE_LEVELS_ADVICE = (
    "bin it in the table before you build the object (for example group the table by "
    "pl.col({column!r}).bin_intervals([...], labels=[...]) and sum its counts), or leave it "
    "out of the keys"
)
#: An attribute that divergence's ``bins=`` cut into bins too fine to form groups
#: (:func:`binned_levels_error`): the column's own dtype (the bins' labels are text) and advice
#: to pass fewer bins, which the command line writes as ``--bins COLUMN=N``.
BINNED_LEVELS = (
    "attribute {column!r} is a {dtype} column cut by bins= into {levels:,} bins in {rows:,} rows: "
    "{why}, so they cannot form groups (values not shown: such bins can identify people); pass "
    "fewer bins, for example bins={{{column!r}: {fewer}}}"
)
#: The advice of a level error on a DuckDB or Spark relation: a pl.Expr is refused there.
RELATION_LEVELS_ADVICE = (
    "bin it in the relation first, for example with SQL CASE WHEN {sql} < {cut} THEN 'under "
    "{cut}' ELSE '{cut} or more' END AS binned (a cut-off of your choice), and audit by binned, "
    "or leave it out of by="
)
BAD_WEIGHTS = (
    "sample_weight column {column!r} holds {nulls} null, {nans} NaN or infinite and {negatives} "
    "negative value(s); weights must be finite and non-negative"
)
BAD_SCORES = (
    "y_score column {column!r} holds {nulls} null, {nans} NaN and {infinite} infinite value(s); "
    "scores must be finite numbers"
)
SCORE_BEYOND_FLOAT = (
    "y_score column {column!r} ({dtype}) holds {count} integer value(s) beyond 2**53 in "
    "magnitude, which a float cannot hold exactly (2**53 + 1 would tie with 2**53); rescale the "
    "scores, or rank them first"
)
THRESHOLD_BEYOND_FLOAT = (
    "threshold {value!r} is an integer that a float cannot hold exactly (beyond 2**53); scores "
    "are compared as Float64: pass a threshold within 2**53"
)
SCORE_DECIMAL_DIGITS = (
    "y_score column {column!r} ({dtype}) holds {count} decimal value(s) of more than 15 "
    "significant digits, which a float cannot keep apart (two such scores could compare equal); "
    "round the scores to 15 significant digits first"
)
THRESHOLD_FLOAT_RANGE = (
    "threshold {value!r} is outside the normal range of a Float64 and would be compared as "
    "{read!r}; scores are compared as Float64: pass a threshold between 2.2250738585072014e-308 "
    "and 1.7976931348623157e+308 in size, or 0"
)
THRESHOLD_DECIMAL_DIGITS = (
    "threshold {value!r} has more than 15 significant digits and is not a float's exact value; "
    "scores are compared as Float64: pass a threshold of at most 15 significant digits"
)
THRESHOLD_NOT_DECIMAL = (
    "threshold {value!r} has no finite decimal expansion and is not a float's exact value; "
    "scores are compared as Float64, where it would read as {read!r}: pass a decimal of at most "
    "15 significant digits, for example {example}"
)
EMPTY_NAME = (
    "an attribute ({role}) has an empty name ('', as pandas writes an unnamed index), which "
    "cannot name a key column; rename it, for example df.rename({{'': 'index'}})"
)
#: :data:`EMPTY_NAME` of a key of a table made elsewhere (``from_counts``, ``from_scores``,
#: ...): the table is what the user holds and renames.
EMPTY_NAME_TABLE = (
    "a key of the table ({role}) has an empty name ('', as pandas writes an unnamed index), "
    "which cannot name a key column; rename it in the table, for example "
    "table.rename({{'': 'index'}})"
)
#: :data:`EMPTY_NAME` of an expression (an unnamed ``pl.lit(pl.Series([...]))``): no column to
#: rename, the expression is named.
EMPTY_NAME_EXPR = (
    "an attribute ({role}) is an expression whose name is empty ({expr}), which cannot name a "
    "key column; name it with .alias(), for example {role}=<the expression>.alias('group')"
)
#: :data:`EMPTY_NAME` on the command line, where a frame cannot be renamed in Python.
CLI_EMPTY_NAME = (
    "an attribute ({role}) has an empty name ('', as pandas writes an unnamed index), which "
    "cannot name a key column; give the column a name in the file's header, or leave it out of "
    "--by"
)
#: :data:`BAD_KEY_DTYPE` on the command line: a SQL --by cannot reach into a list or struct.
CLI_BAD_KEY_DTYPE = (
    "attribute {column!r} (--by) has dtype {dtype}, which cannot define groups; pass a column "
    "of numbers, strings, categories, booleans or dates (write the file with one such value "
    "per row in that column, or leave it out of --by)"
)
#: A CSV field opened with a quote and not closed properly (the command line reads ``"`` as
#: the CSV quote character); the message shows no row content.
CSV_BAD_QUOTE = (
    "{path}: the quoted field that starts at line {line} is not closed properly, so the rows "
    "from there on cannot be read (a field that starts with \" ends at the next lone \"; a \" "
    "inside a field is written twice, \"\", and a field that holds a \" but does not start "
    "with one must be quoted whole); fix the quotes at line {line} of the file"
)
#: A CSV row with fewer fields than the header (Polars reads the missing ones as empty, so a
#: row cut short became a missing group): the file, the line and the counts, no value
#: (:func:`polars_fair.cli.csv_read.short_field_fault`). A blank line is no row. ``{empty}``:
#: an empty field between two others with the file's separator (``a,,b``; a tab as ``\t``).
CSV_SHORT_FIELDS = (
    "{path}: the row at line {line} has {found} field(s), fewer than the {expected} of the "
    "header (the values are not shown; a missing field is not read as an empty one); write "
    "the missing fields at line {line} of the file (an empty field is nothing between two "
    "separators: {empty}), or check --separator"
)
#: A CSV row with more fields than the header: the file, the line and the counts, no value
#: (:func:`polars_fair.cli.csv_read.extra_field_fault`).
#: Blank lines between a CSV's rows (no rows; left out, counted).
CSV_BLANK_LINES = "{path}: {count:,} blank line(s) between rows are not rows and were skipped"
CSV_EXTRA_FIELDS = (
    "{path}: the row at line {line} has {found} fields, more than the {expected} of the header "
    "(the values are not shown); check --separator, or quote a field that holds the separator "
    "at line {line} of the file"
)
CSV_NOT_UTF8 = (
    "{path}: line {line} holds bytes that are not UTF-8 text; convert the file to UTF-8, for "
    "example iconv -f latin1 -t utf-8 {quoted} > {converted} (name the file's own encoding)"
)
CSV_BINARY = (
    "{path} is not a text CSV file (it holds NUL bytes, as a binary file does); pass a CSV, "
    "Parquet or NDJSON file"
)
CSV_EMPTY = "{path} is empty: no header and no rows, nothing to audit"
DTYPE_HINT = " (set the column's type with --dtype COLUMN=TYPE, for example str)"
EXTRA_FIELDS_HINT = (
    " (a row has more fields than the header: check --separator, or quote a field that holds "
    "the separator)"
)
NOT_NUMERIC = "column {column!r} ({role}) must be numeric, got dtype {dtype}"
#: A value that its column's type (``--dtype``) or a cast cannot hold: counts and dtypes, never
#: the values (they may be names or dates of birth); :func:`conversion_failure` writes it.
CONVERSION_FAILED = (
    "{role}: {count} of column {column!r} could not be converted from {source} to {target} "
    "(the values are not shown: they may identify people)"
)
#: An Enum prediction declaring more categories (its classes) than the ``classes`` limit.
ENUM_CLASSES_TOO_MANY = (
    "the Enum prediction declares {size:,} categories, more than the limit of {limit:,} classes "
    "(each class is a report of every group); cast it to String so that only the classes the "
    "rows hold are used, or pass classes= with at most {limit:,}"
)
#: :data:`ENUM_CLASSES_TOO_MANY` on the command line: the prediction read as text.
CLI_ENUM_CLASSES_TOO_MANY = (
    "the Enum prediction declares {size:,} categories, more than the limit of {limit:,} classes "
    "(each class is a report of every group); read it as text so that only the classes the "
    "rows hold are used, for example --y-pred {sql}, or pass --classes with at most {limit:,}"
)
#: ``power_curve`` with more cells (effects x sizes) than its limit.
POWER_CELLS = (
    "power_curve: {option}= makes{more} {cells:,} cells (effects x sizes), more than the limit "
    "of {limit:,} (power_cells: each cell runs n_simulations randomization tests); pass fewer "
    "sizes or effects"
)
#: A SQL date function without a format (``--by "DATE(dt)"``): Polars guesses the format from
#: the column's values, so it is not row-level; the SQL that works instead.
SQL_DATE_NO_FORMAT = (
    "{role} {text!r} is not a row-level expression: {call} without a format guesses the format "
    "from the column's values, so one row's value depends on the others; give the format, "
    "DATE({x}, '%Y-%m-%d') (DATE(SUBSTR({x}, 1, 10), '%Y-%m-%d') for a date and time written "
    "as text), or CAST({x} AS DATE) for a column {read}"
)
#: How :data:`SQL_DATE_NO_FORMAT` names a date-time column: on the command line with the flag
#: that reads it so, in Python (``audit_html(where=...)``) by its dtype.
SQL_READ_DATETIME = {"cli": "read as a date-time (--dtype {x}=datetime)",
                     "python": "of date-times (pl.Datetime)"}
#: ``TIMESTAMP(x)`` of a column without a format (:data:`SQL_DATE_NO_FORMAT`'s twin).
SQL_TIMESTAMP_NO_FORMAT = (
    "{role} {text!r} is not a row-level expression: {call} without a format guesses the format "
    "from the column's values, so one row's value depends on the others; give the format, "
    "TIMESTAMP({x}, '%Y-%m-%d %H:%M:%S'), or CAST({x} AS TIMESTAMP) for a column {read}"
)
#: ``DATE(...)`` or ``TIMESTAMP(...)`` of an expression without a format (``DATE(SUBSTR(dt, 1,
#: 10))``), wherever it stands in a SQL option; ``{advice}`` is the call with a format.
SQL_CALL_NO_FORMAT = (
    "{role} {text!r} is not a row-level expression: {call} without a format guesses the format "
    "from the values, so one row's value depends on the others; give the format, {advice}"
)
#: A cast Polars does not make for any value (text to a date), with the function it advises.
CAST_UNSUPPORTED = (
    "{role}: {count}column {column!r} cannot be cast from {source} to {target}: Polars does "
    "not cast {source} to {target}{instead}"
)
#: The advice of :data:`CAST_UNSUPPORTED` for text cast to a Boolean (Polars casts numbers
#: only): the comparison that makes one, in Python and in SQL.
BOOLEAN_FROM_TEXT = "; compare the text with its true value instead, for example {expr}"
#: ``replace_strict`` without ``default=`` meeting values its mapping does not name: counts,
#: never the values.
REPLACE_UNMAPPED = (
    "{role}: {count} of column {column!r} are not in the mapping of replace_strict, which has "
    "no default= (the values are not shown: they may identify people)"
)
# continuous outcomes (moments, continuous_report)
CONTINUOUS_NEEDS_Y_PRED = "a continuous audit needs y_pred= (the numeric outcome or prediction)"
NULL_CONTINUOUS = (
    "column {column!r} ({role}) holds {count} null value(s); continuous values may not be null"
)
BAD_CONTINUOUS = (
    "column {column!r} ({role}) holds {count} NaN or infinite value(s); continuous "
    "values must be finite numbers"
)
#: ``{advice}``: :data:`CONTINUOUS_OFFSET` (Polars), :data:`RELATION_CONTINUOUS_OFFSET`
#: (DuckDB, Spark) or :data:`CLI_CONTINUOUS_OFFSET` (the command line, whose SQL is row-level).
CONTINUOUS_BEYOND_FLOAT = (
    "column {column!r} ({role}, {dtype}) holds {count} integer value(s) beyond 2**53 in "
    "magnitude, which a float cannot hold exactly (means and sums of squares are Float64); "
    "{advice}"
)
CONTINUOUS_OFFSET = (
    "subtract an offset first, for example {role}=pl.col({column!r}) - pl.col({column!r}).min() "
    "(the same offset from y_true and y_pred when both are given, so residuals keep their "
    "values)"
)
RELATION_CONTINUOUS_OFFSET = (
    "subtract an offset in the relation first, for example with SQL {sql} - MIN({sql}) OVER () "
    "AS {shifted}, and pass {role}={shifted!r} (the same offset from y_true and y_pred when "
    "both are given)"
)
CLI_CONTINUOUS_OFFSET = (
    "subtract an offset first, as --{flag} \"{sql} - N\" with N a number near the column's "
    "minimum (the same N from --y-true and --y-pred when both are given)"
)
#: Finite values whose moments overflow a double (a square beyond 1.8e308), any engine.
CONTINUOUS_OVERFLOW = (
    "column {column!r} ({role}) has values too large to square in a double (beyond about "
    "1e154 in magnitude): the {moment} of {count} group(s) overflows; divide the column by a "
    "power of ten first, for example by 1e100 (the same factor for y_true and y_pred when "
    "both are given; SMDs and ratios are unchanged)"
)
#: Nonzero values whose squares underflow a double (below about 1.5e-154) in groups whose sum
#: of squares is then 0 or subnormal, any engine: the standard deviation (and SMD) would be
#: silently lost.
CONTINUOUS_UNDERFLOW = (
    "column {column!r} ({role}) holds {count} nonzero value(s) too small to square in a "
    "double (below about 1.5e-154 in magnitude: their squares underflow, and the standard "
    "deviation of their group(s) would be lost); multiply the column by a power of ten "
    "first, for example by 1e100 (the same factor for y_true and y_pred when both are given; "
    "SMDs and ratios are unchanged)"
)
#: :data:`CONTINUOUS_BEYOND_FLOAT` of a Decimal column (``SCORE_DECIMAL_DIGITS``' rule).
CONTINUOUS_DECIMAL_DIGITS = (
    "column {column!r} ({role}, {dtype}) holds {count} decimal value(s) of more than 15 "
    "significant digits, which a float cannot hold exactly (means and sums of squares are "
    "Float64); subtract an offset or round the values to 15 significant digits first"
)
BAD_MOMENTS = (
    "moment table column {column!r} holds {count} {problem} value(s): {values}"
)
ONE_SET_ONLY = (
    "{function} reports one attribute set (the intersection of by=), so combinations={value!r} "
    "is refused; {advice}"
)
#: The ``combinations=`` entry of a function that reports one attribute set (refused).
#: The parameter doc of ``membership=`` where an analysis refuses it (MEMBERSHIP_NOT_TAKEN).
MEMBERSHIP_REFUSED_DOC = """membership : None
    Not supported: the table counts each row in one group (``InvalidArgumentError``
    otherwise, saying why and what to run)."""
ONE_SET_DOC = """combinations : None
    Not supported: one attribute set per call (``InvalidArgumentError`` otherwise)."""
IMPOSSIBLE_MOMENTS = (
    "moment table holds {count} row(s) whose residual moments no set of values can have: "
    "{rule} fails (first such row: {example}); the sums must come from one set of rows"
)
IMPOSSIBLE_MOMENT_SIZE = (
    "moment table column {column!r} holds {count} row(s) that no set of values can have: "
    "{rule} (first values: {values})"
)
MOMENTS_RESIDUALS_PARTIAL = (
    "a moment table holds all of the residual columns {columns} or none; it lacks {missing}"
)
NOT_A_FRAME = (
    "expected a polars DataFrame or LazyFrame, a PySpark DataFrame or a DuckDB relation, got {type}"
)
BAD_REFERENCE_MAPPING = "reference mapping must name exactly the attributes {keys}, got {got}"
REFERENCE_NEEDS_KEYS = (
    "an explicit reference group needs by= attributes; use reference='overall'"
)
REFERENCE_NEEDS_MAPPING = (
    "with several attributes {keys} pass reference as a mapping {{attribute: value}}"
)
BAD_REFERENCE_RULE = (
    "reference={reference!r} is not a reference of this analysis; pass one of {rules}, a group "
    "value (one attribute) or a mapping {{attribute: value}}"
)
UNKNOWN_ARGUMENT = (
    "unexpected {what} argument(s) {names}{hint}; the {what} arguments are {valid}"
)
#: Appended to a misspelled name: the closest accepted names.
DID_YOU_MEAN = " (did you mean {names}?)"
#: ``{example}``: the set ``by=`` names when the table holds it, else its first set.
ROLLUP_OF_SETS = (
    "this table already holds the attribute sets {sets}, so by=/combinations= cannot roll it up "
    "again; run the analysis without them (it reports every set, named in its 'attributes' "
    "column) and keep the set you want, for example .filter(pl.col('attributes') == {example})"
)
#: The rule only, no advice (issue 20): what an aggregate, a filter or a window was meant to
#: compute is not known, so no replacement can be written that works as printed.
NOT_ROW_LEVEL = (
    "{role}={expr} is not a row-level expression: it {why}, and an argument must give one "
    "value per row, computed from that row"
)
FRAME_LENGTH = (
    "{role}={expr} gives {got} for a frame of {rows:,} rows: an expression argument is a column "
    "of the frame, as in lf.with_columns(...); pass an expression with one value per row (a "
    "pl.lit(Series) of the frame's length) or a single value"
)
NOT_A_FINITE_NUMBER = "{name} must be a finite number, got {value!r}"
OPTION_NOT_A_NUMBER = "{name} must be a number, got {value!r} ({type})"
OPTION_OUT_OF_RANGE = "{name} must lie in {interval}, got {value!r}"
REPEATED_SETS = "by= names the same attribute set more than once: {sets}"
KEY_SUFFIX_CLASH = (
    "attribute name(s) {names} read as another attribute's pair column (<key>_i / <key>_j); "
    "rename them, for example by=pl.col({example!r}).alias({example!r} + '_attr')"
)
SPARK_REFUSED = (
    "Spark refused the aggregation: {message}; every column argument must be row-level (one "
    "value per row, no aggregate such as F.max; a window such as F.max(c).over(Window."
    "partitionBy()) gives the frame-wide value): {role} is not"
)
BAD_THRESHOLD = "threshold must be a number, finite and not NaN, got {value!r}"
SCORE_NEEDS_THRESHOLD = "y_score= needs threshold= to turn scores into predictions"
#: The command line's :data:`SCORE_NEEDS_THRESHOLD`: without --y-pred it reads a column y_pred.
CLI_SCORE_NEEDS_THRESHOLD = (
    "--y-score needs --threshold to turn scores into predictions (the input has no column "
    "'y_pred' to read instead); pass --threshold with a cut-off, or --y-pred"
)
PRED_AND_SCORE = "pass either y_pred= or y_score= with threshold=, not both"
NO_THRESHOLDS = "thresholds must name at least one threshold"
DEFAULT_GRID_NOT_PROBABILITIES = (
    "{what}: thresholds= was not given, and its default grid {grid} is for probabilities, but the "
    "scores range from {low!r} to {high!r}, beyond the grid (a score above 1 is selected at every "
    "threshold of it, one below 0 at none). Pass thresholds= on the scores' own scale, for example "
    "{suggestion}"
)
CLI_RANGE_TOO_LONG = (
    "{flag} {text!r} expands to {size:,} values, more than {limit:,}; pass a coarser step, for "
    "example {flag} {example} ({count:,} values)"
)
TOO_MANY_THRESHOLDS = (
    "{what}: thresholds= holds {size:,} thresholds, more than max_thresholds={limit:,} (each "
    "threshold makes a report of every group); pass max_thresholds={size}, or a coarser grid of "
    "at most {limit:,} thresholds"
)
#: An iterator (a generator) of more items than an option's limit: its size is not known, so the
#: message says where reading stopped instead of advising a limit that may not be enough.
ITERATOR_TOO_LONG = (
    "{what} is an iterator of more than {limit:,} {unit}, the limit {option}={limit:,} (it was "
    "read no further); pass at most {limit:,} {unit}, or a list, whose size the message then "
    "states"
)
BAD_NULL_GROUPS = "null_groups must be 'keep', 'raise' or 'drop', got {value!r}{near}"
BAD_COMBINATIONS = "combinations must be 'all' or None, got {value!r}"
#: :data:`BAD_COMBINATIONS` on the command line: leaving the option out is its None.
CLI_BAD_COMBINATIONS = "combinations must be 'all' or left out, got {value!r}"
COMBINATIONS_FLAT = "combinations='all' takes a flat list of attributes in by="
MAX_ORDER_ALONE = "max_order= goes with combinations='all'"
THRESHOLD_NEEDS_SCORE = (
    "threshold= applies to y_score=, which is not given; pass y_score= with threshold=, or "
    "drop threshold= to use y_pred="
)
UNKNOWN_METRIC = "unknown metric {metric!r}; the metrics are: {valid}"
COLUMN_CLASH = (
    "attribute name(s) {names} clash with output column(s) of {analysis}; rename them, for "
    "example by=pl.col({example!r}).alias({example!r} + '_attr')"
)
WEIGHT_OVERFLOW = (
    "sample_weight column {column!r} sums to an infinite value in {count} group(s); weights "
    "must have a finite sum (rescale them)"
)
WEIGHT_TOTAL_OVERFLOW = (
    "sample_weight column {column!r} sums to an infinite value over all groups; weights must "
    "have a finite sum (rescale them)"
)
BAD_KEY_DTYPE = (
    "attribute {column!r} (by) has dtype {dtype}, which cannot define groups; pass a column of "
    "numbers, strings, categories, booleans or dates (from a list or struct column take one "
    "value first, for example pl.col({column!r}).list.first() or .struct.field(...))"
)
BAD_LABEL_DTYPE = (
    "column {column!r} ({role}) has dtype {dtype}; labels and predictions must be a boolean, "
    "numeric, string or categorical column"
)
BAD_POS_LABEL = "pos_label must be a value of the label's type, not null or NaN, got {value!r}"
BAD_INT_OPTION = "{name} must be an integer >= {low}, got {value!r}"
BAD_SEED = "seed must be an integer >= 0, a numpy Generator or None, got {value!r}"
#: :data:`BAD_SEED` on the command line, where only an integer can be typed.
CLI_BAD_SEED = "seed must be an integer >= 0, got {value!r}"
NOT_A_BOOL = "{name} must be True or False, got {value!r}"
TOO_MANY_GROUPS = (
    "{what} would hold {size:,} groups, more than max_groups={limit:,}; pass max_groups= a "
    "larger limit, or audit fewer attributes or categories"
)
#: ``{advice}``: :data:`TOO_MANY_SETS_ORDER` when a smaller max_order fits the limit (its sets,
#: and their groups were each attribute to hold 2 values: the fewest the sets can hold), else
#: :data:`TOO_MANY_SETS_GROUPS`.
TOO_MANY_SETS = (
    "combinations='all' over {attributes} attributes makes {sets:,} attribute sets, more than "
    "max_groups={limit:,}; {advice}"
)
TOO_MANY_SETS_ORDER = (
    "pass max_order={order} ({fewer:,} sets of at most {order} attributes, whose groups fit the "
    "limit when each attribute holds 2 values), or a larger max_groups= (at least {sets}: it "
    "bounds the sets, then the groups they hold)"
)
TOO_MANY_SETS_GROUPS = (
    "pass a larger max_groups= (at least {sets}: it bounds the sets, then the groups they hold)"
)
BEYOND_CEILING = (
    "{what}: {size:,} {unit}, more than {option}= can be raised to (its ceiling {ceiling:,}); "
    "{advice}"
)
#: The advice of :data:`BEYOND_CEILING`, each saying what to pass (the command line's beside
#: it where the Python advice does not read as flags). Too many attribute sets:
CEILING_ORDER = (
    "pass max_order={order} ({fewer:,} sets of at most {order} attributes, whose groups fit "
    "max_groups={limit:,} when each attribute holds 2 values)"
)
#: Too many candidate patterns of ``divergence`` from level 2: the levels below stayed under.
CEILING_PATTERNS_ORDER = "pass max_order={order} (the levels below stayed under the ceiling)"
#: ... at level 1: the attributes' values alone are too many; ``{example}`` one attribute less.
CEILING_PATTERNS_LEVEL_ONE = (
    "audit fewer attributes, for example by={example}, or bin the numeric ones with bins="
)
#: Too many thresholds given.
CEILING_THRESHOLDS = (
    "pass a coarser grid, for example thresholds=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]"
)
CLI_CEILING_THRESHOLDS = (
    "pass a coarser grid, for example --thresholds 0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9"
)
#: Too many ordered pairs of groups: ``{groups}`` the most groups whose pairs fit.
CEILING_PAIRS = (
    "compare each group with the reference instead, with report() or disparity() (one row per "
    "group), or audit by an attribute of at most {groups:,} groups"
)
CLI_CEILING_PAIRS = (
    "compare each group with the reference instead, with polars-fair report or polars-fair "
    "disparity and the same flags (one row per group), or audit by an attribute of at most "
    "{groups:,} groups"
)
#: Too many intersections of Enum categories: count only those observed (``{casts}`` each Enum
#: attribute cast to text, ``{flags}`` the same as ``--by`` SQL).
CEILING_ENUMS = (
    "count only the intersections observed: cast the Enum attributes to text first, for "
    "example by=[{casts}]"
)
CLI_CEILING_ENUMS = (
    "count only the intersections observed: read the Enum attributes as text, for example "
    "{flags}"
)
#: An option below the inverse of its limit (core.limits: sample_size's ratio).
OPTION_TOO_SMALL = (
    "{option}={size!r} is less than its limit 1/{limit:,} ({why}); pass {option}={least!r} or "
    "more"
)
#: An alpha or power whose normal quantile is not a finite number (sample_size).
QUANTILE_NOT_FINITE = (
    "{option}={value!r} is too close to {edge} to compute with: its normal quantile is not a "
    "finite number in double precision; pass {option}={advice!r}"
)
OPTION_TOO_LARGE = (
    "{option}={size:,} is more than its limit {limit:,} ({why}); pass a smaller {option}"
)
#: The proxy report's bound on the groups of membership= (core.limits: membership_groups).
MEMBERSHIP_GROUPS_TOO_MANY = (
    "membership: attribute {attribute!r} has {size:,} groups, more than the proxy report's "
    "limit membership_groups {limit:,} ({why}); merge rare groups into one (its probability "
    "column the sum of theirs), or use membership_estimator='weighted' or 'argmax' with "
    "report, metrics, disparity or summary (and the same membership=), whose sums grow only "
    "with the square of the groups"
)
WORK_TOO_LARGE = (
    "{what} = {size:,} is more than its limit {limit:,} ({why}); pass smaller values"
)
#: Reliability / calibration bins of every group (core.limits: bin_cells); the advice is
#: BIN_CELLS_ADVICE (an n_bins that fits) or BIN_CELLS_GROUPS (groups alone past the limit).
BIN_CELLS_TOO_MANY = (
    "n_bins x groups = {n_bins:,} x {groups:,} = {size:,} cells, more than the limit "
    "bin_cells {limit:,} ({why}); {advice}"
)
BIN_CELLS_ADVICE = "pass n_bins={n_bins} or fewer"
BIN_CELLS_GROUPS = "group by fewer attributes: at most {limit:,} groups"
SQL_WHY_TOO_LARGE = "{what} is {size:,}, more than its limit {limit:,}"
#: What sql_growth and sql_text measure (core.sql: every value a SQL text builds row by row).
SQL_WHAT_GROWTH = (
    "how many times its longest input cell one value can hold (columns joined by CONCAT, "
    "CONCAT_WS or ||, times the REPLACE growth)"
)
SQL_WHAT_TEXT = (
    "the characters the text itself puts in one value (string literals a value is built "
    "from, a CONCAT_WS separator once per argument, LPAD/RPAD lengths, STRFTIME formats, times "
    "the REPLACE growth)"
)
SQL_TOO_LARGE = (
    "{role}: {text!r} is refused before it is parsed: {why} (the size limits of SQL texts: "
    "polars_fair.core.limits.LIMITS; for many values write col IN ('a', 'b', ...))"
)
#: A chart whose rendered pixels exceed chart_pixels (audit.plot.check_render_size).
CHART_TOO_LARGE = (
    "{what}: the chart {name} would render {width:,} x {height:,} pixels{panels} at "
    "scale={scale} ({size:,} pixels), more than its limit chart_pixels {limit:,}; {advice}"
    "chart fewer groups (a smaller cell_size= for pairwise_heatmap)"
)
#: CHART_TOO_LARGE's advice for a PNG whose scale can shrink it enough.
CHART_SMALLER_SCALE = "pass scale={fit} (or smaller), or "
#: A SQL text whose values over every row exceed sql_bytes (core.sql.check_built_bytes).
SQL_BUILT_TOO_LARGE = (
    "{role}: {text!r} is refused before it runs: one of its values can hold {a:,} times the "
    "longest cell of {columns} ({cell:,} bytes) and {b:,} characters of its own, "
    "{size:,} bytes over the {rows:,} rows, more than its limit sql_bytes {limit:,}; repeat "
    "the columns fewer times (fewer CONCAT arguments, a shorter REPLACE replacement), or "
    "shorten the literals"
)
SQL_WHY_REPLACEMENT = (
    "{name}() replaces with {replacement}; the replacement must be a string literal written in "
    "the text (a column's value could be any length)"
)
SQL_WHY_PAD = (
    "{name}() pads to {length}; the length must be a number written in the text, at most "
    "{limit:,}"
)
TOO_MANY_PAIRS = (
    "pairwise over {groups:,} groups makes {pairs:,} ordered pairs, more than "
    "max_pairs={limit:,}; pass max_pairs={pairs}, or compare fewer groups"
)
#: ``{advice}``: :data:`TOO_MANY_PATTERNS_ORDER` from level 2 (the levels below were within the
#: limit, so max_order one below runs), else :data:`TOO_MANY_PATTERNS_LEVEL_ONE`.
TOO_MANY_PATTERNS = (
    "divergence: the search counts {patterns:,} candidate patterns by level {size}, more than "
    "max_patterns={limit:,}; {advice}"
)
TOO_MANY_PATTERNS_ORDER = (
    "pass max_order={order} (the levels below stayed within the limit), or max_patterns= a "
    "larger limit, or min_support= a larger share"
)
TOO_MANY_PATTERNS_LEVEL_ONE = (
    "audit fewer attributes, or pass max_order=1 with max_patterns= at least the number of "
    "values of the attributes taken one at a time (the patterns of level 1)"
)
BAD_ADJUST = "adjust must be one of {valid}, got {value!r}"
DIVERGENCE_METRIC = (
    "divergence: metric must be a proportion of the registry, one of {valid}; got {metric!r}"
)
DIVERGENCE_NO_KEYS = "divergence needs at least one attribute in by= to form patterns"
BAD_STRATEGY = "strategy must be 'auto', 'finest' or 'levels', got {value!r}"
#: ``{example}``: the rows with a missing attribute dropped in the frame's own engine
#: (:data:`LEVELS_DROP_EXAMPLES`, by the frame's kind).
LEVELS_DROP = (
    "divergence strategy='levels' counts each attribute set on its own, so null_groups='drop' "
    "would drop different rows per set; drop the missing rows first, for example {example}, "
    "or pass null_groups='keep' or 'raise'"
)
LEVELS_DROP_EXAMPLES = {
    "polars": "df.drop_nulls({names})",
    "duckdb": "rel.filter({condition!r})",
    "spark": "df.dropna(subset={names})",
    "cli": "--where {condition_word}",
}
DIVERGENCE_COMBINATIONS = (
    "divergence enumerates every combination itself; drop combinations= (max_order= bounds the "
    "number of attributes of a pattern)"
)
DIVERGENCE_OF_SETS = (
    "divergence reads one count table over every attribute; this table holds several attribute "
    "sets (combinations=): count it without them"
)
NOT_A_DIVERGENCE_TABLE = (
    "expected the output of divergence (attributes, the keys, n, ..., divergence); got columns "
    "{columns}"
)
BAD_BINS = "bins must be a mapping {{column: number of bins or edges}}, got {value!r} ({type})"
BAD_BIN_SPEC = (
    "bins[{column!r}] must be a number of quantile bins (an integer >= 2) or increasing finite "
    "edges, got {value!r}"
)
#: :data:`BAD_BIN_SPEC` of a value that is neither a number nor a list of edges: only its type
#: is shown (a frame or a Series could print a screenful of data).
BAD_BIN_TYPE = (
    "bins[{column!r}] must be a number of quantile bins (an integer >= 2) or increasing finite "
    "edges (a list, a tuple, a 1-D numpy array or a Polars Series), got a value of type {type}"
)
BIN_NOT_IN_BY = "bins names {column!r}, which is not an attribute of by={by}"
BIN_NOT_NUMERIC = "bins[{column!r}]: attribute {column!r} has dtype {dtype}, not a numeric one"
#: ``{example}``: the first binned column as SQL (for a number of bins the quantile bin of
#: ``bins=k`` from RANK and COUNT, ties in one bin; a CASE for edges) added in the frame's own
#: engine (:data:`BINS_NEED_POLARS_EXAMPLES`).
BINS_NEED_POLARS = (
    "bins= cuts a Polars frame; for a {type} bin the column in its own engine first, for "
    "example {example}, and pass {binned!r} in by= instead of {column!r}"
)
BINS_NEED_POLARS_EXAMPLES = {
    "duckdb": "rel = rel.select({select!r})",
    "spark": "df = df.selectExpr('*', {sql!r})",
}
#: No advice (issue 20): a count beyond Int64 is no count of rows; the table itself is wrong.
COUNT_TOO_LARGE = (
    "count table column {column!r} holds {count} value(s) above 9,223,372,036,854,775,807 (the "
    "largest 64-bit integer; the first: {example}), which no count of rows reaches"
)
COUNT_SUM_OVERFLOW = (
    "count table column {column!r} sums to {total:,} over its rows, more than a 64-bit integer "
    "holds (9,223,372,036,854,775,807)"
)
WEIGHTED_SUM_OVERFLOW = (
    "weighted count table column {column!r} sums to an infinite value over its rows; weighted "
    "sums must be finite (rescale the weights)"
)
TOO_LARGE_TO_PERMUTE = (
    "abroca_test: group {group!r} and the reference hold {rows:,} rows together; the "
    "randomization draws (numpy's hypergeometric sampler) take fewer than "
    "{limit:,} rows; test a random sample of the rows"
)
SQL_REFUSED = (
    "{role}: {text!r} is refused: {why}. It takes an expression over the input's own columns "
    "(operators, CASE, CAST and scalar functions); nothing outside the rows is read"
)
SQL_INVALID = "{role}: {text!r} is not a SQL expression Polars can parse: {detail}"
SQL_TYPES = "{role} {text!r} does not fit the columns' types: {detail}"
#: A date, date-time or time compared with a number (issue 20): the two rewrites run as written.
SQL_TEMPORAL_NUMBER = (
    "{role} {text!r} compares column {column!r} ({dtype}) with a number ({comparison}), which "
    "Polars would read as days or microseconds since 1970-01-01; use a {kind} literal, "
    "{with_literal}, or a part of the column, {with_part}"
)
SQL_ON_ROWS = "{role} {text!r} fails on the rows: {detail}"
SQL_NOT_CONDITION = "{role} {text!r} must be a condition (true or false per row), not {dtype}"
SQL_WHY_TABLE_WORD = "{word} starts a query or reads a table (no subquery, table, file or URL)"
SQL_WHY_FUNCTION = (
    "{name}() is not one of the accepted scalar functions (polars_fair.core.sql.FUNCTIONS; table "
    "functions are never accepted)"
)
#: :data:`SQL_WHY_FUNCTION` on the command line: where a command-line user finds the list.
CLI_SQL_WHY_FUNCTION = (
    "{name}() is not one of the accepted scalar functions (they are listed under \"SQL "
    "functions\" in the command line's documentation, docs/cli.md; table functions are never "
    "accepted)"
)
SQL_WHY_AGGREGATE = "aggregates rows or reads other rows ({name})"
SQL_WHY_QUALIFIED = "a qualified name ({name}) is not a column of the input"
SQL_WHY_COMMENT = "a comment (at offset {pos}) is not accepted"
SQL_WHY_UNCLOSED = "the string or quoted name at offset {pos} is not closed"
SQL_WHY_BACKSLASH = (
    "a backslash before a quote in the string at offset {pos} (SQL dialects read it "
    "differently); double the quote instead{example}"
)
#: :data:`SQL_WHY_BACKSLASH`'s example: the string as written with each ``\'`` doubled.
SQL_DOUBLED_QUOTE = ", as in {literal}"
SQL_WHY_CHARACTER = (
    "the character {char!r} at offset {pos} is not part of a row-level expression (no "
    "statement separators, parameters or comments)"
)
CLI_BAD_VALUE = "{name} {value!r} is not {kind}, as the column's dtype {dtype} needs"
CLI_BAD_SEPARATOR = "--separator must be one character (or \\t for a tab), got {value!r}"
CLI_SEPARATOR_NOT_CSV = "--separator applies to CSV input; {path} is not a CSV file"
CLI_BAD_DTYPE = "--dtype: unknown type {value!r}; the types are: {names}"
CLI_BAD_DTYPE_OPTION = "--dtype takes COLUMN=TYPE (for example --dtype {example}), got {value!r}"
CLI_DTYPE_TWICE = "--dtype names column {column!r} twice"
CLI_INPUT_IS_DIR = "{path} is a directory, not a data file"
CLI_OUTPUT_SUFFIX = (
    "--output {path}: cannot tell the format from the suffix; use one of {suffixes} (.txt for "
    "the text table) or pass --format"
)
CLI_FORMAT_CONTRADICTS = "--format {fmt} contradicts --output {path}, whose suffix means {other}"
CLI_HTML_SUFFIX = "--html {path}: the HTML audit is written to a .html file"
CLI_OUTPUT_IS_INPUT = "{flag} {path} is the input {input}: refusing to overwrite it"
CLI_OUTPUTS_CLASH = "--output and --html are the same file {path}: pass two different files"
CLI_OUTPUT_IS_DIR = "{flag} {path} is a directory; pass a file name, for example {flag} {example}"
CLI_OUTPUT_NO_DIR = "{flag} {path}: the directory {parent} does not exist"
CLI_SCORE_ADVICE = (
    "Pass a prediction instead, for example --y-pred \"{column} >= 0.5\" (a threshold of your "
    "choice), or the score itself as --y-score {column} with --threshold (report, metrics, "
    "...; report --html adds the score charts) or alone (bias-audit: the scoring rate)"
)
CLI_BAD_LIST = "{flag} takes {kind}, got {value!r}"
CLI_UNKNOWN_COLUMNS = (
    "--columns names {names}, not columns of the result; the columns are: {available}"
)
CLI_BAD_REFERENCE = (
    "--reference {value!r} is not attr=value,attr=value over the attributes {names} (a value in "
    "double quotes is read whole; a doubled \"\" is one quote)"
)
CLI_BAD_DATE = "--data-date takes YYYY-MM-DD or YYYY-MM-DD/YYYY-MM-DD, got {value!r}"
CLI_ONE_OUTCOME = "pass exactly one of --y-pred (a binary selection) or --y-score (a score)"
CLI_PAGE_OPTION = "{flag} applies to the HTML audit: pass --html FILE too"
CLI_CHANGE_LIMIT = "{flag} is a limit of the change gate, which needs --baseline-pred"
#: ``check --membership`` with a check whose table takes no membership probabilities.
CLI_CHECK_MEMBERSHIP = (
    "{flag} is not an option of check with --membership (its {table} takes no membership "
    "probabilities): run check --membership without {flag}, and {flag} on a crisp --by"
)
CLI_PAGE_TAKES_NOT = "{flag} is not an option of the HTML audit (polars_fair.audit.html.audit_html)"
CLI_PAGE_OF_TAKES_NOT = (
    "{flag} is not an option of the HTML audit of {command} (polars_fair.audit.html.{page}): "
    "the page audits one attribute set; run {command} without --html for that table"
)
CLI_MISSING_PARAMETER = "missing {kind} {name}"
CLI_BASELINE_TWICE = (
    "--baseline-pred and --baseline both given: --baseline is another spelling of "
    "--baseline-pred (the baseline model's prediction); give one of them"
)
CLI_BY_COMMA = (
    "{flag} takes one attribute (a column or a SQL expression), got {text!r}; repeat {flag} for "
    "several: {flags}"
)
CLI_BAD_PARAMETER = "{flag}: {message}"

PAGE_NO_RATES = "rates must name at least one metric, got {value!r}"
PAGE_BAD_DIVERGENCE = (
    "divergence must be True, False, None or a divergence table (a frame with the columns "
    "{needed}), got {value}"
)
PAGE_OUTPUT_SUFFIX = "output {path!r}: the audit page is HTML; give it a .html or .htm suffix"
PAGE_OUTPUT_NO_DIR = "output {path!r}: the directory {parent!r} does not exist"
PAGE_OUTPUT_IS_DIR = (
    "output {path!r} is a directory; pass a file name, for example output={example!r}"
)
PAGE_NOT_TEXT = "page must be the HTML text of an audit page (a str), got {value!r} ({type})"
PAGE_BAD_FILTERS = (
    "filters must be one filter (a str) or a sequence of them, got {value!r} ({type})"
)
PAGE_ROWS_READ = (
    "rows_read={value!r} is fewer than the {rows:,} rows of data: rows_read counts the input "
    "before filters, so it cannot be smaller than the rows audited"
)
CHART_METRIC_CLASH = (
    "divergence_chart: metric={metric!r} but the table's metric column is {named!r}"
)
PROVENANCE_ROWS = (
    "provenance rows do not add up: read {read!r} must be filtered {filtered!r} + audited "
    "{audited!r}, none negative"
)

# compare and monitor (issue 25)
BASELINE_IS_KEY = (
    "baseline {column!r} is also an attribute (by); the baseline prediction cannot be a group"
)
NEGATIVE_PAIRED_COUNT = "paired count table: column {column!r} holds negative counts {values}"
PAIRED_N_MISMATCH = (
    "paired count table: n must be the sum of the eight cells y*_p*_b*; rows with n {values} "
    "differ"
)
BASELINE_DTYPE = (
    "{role} column {column!r} is {dtype} while y_pred {pred!r} is {pred_dtype}: one "
    "pos_label={pos_label!r} decides both models' positives, so both predictions need the same "
    "dtype; cast the baseline to {pred_dtype} (in Polars pl.col({column!r}).cast(pl.{pred_dtype}), "
    "in SQL CAST({column} AS ...))"
)
CLI_BASELINE_DTYPE = (
    "--baseline-pred column {column!r} is {dtype} while --y-pred {pred!r} is {pred_dtype}: one "
    "--pos-label {pos_label!r} decides both models' positives, so both predictions need the "
    "same dtype; cast the baseline to the prediction's type in SQL, for example "
    "--baseline-pred \"CAST({column} AS INTEGER)\" for an integer --y-pred"
)
PAIRED_POSITIVE_ROWS = (
    "paired count table: a weighted table (weight_sum) needs n_positive_weight, the rows whose "
    "weight is above 0 (in SQL: SUM(CASE WHEN w > 0 THEN 1 ELSE 0 END)); the intervals count "
    "those rows, as a row of weight 0 is no observation"
)
POSITIVE_ROWS_RANGE = (
    "{table}: n_positive_weight must lie between 0 and n (rows of positive weight "
    "among the rows), and be above 0 where weight_sum is; rows with n_positive_weight {values} "
    "do not"
)
PAIRED_POSITIVE_RANGE = POSITIVE_ROWS_RANGE.replace("{table}", "paired count table")
POSITIVE_ROWS_ABOVE_ROWS = (
    "score table: n_positive_weight (rows of positive weight) must be at most n_rows (rows); "
    "rows with n_positive_weight {values} are not"
)
POSITIVE_ROWS_UNWEIGHTED = (
    "count table: n_positive_weight counts the rows of positive weight of a weighted table, "
    "but the table has no weight_sum; drop n_positive_weight, or add weight_sum and the "
    "weighted cells"
)
MONITOR_METRIC = "metric must be one of {allowed}; got {value!r}"
MONITOR_TIME_DTYPE = (
    "time column {column!r} must be a Date or Datetime column, got {dtype}; parse it first, "
    "for example pl.col({column!r}).str.to_date()"
)
#: :data:`MONITOR_TIME_DTYPE` on the command line: the column's type is set when it is read.
CLI_MONITOR_TIME_DTYPE = (
    "time column {column!r} must be a Date or Datetime column, got {dtype}; read it as one, for "
    "example --dtype {dtype_option}"
)
#: :data:`MONITOR_TIME_DTYPE` for an integer column: ``str.to_date`` fails on integers, so the
#: advice converts the two integer spellings of a time, each a ``time=`` that runs.
MONITOR_TIME_INTEGER = (
    "time column {column!r} must be a Date or Datetime column, got {dtype}; convert it in the "
    "call: a date written as an integer yyyymmdd (20240131) is "
    "time=pl.col({column!r}).cast(pl.String).str.to_date('%Y%m%d'), and seconds since "
    "1970-01-01 are time=pl.from_epoch({column!r})"
)
#: :data:`MONITOR_TIME_INTEGER` on the command line, where ``--time`` takes SQL.
CLI_MONITOR_TIME_INTEGER = (
    "time column {column!r} must be a Date or Datetime column, got {dtype}; convert it in SQL: "
    "a date written as an integer yyyymmdd (20240131) is --time {yyyymmdd}, and seconds since "
    "1970-01-01 are --time {epoch}"
)
#: :data:`MONITOR_TIME_DTYPE` for text that reads as yyyymmdd: ``str.to_date()`` needs the format.
MONITOR_TIME_YYYYMMDD = (
    "time column {column!r} must be a Date or Datetime column, got {dtype}; parse it first, "
    "for example pl.col({column!r}).str.to_date('%Y%m%d')"
)
#: :data:`MONITOR_TIME_YYYYMMDD` on the command line (``--dtype COLUMN=date`` reads ISO dates).
CLI_MONITOR_TIME_YYYYMMDD = (
    "time column {column!r} must be a Date or Datetime column, got {dtype}; parse it in SQL, "
    "for example --time {sql}"
)
#: :data:`MONITOR_TIME_DTYPE` on DuckDB or Spark: ``time`` is a column name there, so the
#: advice makes a date column in the engine.
MONITOR_TIME_ENGINE = (
    "time column {column!r} must be a Date or Datetime column, got {dtype}; make a date column "
    "in {engine} and pass its name, for example {ways}; then time={new!r}"
)
#: A ``time`` expression Polars cannot evaluate (``CAST(name AS DATE)``).
MONITOR_TIME_CAST = (
    "time: {reason}; parse text as a date with its format, for example "
    "time=pl.col({column!r}).str.to_date('%Y-%m-%d')"
)
#: :data:`MONITOR_TIME_CAST` on the command line.
CLI_MONITOR_TIME_CAST = (
    "--time: {reason}; parse text as a date with its format, for example --time {sql}"
)
#: Periods after the year 9999: an integer yyyymmdd read as days since 1970.
MONITOR_TIME_FAR = (
    "time: {count} row(s) fall after the year 9999, as an integer date written yyyymmdd does "
    "when it is read as days since 1970 (20240131 days is the year 57,387); convert it with its "
    "format, for example time=pl.col({column!r}).cast(pl.String).str.to_date('%Y%m%d')"
)
#: :data:`MONITOR_TIME_FAR` on the command line.
CLI_MONITOR_TIME_FAR = (
    "--time: {count} row(s) fall after the year 9999, as an integer date written yyyymmdd does "
    "when it is read as days since 1970 (CAST(d AS DATE) on 20240131 is the year 57,387); "
    "convert it with its format, for example --time {sql}"
)
#: :data:`MONITOR_TIME_DTYPE` for a column neither text nor integer (a float, a time of day).
MONITOR_TIME_OTHER = (
    "time column {column!r} must be a Date or Datetime column, got {dtype}, which holds no "
    "date; give the column of the decision's date or time"
)
MONITOR_EVERY = (
    "every={value!r} must be a Polars duration string of whole days, weeks, months, quarters "
    "or years, for example '1d', '1w', '2w', '1mo', '1q', '1y'"
)
MONITOR_WEIGHTS = (
    "monitor counts decisions: sample_weight is not supported (its e-values are likelihood "
    "ratios of counts, and weighted sums are no counts); drop sample_weight to monitor the "
    "decisions as made, one per row, or audit one period's weighted rows with "
    "df.fair.disparity (a fixed-level test, not valid when repeated after every period)"
)
#: A monitor's confidence sequence that emptied: the constant-gap assumption is contradicted.
MONITOR_CS_EMPTY = (
    "the confidence sequence for the {what} is empty for {count} group(s), first {group} from "
    "period {period}: no constant gap to the reference fits every period so far (the gap "
    "changed over time), so {bounds} are null there and {flag} true; the alarm still says the "
    "rates differed in some period, and a monitor over the periods since the change follows "
    "the new gap"
)
#: A monitor whose attribute holds one group in the data (a warning: the rates still hold).
MONITOR_ONE_GROUP = (
    "monitor: by={keys} holds one group in the data, so it has nothing to compare with a "
    "reference and every comparison (difference, sequences, alarms) is null; a monitor needs an "
    "attribute with two or more groups"
)
MONITOR_NO_GROUPS = (
    "monitor needs an attribute (by=...) with two or more groups: it compares each group with "
    "a reference group period by period, and got no attribute; pass by='race', say (for a "
    "period count table, its key columns)"
)
MONITOR_NO_REFERENCE = (
    "monitor compares each group with one reference group; reference={reference!r} names none "
    "(use 'largest', 'max_selection_rate' or a group value)"
)
MONITOR_NULL_TIME = (
    "column {column!r} (time) holds {count} null value(s); a decision without a time has no "
    "period: drop or fill those rows before monitoring"
)
MONITOR_NULL_PERIOD = (
    "period count table column 'period' holds {count} null value(s); every row needs its "
    "period's first day"
)
#: A ``baseline`` that is no column: its type only (a Series or list holds the data's values).
BASELINE_NOT_A_COLUMN = (
    "{role} must be a column name or a polars expression (a Column on Spark), got {type}; "
    "{advice}"
)
#: :data:`BASELINE_NOT_A_COLUMN`'s advice for values (a Series, a list, an array) given with a
#: Polars frame: an expression of one value per row (``pl.lit(Series)``, FRAME_LENGTH's rule).
BASELINE_VALUES_ADVICE = (
    "pass the values as a column of the frame, for example {role}=pl.lit(pl.Series(values)) "
    "where values is the {type} given (one value per row, in the frame's order)"
)
#: Without values to wrap (None, or a relation of another engine): the column to name.
BASELINE_NAME_ADVICE = (
    "name the column of the frame that holds the baseline model's predictions (add it to the "
    "frame first if it is not there)"
)
#: ``{advice}``: :data:`MONITOR_PERIOD_TEXT` for text (ISO dates read as they are), else
#: :data:`MONITOR_PERIOD_OTHER` (an integer period has no one reading as a date).
MONITOR_PERIOD_DTYPE = (
    "period count table column 'period' must be a Date or Datetime column (each period's "
    "first day), got {dtype}; a text or integer period would be ordered by its text or number, "
    "not by time: {advice}"
)
MONITOR_PERIOD_TEXT = (
    "cast it first, for example table.with_columns(pl.col('period').str.to_date())"
)
MONITOR_PERIOD_OTHER = "make it each period's first day, as a Date, first"
MONITOR_NOT_A_TABLE = (
    "{function} takes the count table as a polars DataFrame or LazyFrame; got a {type}: pass "
    "its .frame"
)
MONITOR_NEEDS_LABELS = "metric={metric!r} needs labels: pass y_true"
MONITOR_ALPHA = "alpha must lie strictly between 0 and 1; got {value!r}"

#: Estimated membership (:mod:`polars_fair.counting.membership`, issue 24). Messages name the
#: probability columns and count rows; they never show a probability.
#: The shape is shown as a shape ("in the shape"): its names are not the user's columns.
#: ``{advice}``: :data:`MEMBERSHIP_SHAPE_WRAP` for a flat mapping of groups to columns (the
#: attribute level left out), else "".
MEMBERSHIP_SHAPE = (
    "membership must map one attribute name to a mapping of group value -> probability column, "
    "in the shape {{'race': {{'White': 'p_white', 'Black': 'p_black'}}}}; got {value}{advice}"
)
MEMBERSHIP_SHAPE_WRAP = (
    "; name the attribute around the mapping given, for example membership={{'group': {given}}}"
)
MEMBERSHIP_ONE_ATTRIBUTE = (
    "membership takes one attribute per call, got {count}: {names}; audit each one in its own "
    "call (combine one with ordinary by= attributes instead)"
)
MEMBERSHIP_GROUPS = (
    "membership attribute {attribute!r} must list at least one group, with distinct non-null "
    "values; got {groups}"
)
#: A membership of one group: an audit compares groups (a typo on the CLI most often).
MEMBERSHIP_ONE_GROUP = (
    "membership[{attribute!r}] lists one group ({group!r}): an audit compares groups, so "
    "map every group to its probability column, in the shape "
    "{{{attribute!r}: {{{group!r}: 'p_1', 'other': 'p_2'}}}}"
)
#: MEMBERSHIP_ONE_GROUP as the command line says it.
CLI_MEMBERSHIP_ONE_GROUP = (
    "--membership lists one group for {attribute!r} ({group!r}): an audit compares groups; "
    "it takes A=G1:C1,G2:C2"
)
MEMBERSHIP_GROUP_TYPES = (
    "membership[{attribute!r}]: its group values must share one type (all strings or all "
    "numbers); got {groups}"
)
MEMBERSHIP_ESTIMATOR = (
    "membership_estimator must be 'weighted', 'argmax' or 'regression', got {value!r}"
)
MEMBERSHIP_NEEDS_MEMBERSHIP = (
    "{name}={value!r} applies to membership probabilities only: pass membership= too"
)
MEMBERSHIP_REGRESSION = (
    "membership_estimator='regression' gives per-group rates, not a count table: use "
    "df.fair.proxy_report(by, membership=...), which shows it beside 'weighted' and 'argmax'"
)
#: MEMBERSHIP_REGRESSION as the command line says it: the command to run, in CLI words.
CLI_MEMBERSHIP_REGRESSION = (
    "--membership-estimator regression gives per-group rates, not a count table: run "
    "polars-fair proxy-report with the same input, --membership and --by (and --y-true, "
    "--y-pred), which shows it beside weighted and argmax"
)
#: MEMBERSHIP_ONE_ATTRIBUTE as the command line says it.
CLI_MEMBERSHIP_ONE_ATTRIBUTE = (
    "--membership takes one attribute per command, got {count}: {names}; audit each one in "
    "its own command (combine one with ordinary --by attributes instead)"
)
#: --by naming the --membership attribute (no column): its groups are keys already.
CLI_BY_IS_MEMBERSHIP = (
    "--by {name} names the --membership attribute, which is no column of the input: its "
    "groups are audited without --by (crossed with the other --by attributes); leave --by "
    "{name} out"
)
#: strata= naming the membership attribute (no column; a row may be in several groups).
STRATA_IS_MEMBERSHIP = (
    "strata names the membership attribute {name!r}: a stratum is a column of the input, "
    "each row in one stratum, and estimated membership may count a row in several groups; "
    "the membership groups are compared within strata of columns"
)
#: report --html with a fractional --min-support (a support size of estimated membership).
CLI_HTML_MIN_SUPPORT = (
    "--min-support with --html is a number of rows (the page audits crisp --by groups): a "
    "whole number, got {value}"
)
#: report --html with --membership: the HTML audit counts crisp groups only; what to run.
CLI_HTML_MEMBERSHIP = (
    "--membership is not an option of the HTML audit (polars_fair.audit.html.audit_html, which "
    "audits crisp --by groups): run report --membership without --html (--format markdown, "
    "csv or json with --output FILE for a file), or proxy-report --membership for the three "
    "estimators side by side"
)
# the proxy report (analyses/proxy_report.py, counting/proxy_table.py)
PROXY_NEEDS_MEMBERSHIP = (
    "proxy_report needs membership={{attribute: {{group: probability column, ...}}}}; got "
    "{value!r}"
)
PROXY_REFERENCE_RULE = (
    "proxy_report compares groups with one of them: reference must be 'largest', "
    "'max_selection_rate' or a group, not {reference!r}"
)
#: A membership attribute named like a column of the input: its key would hide that column.
MEMBERSHIP_COLUMN_CLASH = (
    "membership attribute {attribute!r} is also a column of the input: the audit's "
    "{attribute!r} column would hold the estimated groups, not that column's values; name the "
    "attribute otherwise in membership=, for example "
    "membership={{{renamed!r}: membership[{attribute!r}]}}"
)
MEMBERSHIP_KEY_CLASH = (
    "membership attribute {attribute!r} is also a by= attribute or a reserved name; name it "
    "differently"
)
MEMBERSHIP_NOT_NUMERIC = (
    "membership probability column(s) of attribute {attribute!r} are not numeric: {columns}"
)
MEMBERSHIP_ENGINE = (
    "membership probabilities on {engine} must be column names, got {value!r}"
)
MEMBERSHIP_NOT_FINITE = (
    "membership probability columns of {attribute!r} hold NaN or infinite values in {count} "
    "row(s) ({columns}); probabilities must be finite numbers in [0, 1]"
)
MEMBERSHIP_RANGE = (
    "membership probability columns of {attribute!r} hold values outside {range} in {count} "
    "row(s) ({columns}){advice}"
)
#: MEMBERSHIP_RANGE's advice when normalize=True was not passed (with it, only negatives fail).
MEMBERSHIP_RANGE_ADVICE = (
    "; for non-negative values of another scale, pass normalize=True to divide each row by "
    "its sum"
)
MEMBERSHIP_SUM = (
    "{count} row(s) of the membership probabilities of {attribute!r} ({columns}) do not sum to 1 "
    "within {tolerance:g}; fix them, or pass normalize=True to divide each row by its sum"
)
MEMBERSHIP_ZERO_SUM = (
    "{count} row(s) of the membership probabilities of {attribute!r} ({columns}) sum to 0, so "
    "normalize=True cannot divide them by their sum"
)
MEMBERSHIP_NULLS = (
    "membership probability columns of {attribute!r} hold nulls in {count} row(s) ({columns}). "
    "Pass null_groups='keep' to audit those rows as the missing group, or null_groups='drop' to "
    "drop them with a warning"
)
DROPPED_NULL_MEMBERSHIP = (
    "dropped {count} row(s) whose membership probabilities of {attribute!r} hold a null "
    "({columns}) because null_groups='drop'; pass null_groups='keep' to audit them as the "
    "missing group"
)
#: A count command given neither --by nor --membership (--help says --by is optional with it):
#: the same words as any missing option.
CLI_BY_OR_MEMBERSHIP = "missing option --by"
#: A --membership that is a typo (a group holding ':' or ';', one group): refused at parse time.
CLI_MEMBERSHIP_TYPO = (
    "--membership {given!r}: {why}; it takes A=G1:C1,G2:C2 (attribute A, then two or more "
    "groups G, each with C, its probability column, separated by commas){advice}"
)
#: CLI_MEMBERSHIP_TYPO's guess: ';' or spaces between pairs read as ','.
CLI_MEMBERSHIP_GUESS = "; did you mean --membership {fixed}"
CLI_MEMBERSHIP_TWICE = (
    "--membership names {what} {name!r} twice ({given!r}); give each {what} once"
)
MEMBERSHIP_ROLLUP = (
    "a membership count table (with n_effective) rolls up only to by= keys that keep its "
    "membership attribute {attribute!r} (without it, the rows' own effective size is not in the "
    "table): keep it, for example by={example}, or count the rows again with the coarser by= "
    "and the same membership= instead"
)
#: combinations= with estimated membership (not implemented): what to do instead.
MEMBERSHIP_COMBINATIONS = (
    "combinations= is not implemented with membership= (the effective sizes of a membership "
    "table do not stack over attribute sets): count each attribute set in its own call with the "
    "same membership= instead, for example by={example}"
)
#: MEMBERSHIP_COMBINATIONS as the command line says it.
CLI_MEMBERSHIP_COMBINATIONS = (
    "--combinations is not implemented with --membership (the effective sizes of a membership "
    "table do not stack over attribute sets): run the command once per attribute set with the "
    "same --membership instead, for example {example}"
)
#: An analysis that does not take estimated membership (``membership=``): why, and what instead.
MEMBERSHIP_NOT_TAKEN = (
    "{analysis} does not take membership= (estimated group membership): {why}. Put each row "
    "in its most likely group first (a crisp column), or audit the probabilities with "
    "{analyses}"
)
#: The reasons of :data:`MEMBERSHIP_NOT_TAKEN`, by the table an analysis reads.
MEMBERSHIP_WHY_ROWS = (
    "its {table} counts each row in exactly one group, and a row with estimated membership may "
    "belong to several"
)
#: An analysis of count tables that reads their ``n`` as rows each in one group: the weighted
#: estimator's table (with n_effective) counts a row in every group it may belong to.
MEMBERSHIP_WEIGHTED_TABLE = (
    "{analysis} does not take a weighted membership count table (with n_effective): {why}, "
    "and that table's n counts a row in every group it may belong to. Count with "
    "membership_estimator='argmax' (each row in its most likely group: a crisp table), or "
    "audit the probabilities with report, metrics, disparity, summary or proxy_report"
)
#: MEMBERSHIP_WEIGHTED_TABLE as the command line says it.
CLI_MEMBERSHIP_WEIGHTED_TABLE = (
    "{analysis} does not take the weighted estimator's membership count table: {why}, and "
    "that table's n counts a row in every group it may belong to. Run it with "
    "--membership-estimator argmax (each row in its most likely group: a crisp table), or "
    "audit the probabilities with report, metrics, disparity, summary or proxy-report"
)
#: The ``why`` of MEMBERSHIP_WEIGHTED_TABLE for each analysis that refuses that table.
MEMBERSHIP_WHY_PATTERNS = (
    "its patterns sum the groups of the other attributes into coarser ones, and its tests "
    "count rows"
)
MEMBERSHIP_WHY_LL144 = (
    "LL 144's shares divide a category's rows by all rows, and each attribute alone is the sum "
    "of its intersections with the others"
)
MEMBERSHIP_WHY_AVAILABILITY = (
    "its test counts the rows of each value as draws from the benchmark, each row in one value"
)
#: The analyses that read estimated membership (named by MEMBERSHIP_NOT_TAKEN).
MEMBERSHIP_ANALYSES = "report, metrics, disparity, summary, impact_analysis or proxy_report"
#: Membership columns on a count table without weight_sum (``from_counts``).
MEMBERSHIP_UNWEIGHTED = (
    "count table: {columns} describe a weighted membership table (the weighted estimator's, "
    "with weight_sum = Σ w·p), but the table has no weight_sum; drop them, or add weight_sum "
    "and the weighted cells"
)
#: A membership count table from elsewhere with some of its columns only (``from_counts``).
MEMBERSHIP_INCOMPLETE = (
    "count table: a weighted membership table carries n_effective and attenuation together "
    "(and row_weight_sum, counted with sample weights, beside them), but {missing} is "
    "missing (the table has {present}); add {missing} as counted, or drop {present} to read "
    "the table as an ordinary weighted count table"
)
#: A membership count table from elsewhere that no rows can have (``from_counts``).
MEMBERSHIP_TABLE_BOUND = (
    "membership count table: {column} {rule}; {count} row(s) are not (first such row: "
    "{example})"
)
#: A membership count table from elsewhere that repeats a group (partial tables).
MEMBERSHIP_REPEATED = (
    "a membership count table (with n_effective) may not repeat a group: n_effective is not a "
    "sum, so partial tables cannot be added; count the rows once, with the by= you need"
)
# the calibration check of membership (analyses/membership_calibration.py)
KNOWN_OUTSIDE_GROUPS = (
    "known column {column!r} holds {count} row(s) whose value is not a declared group of "
    "{attribute!r} {groups}: values {values} with row counts {counts}; make it null where the "
    "group is unknown"
)
#: :data:`KNOWN_OUTSIDE_GROUPS` when the values outside the groups are many (text compared as
#: text, :data:`~polars_fair.counting.boundary.MIN_LEVELS_PER_ROW_CHECK` or more, or
#: :data:`~polars_fair.counting.boundary.MIN_LEVELS_ALL_SINGLE` or more of one row each): a column
#: of names or dates of birth given as ``known`` by mistake; counts only.
KNOWN_OUTSIDE_GROUPS_HIDDEN = (
    "known column {column!r} holds {count} row(s) whose value is not a declared group of "
    "{attribute!r} {groups}: {levels:,} distinct values (not shown: such a column can identify "
    "people); is it the right column? Make it null where the group is unknown"
)
KNOWN_GROUP_CLASH = (
    "membership group values of {attribute!r} must differ as text, since the known column "
    "{column!r} is compared with them as text; {values} coincide"
)
CALIBRATION_POLARS_ONLY = (
    "membership_calibration reads a polars DataFrame or LazyFrame (not yet a Spark DataFrame or "
    "a DuckDB relation), got {type}{advice}"
)
#: The input kinds CALIBRATION_POLARS_ONLY names (by the top module of the input's type): a
#: Spark DataFrame's type is named just ``DataFrame``, as a polars one is.
CALIBRATION_INPUTS = {
    "pyspark": "a Spark DataFrame (pyspark.sql.DataFrame)",
    "duckdb": "a DuckDB relation (DuckDBPyRelation)",
}
#: How CALIBRATION_POLARS_ONLY says to bring each kind's rows to Polars.
CALIBRATION_INPUT_ROWS = {
    "pyspark": "; collect its rows first: pl.from_arrow(spark_df.toArrow())",
    "duckdb": "; collect its rows first: relation.pl()",
}

# the adverse-impact analyses (polars_fair.analyses.impact, strata, availability)
BAD_PRACTICAL = "practical must be one of {valid}, got {value!r}"
NO_STRATA = (
    "stratified needs strata: one or more attribute names to stratify by (a list for several)"
)
STRATA_EXPRESSION = "strata takes attributes by name, not expressions ({value}): {advice}"
#: The advice of :data:`STRATA_EXPRESSION` for a bare column and for a computed expression.
STRATA_BY_NAME = "pass strata={name!r}"
STRATA_COMPUTED = (
    "add it as a column first, for example df.with_columns(stratum=...), and pass "
    "strata='stratum'"
)
NO_SETS = (
    "stratified compares the groups of one attribute set within strata; combinations= (several "
    "attribute sets) does not apply: name the groups in by and the strata in strata"
)
NO_GROUPS = (
    "stratified compares groups within strata, but every attribute counted ({keys}) is a "
    "stratum (strata={strata}): name the attributes to compare in by, apart from the strata"
)
STRATUM_IN_BY = (
    "{column!r} is both a group attribute (by) and a stratum (strata); name it in one of them"
)
REFERENCE_IS_STRATUM = (
    "reference names {column!r}, which is a stratum (strata), not a group attribute: the "
    "reference is a group of {groups}, compared with in every stratum; name it by {groups} only"
)
NO_BENCHMARK = (
    "availability needs benchmark={{attribute: {{value: share}}}}, the benchmark population's "
    "shares; got {value!r}"
)
BENCHMARK_SUM = (
    "benchmark[{column!r}]: the shares must sum to 1 (the whole benchmark population), they sum "
    "to {total}"
)
BENCHMARK_UNKNOWN = (
    "benchmark[{column!r}] names {values}, which no row has; the values of {column!r} are "
    "{groups} (make the attribute an Enum to audit a value that has no rows)"
)
BENCHMARK_MISSING = (
    "benchmark[{column!r}] has no share for {values}, which the rows have; give every value a "
    "share (0 for one that the benchmark population lacks)"
)
#: BENCHMARK_MISSING for the rows of no known value (a null attribute, or estimated membership
#: with null probabilities): a benchmark population has no share for "unknown", so they are
#: left out rather than given one.
BENCHMARK_MISSING_NULL = (
    "benchmark[{column!r}] has no share for the {rows:,} row(s) whose {column!r} is unknown "
    "(null), and a benchmark population has no share of unknown members; pass "
    "null_groups='drop' to leave those rows out (a warning counts them)"
)
BENCHMARK_NOT_IN_BY = (
    "benchmark names {column!r}, which is not among the attributes of by ({by}); add it to by, "
    "or leave by out to audit the benchmark's attributes"
)
#: :data:`BENCHMARK_NOT_IN_BY` as the command line prints it (``--by`` is required there).
CLI_BENCHMARK_NOT_IN_BY = (
    "--benchmark names {column!r}, which is not among the attributes of --by ({by}); add it "
    "to them: {flags}"
)
AVAILABILITY_SETS = (
    "availability compares each attribute of the benchmark with its shares on its own (several "
    "are read as attribute sets already); combinations= does not apply: leave it out"
)


class PolarsFairError(ValueError):
    """Base class of every error polars_fair raises for bad input.

    ``cli_message`` holds the message as the command line prints it, when its advice is code
    that differs there (flags and SQL instead of Python); ``None`` otherwise (the command line
    then turns parameter names into flags, :func:`polars_fair.cli.io.cli_message`).
    """

    def __init__(self, *args: Any, cli_message: str | None = None) -> None:
        super().__init__(*args)
        self.cli_message = cli_message


class ColumnNotFoundError(PolarsFairError, KeyError):
    """A column named in the call does not exist in the frame."""

    def __str__(self) -> str:
        """The message as given (``KeyError.__str__`` would quote it)."""
        return str(self.args[0]) if self.args else ""


class InvalidLabelError(PolarsFairError):
    """A label or prediction column is not binary in ``pos_label`` and one other value.

    ``label_kinds``: set on a text label with a numeric prediction (or the reverse) found from
    the schema, so that the layer that reads the rows can advise one of the column's values
    (:func:`label_kinds_error`).
    """

    label_kinds: dict[str, Any] | None = None
    #: set on :data:`POS_LABEL_DTYPE`: the column's argument, dtype and the ``pos_label`` given
    pos_dtype: dict[str, Any] | None = None


class NullValuesError(PolarsFairError):
    """A column that may not hold nulls holds some."""


class EmptyFrameError(PolarsFairError):
    """The frame (after filtering and dropping) has no rows."""


class UnknownGroupError(PolarsFairError):
    """A reference group that does not exist in the data."""


class NullGroupError(PolarsFairError):
    """An attribute column holds nulls and ``null_groups='raise'``."""


class TooManyLevelsError(PolarsFairError):
    """An attribute with too many levels, or too fine, to form groups (counted: ``fineness``).

    The message gives counts and the dtype, never a value (:func:`levels_error`).
    """


def cut_off(low: float | None, high: float | None, middle: float | None) -> str:
    """A cut-off for the SQL advice to bin a number: inside the column's range, never a value.

    ``0.5`` for a column within [0, 1] (a score, a share); ``30`` where it lies inside the
    range (an age); otherwise the middle value (the median) rounded to the fewest significant
    digits that keep it inside the range: a round number, not a value as written.

    Parameters
    ----------
    low, high, middle : float or None
        The column's least, greatest and middle (median) non-null values; ``None`` when
        unknown (``30`` then).

    Returns
    -------
    str
        The cut-off as SQL writes it.

    Examples
    --------
    >>> cut_off(0.0, 0.97, 0.41), cut_off(18.0, 96.0, 34.0), cut_off(1200.0, 98000.0, 41234.5)
    ('0.5', '30', '40000')
    """
    if low is None or high is None or middle is None:
        return "30"
    if low >= 0 and high <= 1:
        return "0.5"
    if low < 30 <= high:
        return "30"
    if middle == 0:
        return "0"
    first = -int(_math.floor(_math.log10(abs(middle))))
    for digits in range(first, first + 6):  # one significant digit, then more
        cut = round(middle, digits)
        if low < cut <= high:
            break
    return f"{cut:.{digits}f}" if digits > 0 else f"{cut:.0f}"


def levels_error(column: str, dtype: object, levels: int, rows: int, *, kind: str,
                 float_limit: int | None = None, why: str | None = None, way: str = "rows",
                 sql: str | None = None, cut: str = "30") -> TooManyLevelsError:
    """The error for an attribute refused for its number of levels: counts, never values.

    Parameters
    ----------
    column : str
        The attribute.
    dtype : polars.DataType
        Its dtype (shown by name).
    levels, rows : int
        Its distinct non-null values and the rows counted.
    kind : str
        A key of :data:`LEVELS_ADVICE`: ``"number"``, ``"date"``, ``"time"``, ``"duration"``
        or ``"text"`` (every other dtype).
    float_limit : int, optional
        Set when a float attribute has more than this many levels (:data:`WHY_FLOAT_LEVELS`).
    why : str, optional
        Otherwise, what made it too fine, counted
        (:attr:`polars_fair.counting.boundary.Fineness.why`: :data:`WHY_ALL_SINGLE`,
        :data:`WHY_FEW_ROWS` or :data:`WHY_SINGLES`).
    way : {"rows", "table", "relation"}, default "rows"
        How the data arrived, so the advice can be followed there: Polars rows (``by=`` an
        expression, :data:`LEVELS_ADVICE`), a count or score table made elsewhere
        (:data:`TABLE_LEVELS_ADVICE`) or a DuckDB/Spark relation
        (:data:`RELATION_LEVELS_ADVICE`).
    sql : str, optional
        The column as SQL names it in the advice
        (:func:`polars_fair.core.sql.sql_name`: ``"order"`` quoted); by default bare when an
        identifier, else double-quoted.
    cut : str, default "30"
        The cut-off of the SQL advice to bin a number (:func:`cut_off`): inside its range.

    Returns
    -------
    TooManyLevelsError
        With the Python advice in its message and the command line's in ``cli_message``.

    Examples
    --------
    >>> err = levels_error("name", "String", 7158, 7214, kind="text",
    ...                    why=WHY_FEW_ROWS.format(unit="value"))
    >>> print(err)  # doctest: +ELLIPSIS
    attribute 'name' is a String column with 7,158 distinct values in 7,214 rows: fewer than two ...
    >>> err.cli_message.split("; ")[-1][:24]
    'leave --by name out (a n'
    """
    if float_limit is not None:
        why = WHY_FLOAT_LEVELS.format(limit=float_limit)
    assert why is not None, "levels_error needs float_limit= or why="
    facts = {"column": column, "dtype": dtype, "levels": levels, "rows": rows, "why": why}
    if sql is None:
        sql = column if column.isidentifier() else '"' + column.replace('"', '""') + '"'
    if way != "rows":
        template = TABLE_LEVELS_ADVICE if way == "table" else RELATION_LEVELS_ADVICE
        text = TOO_MANY_LEVELS.format(**facts, advice=template.format(column=column, sql=sql,
                                                                       cut=cut))
        return TooManyLevelsError(text, cli_message=text)
    return TooManyLevelsError(
        TOO_MANY_LEVELS.format(**facts, advice=LEVELS_ADVICE[kind].format(column=column)),
        cli_message=TOO_MANY_LEVELS.format(**facts, advice=CLI_LEVELS_ADVICE[kind].format(
            sql=shell_escaped(sql), word=shell_word(column), cut=cut,
            bins=CLI_BINS_ADVICE.format(column=column))),
    )


def binned_levels_error(column: str, dtype: object, levels: int, rows: int, *,
                        why: str) -> TooManyLevelsError:
    """The error for an attribute binned by ``bins=`` into bins too fine to form groups.

    The bins' labels are text, but the attribute is a number: the message names the column's
    own dtype and advises fewer bins (half the bins, at most half the rows, at least 2), never
    leaving a text column out.

    Parameters
    ----------
    column : str
        The binned attribute.
    dtype : polars.DataType
        Its dtype before binning (shown by name).
    levels, rows : int
        Its non-empty bins and the rows counted.
    why : str
        What made the bins too fine, counted
        (:attr:`polars_fair.counting.boundary.Fineness.why`, with the unit ``bin``).

    Returns
    -------
    TooManyLevelsError
        :data:`BINNED_LEVELS`; the command line writes its advice as ``--bins COLUMN=N``
        (:func:`polars_fair.cli.io.cli_message`).

    Examples
    --------
    >>> print(binned_levels_error("x", "Float64", 8, 8,
    ...                           why=WHY_ALL_SINGLE.format(levels=8, unit="bin")))
    ... # doctest: +ELLIPSIS
    attribute 'x' is a Float64 column cut by bins= into 8 bins in 8 rows: each of the 8 bins ...
    """
    fewer = max(2, min(levels // 2, rows // 2))
    return TooManyLevelsError(BINNED_LEVELS.format(column=column, dtype=dtype, levels=levels,
                                                   rows=rows, why=why, fewer=fewer))


def intersection_error(columns: Sequence[str], levels: int, rows: int, *, why: str,
                       way: str = "rows") -> TooManyLevelsError:
    """The error for attributes whose intersection is too fine: names and counts, never values.

    Parameters
    ----------
    columns : sequence of str
        The attributes of the intersection.
    levels, rows : int
        Its groups (with no null attribute) and the rows counted.
    why : str
        What made the groups too fine, counted
        (:attr:`polars_fair.counting.boundary.Fineness.why`).
    way : {"rows", "table", "relation"}, default "rows"
        How the data arrived (the advice is the same: leave one attribute out).

    Returns
    -------
    TooManyLevelsError
        Advice to leave one attribute out, in flags in its ``cli_message``.

    Examples
    --------
    >>> err = intersection_error(["first", "age"], 6042, 7214,
    ...                          why=WHY_FEW_ROWS.format(unit="group"))
    >>> print(err)  # doctest: +ELLIPSIS
    attributes 'first', 'age' together form 6,042 groups in 7,214 rows: fewer than two rows ...
    >>> err.cli_message.split("; ")[-1]
    'leave one of --by first or --by age out, or map their values to a few categories first with a CASE expression'
    """  # noqa: E501
    facts = {"columns": ", ".join(repr(c) for c in columns), "levels": levels, "rows": rows,
             "why": why}
    flags = " or ".join(f"--by {shell_word(c)}" for c in columns)
    keys = "the keys" if way == "table" else "by="
    return TooManyLevelsError(
        FINE_INTERSECTION.format(**facts, advice=INTERSECTION_ADVICE.replace("by=", keys)),
        cli_message=FINE_INTERSECTION.format(**facts,
                                           advice=CLI_INTERSECTION_ADVICE.format(flags=flags)),
    )


def label_kinds_error(y_true: str, y_pred: str, true_dtype: object, pred_dtype: object, *,
                      text_role: str, values: Sequence[Any], pos_label: Any = None,
                      hidden: tuple[int, int, str] | None = None) -> InvalidLabelError:
    """The error for a text label with a Boolean or numeric prediction (or the reverse).

    No one ``pos_label`` can be both a string and a number or a Boolean: the advice turns the
    text column into a Boolean by comparing it with one of its own values (``pos_label`` when
    it is one of them, else the first in sorted order), so that, followed, the audit is not
    all false, with ``pos_label=True`` for a text label, or the numeric label's own
    ``pos_label`` (default 1) for a text prediction. The values of a column that may identify
    people (``hidden``) are not shown (:data:`KINDS_HIDDEN`).

    Parameters
    ----------
    y_true, y_pred : str
        The names of the label and of the prediction.
    true_dtype, pred_dtype : polars.DataType
        Their dtypes.
    text_role : {"y_true", "y_pred"}
        The one that holds text.
    values : sequence
        The distinct non-null values of the text column, sorted.
    pos_label : Any, optional
        The ``pos_label`` given, used as the example when it is one of ``values``.
    hidden : tuple of (int, int, str), optional
        The distinct values, the rows and why, when the text column's values may not be shown
        (:func:`polars_fair.counting.boundary.identifying`).

    Returns
    -------
    InvalidLabelError
        Python advice in the message, flags in its ``cli_message``.

    Examples
    --------
    >>> err = label_kinds_error("score_text", "is_recid", "String", "Int64",
    ...                         text_role="y_true", values=["High", "Low", "Medium"])
    >>> print(err.cli_message.split("; ", 1)[1])
    turn the label into a Boolean first, for example --y-true "score_text = 'High'" (its values: 'High' 'Low' 'Medium'; put the positive one in place of 'High') with --pos-label true
    """  # noqa: E501
    column = y_true if text_role == "y_true" else y_pred
    facts = {"y_true": y_true, "y_pred": y_pred, "true_dtype": true_dtype,
             "pred_dtype": pred_dtype}
    what = "label" if text_role == "y_true" else "prediction"
    # the Boolean side is positive when True; a numeric label keeps its own positive value
    pos: Any = True
    if text_role == "y_pred":
        pos = pos_label if isinstance(pos_label, (int, float)) else 1
    pos_cli = str(pos).lower() if isinstance(pos, bool) else str(pos)
    if not values:  # the schema alone: no value read (the counting layer reads them)
        return InvalidLabelError(LABEL_PREDICTION_KINDS.format(
            **facts, advice=KINDS_UNREAD.format(what=what, column=column, pos=pos)))
    if hidden is not None:
        levels, rows, why = hidden
        advice = KINDS_HIDDEN.format(what=what, column=column, levels=levels, rows=rows, why=why)
        return InvalidLabelError(
            LABEL_PREDICTION_KINDS.format(**facts, advice=advice),
            cli_message=CLI_LABEL_PREDICTION_KINDS.format(**facts, advice=advice))
    example = pos_label if pos_label in values else (values[0] if values else "")
    shown = KINDS_VALUES.format(values=show_values(values, limit=8))
    sql = column if column.isidentifier() else '"' + column.replace('"', '""') + '"'
    example_sql = "'" + str(example).replace("'", "''") + "'"
    cli_shown = CLI_KINDS_VALUES.format(values=cli_values(values, sql=True),
                                        example=shell_escaped(example_sql))
    return InvalidLabelError(
        LABEL_PREDICTION_KINDS.format(**facts, advice=KINDS_ADVICE.format(
            what=what, role=text_role, column=column, example=example, values=shown, pos=pos)),
        cli_message=CLI_LABEL_PREDICTION_KINDS.format(**facts, advice=CLI_KINDS_ADVICE.format(
            what=what, flag=text_role.replace("_", "-"), sql=shell_escaped(sql),
            example_sql=shell_escaped(example_sql), values=cli_shown, pos_cli=pos_cli)),
    )


def too_many_labels(column: str, pos_label: Any, values: Sequence[Any], *,
                    held: bool = False) -> InvalidLabelError:
    """The error for a label of more than two values, advising to compare it with one of them.

    Parameters
    ----------
    column : str
        The label's name.
    pos_label : Any
        The positive value asked for.
    values : sequence
        The label's values besides ``pos_label`` (shown, a few).
    held : bool, default False
        Whether the label holds ``pos_label``: then it is the example, else the first of
        ``values`` in sorted order.

    Returns
    -------
    InvalidLabelError
        Python advice in the message (:data:`TOO_MANY_LABELS`), flags in its ``cli_message``
        (:data:`CLI_TOO_MANY_LABELS`).

    Examples
    --------
    >>> err = too_many_labels("score_text", "1", ["High", "Low", "Medium"])
    >>> print(err.cli_message.split("; ")[-1])
    a label of more than two values is made binary first, for example --y-true "score_text = 'High'" with --pos-label true
    """  # noqa: E501
    ordered = sorted(values, key=lambda v: (str(type(v)), v))
    example = pos_label if held or not ordered else ordered[0]
    sql = column if column.isidentifier() else '"' + column.replace('"', '""') + '"'
    example_sql = ("'" + example.replace("'", "''") + "'" if isinstance(example, str)
                   else str(example).lower() if isinstance(example, bool) else str(example))
    facts = {"column": column, "role": "y_true", "pos_label": pos_label, "example": example}
    return InvalidLabelError(
        TOO_MANY_LABELS.format(**facts, values=show_values(list(values))),
        cli_message=CLI_TOO_MANY_LABELS.format(
            **facts, values=cli_classes(list(values), column, limit=5),
            sql=shell_escaped(sql), example_sql=shell_escaped(example_sql)))


#: Values read as the positive one of a two-valued label (:data:`POS_LABEL_NOT_HELD`'s example).
_POSITIVE_WORDS = frozenset({"1", "true", "yes", "y", "t", "positive", "pos", "selected",
                             "hired", "hire", "pass", "approved", "accept", "accepted", "granted",
                             "qualified", "good", "repaid", "success", ">50k"})


def pos_label_not_held(column: str, role: str, pos_label: Any,
                     values: Sequence[Any]) -> InvalidLabelError:
    """The error for a label of two values neither of which is ``pos_label``.

    Parameters
    ----------
    column : str
        The label's name.
    role : str
        ``"y_true"`` or ``"y_pred"``.
    pos_label : Any
        The positive value asked for.
    values : sequence
        The label's two values.

    Returns
    -------
    InvalidLabelError
        :data:`POS_LABEL_NOT_HELD`; its example is the value that reads as positive (``"yes"``,
        ``"hired"``, ``">50K"``, ...), else the last in sorted order; each value shown is cut
        to 40 characters, the example is whole.

    Examples
    --------
    >>> print(pos_label_not_held("hired", "y_true", 1, ["no", "yes"]))
    column 'hired' (y_true) holds two values, 'no' and 'yes', and neither is pos_label=1; pass the one that means the positive outcome (qualified, repaid) as pos_label, for example pos_label='yes'
    """  # noqa: E501
    ordered = sorted(values, key=lambda v: (str(type(v)), v))
    positive = [v for v in ordered if str(v).strip().lower() in _POSITIVE_WORDS]
    example = (positive or ordered)[-1]
    shown = " and ".join(show_values([v])[1:-1] for v in ordered)
    meaning = ("the positive outcome (qualified, repaid)" if role == "y_true"
               else "selected (the favourable decision)")
    return InvalidLabelError(POS_LABEL_NOT_HELD.format(
        column=column, role=role, values=shown, pos_label=pos_label, meaning=meaning,
        example=example))


def shell_escaped(text: str) -> str:
    r"""``text`` escaped for a double-quoted shell word (bash): ``\``, ``"``, ``$`` and backquote.

    Parameters
    ----------
    text : str
        Any text, such as a SQL identifier in double quotes.

    Returns
    -------
    str
        The text with a backslash before each character a double-quoted word would read.

    Examples
    --------
    >>> print(shell_escaped('"CAST(age AS DOUBLE)" < 30'))
    \"CAST(age AS DOUBLE)\" < 30
    """
    return _re.sub(r'([\\"$`])', r"\\\1", text)


def shell_word(text: str) -> str:
    """``text`` as one shell word: single-quoted unless letters and digits (``age``, ``age=5``).

    A quoted word is also left alone by the command line's flag names
    (:func:`polars_fair.cli.io.cli_message` rewrites ``y_score=`` outside quotes), so a column
    named like an argument stays a column.

    Parameters
    ----------
    text : str
        Any text.

    Returns
    -------
    str
        The word, in single quotes unless plain (a ``'`` inside written ``'"'"'``).

    Examples
    --------
    >>> shell_word("age"), shell_word("age=5"), shell_word("y_score=5")
    ('age', 'age=5', "'y_score=5'")
    """
    if _re.fullmatch(r"[A-Za-z0-9]+(?:=[0-9]+)?", text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


class InvalidWeightError(PolarsFairError):
    """Null, NaN or negative sample weights."""


class InvalidScoreError(PolarsFairError):
    """Null, NaN or infinite scores."""


class InvalidArgumentError(PolarsFairError):
    """An argument outside its accepted values."""


class NotRowLevelError(InvalidArgumentError):
    """An expression argument that does not give one value per row from that row.

    It aggregates, filters or reorders rows.
    """


class SQLRefusedError(InvalidArgumentError):
    """A SQL text that is not a row-level expression over the input's columns.

    It holds a subquery, a table function, a file or URL, an unknown function or a character
    outside an expression; refused before Polars parses it, so nothing is read.
    """


class InvalidInputError(PolarsFairError):
    """An input file whose rows cannot be read: a malformed row, a value its column cannot hold.

    Raised by the command line for the errors Polars reports while reading the file.
    """


class InvalidMembershipError(PolarsFairError):
    """Membership probabilities that are not numbers in [0, 1] summing to 1 on each row."""


class SizeLimitError(PolarsFairError):
    """An audit whose output or work would exceed a documented size limit.

    The message states the size and names the option that raises the limit (``max_groups``,
    ``max_pairs``, ``max_order``), or the option whose value is above its declared limit
    (:data:`polars_fair.core.limits.LIMITS`).
    """


def cli_values(values: Sequence[Any], *, sql: bool = False, limit: int = 8) -> str:
    """Values as the command line takes them: space-separated words, not a Python list.

    Each is one shell word (:func:`shell_word`), or with ``sql`` a SQL literal as it is
    written inside the double-quoted SQL of the advice (``'O''Brien'``); at most ``limit``
    of them, then how many more. Values are never cut: one cut short would not run.

    Parameters
    ----------
    values : sequence
        The values (few: the callers show them only when they may be shown).
    sql : bool, default False
        Write SQL literals (text quoted, numbers and Booleans bare).
    limit : int, default 8
        The most values written.

    Returns
    -------
    str

    Examples
    --------
    >>> print(cli_values(["High", "O'Brien", "a b"]))
    High 'O'"'"'Brien' 'a b'
    >>> print(cli_values(["High", "O'Brien"], sql=True))
    'High' 'O''Brien'
    >>> print(cli_values(list(range(10)), limit=3))
    0 1 2 (and 7 more)
    """
    def word(v: Any) -> str:
        text = v.isoformat() if isinstance(v, (_dt.date, _dt.time)) else \
            str(v).lower() if isinstance(v, bool) else str(v)
        if sql:
            return shell_escaped("'" + text.replace("'", "''") + "'") \
                if isinstance(v, (str, _dt.date, _dt.time)) else text
        return text if _re.fullmatch(r"[A-Za-z0-9._-]+", text) else \
            "'" + text.replace("'", "'\"'\"'") + "'"

    more = f" (and {len(values) - limit} more)" if len(values) > limit else ""
    return " ".join(word(v) for v in list(values)[:limit]) + more


def show_values(values: Iterable[Any], limit: int = 5, width: int = 40) -> str:
    """Render a short list of offending values for an error message.

    At most ``limit`` values, each ``repr`` cut to ``width`` characters, so a message never
    carries more than a few values (nor a long one) from the data.

    Parameters
    ----------
    values : iterable
        The values.
    limit : int, default 5
        How many to show; the rest are counted.
    width : int, default 40
        The longest ``repr`` shown; a longer one is cut and ends with ``...``.

    Returns
    -------
    str
        ``"[v1, v2, ...]"`` with each value's ``repr`` (a date or time: the ``repr`` of its
        ISO 8601 text), and ``", ... (k more)"`` past ``limit``.

    Examples
    --------
    >>> show_values(["a", 2, None]), show_values(range(5), limit=2)
    ("['a', 2, None]", '[0, 1, ... (3 more)]')
    >>> show_values(["x" * 50])
    "['xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...]"
    >>> import datetime
    >>> show_values([datetime.date(2024, 3, 30), datetime.datetime(2024, 3, 30, 13)])
    "['2024-03-30', '2024-03-30 13:00:00']"
    """
    vals = list(values)

    def cut(v: Any) -> str:  # a date or time as ISO 8601 text, as it is written on input
        text = repr(v.isoformat(sep=" ") if isinstance(v, _dt.datetime) else v.isoformat()
                    if isinstance(v, (_dt.date, _dt.time)) else v)
        return text if len(text) <= width else text[:width - 3] + "..."

    head = ", ".join(cut(v) for v in vals[:limit])
    more = f", ... ({len(vals) - limit} more)" if len(vals) > limit else ""
    return f"[{head}{more}]"


def missing_column(column: str, role: str, columns: Sequence[str]) -> str:
    """The message of a column not found, with the close column names ("did you mean").

    Parameters
    ----------
    column : str
        The name given.
    role : str
        The argument or flag that named it.
    columns : sequence of str
        The frame's columns.

    Returns
    -------
    str
        :data:`MISSING_COLUMN_NEAR` (which is :data:`MISSING_COLUMN` when nothing is close).

    Examples
    --------
    >>> missing_column("sxe", "--by", ["race", "sex"])
    "column 'sxe' (--by) not found (did you mean 'sex'?); the frame has columns: ['race', 'sex']"

    A comma-joined name whose parts are all columns, given to an argument that takes a list
    (:data:`LIST_ARGUMENTS`), gets :data:`COMMA_JOINED_COLUMNS`:

    >>> missing_column("race, sex", "by", ["race", "sex"])
    "column 'race, sex' (by) not found: it joins the columns 'race' and 'sex' with commas; pass a list, by=['race', 'sex']"
    """  # noqa: E501
    parts = [p.strip() for p in str(column).split(",")]
    if role in LIST_ARGUMENTS and len(parts) > 1 and all(p in columns for p in parts):
        return COMMA_JOINED_COLUMNS.format(
            column=column, role=role, parts=" and ".join(repr(p) for p in parts),
            advice=f"{LIST_ARGUMENTS[role]}={parts!r}")
    shown = [c for c in columns if not str(c).startswith("__pf_")]
    return MISSING_COLUMN_NEAR.format(column=column, role=role, available=show_columns(columns),
                                      near=closest([str(column)], [str(c) for c in shown],
                                                   cutoff=VALUE_CUTOFF))


#: How close a misspelled value must be to be suggested (difflib's ratio; its default): a
#: value (a column, a choice, a group) is often short, where one swapped letter weighs more.
VALUE_CUTOFF = 0.6


def closest(names: Iterable[str], valid: Iterable[str], *, quote: bool = True,
            cutoff: float = 0.8, flag: str | None = None) -> str:
    """:data:`DID_YOU_MEAN` for misspelled names, or ``""`` when nothing is close.

    Parameters
    ----------
    names : iterable of str
        The names given that are not accepted.
    valid : iterable of str
        The accepted names.
    quote : bool, default True
        Quote the names (a Python name, a column); ``False`` for a command-line word.
    cutoff : float, default 0.8
        The least similarity (difflib's ratio) of a suggestion: 0.8 for argument names,
        :data:`VALUE_CUTOFF` for values (``sxe`` for ``sex``, ``cvs`` for ``csv``).
    flag : str, optional
        A command-line flag: each suggestion is written as it is typed, ``--format csv``
        (unquoted).

    Returns
    -------
    str
        ``" (did you mean 'reference'?)"``, naming up to three close names in all.

    Examples
    --------
    >>> closest(["refrence"], ["reference", "min_support"])
    " (did you mean 'reference'?)"
    >>> closest(["zzz"], ["reference"])
    ''
    >>> closest(["cvs"], ["table", "csv"], flag="--format", cutoff=VALUE_CUTOFF)
    ' (did you mean --format csv?)'
    """
    import difflib

    options = list(dict.fromkeys(valid))
    near = list(dict.fromkeys(m for n in names
                              for m in difflib.get_close_matches(n, options, n=3,
                                                                 cutoff=cutoff)))
    shown = [f"{flag} {m}" if flag else repr(m) if quote else m for m in near[:3]]
    return DID_YOU_MEAN.format(names=" or ".join(shown)) if near else ""


#: The most classes advice lists: a list the user must copy is complete, or not given.
MAX_LISTED_CLASSES = 20
#: In place of a list of more than :data:`MAX_LISTED_CLASSES` classes: how to list them.
CLASSES_NOT_LISTED = (
    "[...] ({count} classes, not listed here: pass every distinct value of {column!r})"
)


def show_classes(values: Sequence[Any], column: str) -> str:
    """Classes to copy into ``classes=`` (or ``--classes``): all of them, never elided.

    Up to :data:`MAX_LISTED_CLASSES` values, each ``repr`` in full; beyond that none, with
    their count and which values they are (:data:`CLASSES_NOT_LISTED`), since a list with
    "..." in it cannot be typed as it is.

    Parameters
    ----------
    values : sequence
        The classes.
    column : str
        The column they come from (named in the way to list them).

    Returns
    -------
    str

    Examples
    --------
    >>> show_classes(["High", "Low", "Medium"], "risk")
    "['High', 'Low', 'Medium']"
    >>> show_classes(list(range(25)), "code")
    "[...] (25 classes, not listed here: pass every distinct value of 'code')"
    """
    if len(values) <= MAX_LISTED_CLASSES:
        return "[" + ", ".join(
            repr(v.isoformat(sep=" ") if isinstance(v, _dt.datetime) else v.isoformat()
                 if isinstance(v, (_dt.date, _dt.time)) else v) for v in values) + "]"
    return CLASSES_NOT_LISTED.format(count=len(values), column=column)


#: A word the shell passes as it is (commas included: ``--classes Low,High``); ``_`` is left
#: out so that no class reads as a parameter the command line would turn into a flag.
_SHELL_PLAIN = _re.compile(r"[A-Za-z0-9,.+@%/-]+")


def cli_item(value: Any) -> str:
    """A value as an item of a command-line list (``--classes``) reads it back.

    Booleans ``true``/``false``, dates and times in ISO 8601, other values as text; an item
    holding ``,``, ``=``, ``:`` or ``"`` in double quotes, a ``"`` doubled
    (:mod:`polars_fair.cli.quoting`).

    Parameters
    ----------
    value : Any
        One class.

    Returns
    -------
    str

    Examples
    --------
    >>> cli_item("High"), cli_item(True), cli_item("a,b"), cli_item(2.5)
    ('High', 'true', '"a,b"', '2.5')
    """
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, _dt.datetime):
        text = value.isoformat(sep=" ")
    elif isinstance(value, (_dt.date, _dt.time)):
        text = value.isoformat()
    else:
        text = str(value)
    return '"' + text.replace('"', '""') + '"' if _re.search(r'[,=:"]', text) else text


def cli_classes(values: Sequence[Any], column: str, *, limit: int | None = None,
                width: int = 40) -> str:
    """Classes as ``--classes`` takes them: one shell word, the items comma-separated.

    Parameters
    ----------
    values : sequence
        The classes.
    column : str
        The column they come from (named when they are too many to list).
    limit : int, optional
        ``None``: every class, to copy (past :data:`MAX_LISTED_CLASSES` none, counted, as
        :func:`show_classes`); a number: at most that many are shown, each cut to ``width``
        characters, the rest counted (as :func:`show_values`).
    width : int, default 40
        With ``limit``, the longest item shown.

    Returns
    -------
    str

    Examples
    --------
    >>> cli_classes(["Low", "High"], "risk")
    'Low,High'
    >>> print(cli_classes(["a,b", "c d"], "x"))
    '"a,b",c d'
    >>> cli_classes(list(range(7)), "code", limit=5)
    '0,1,2,3,4 ... (2 more)'
    """
    values = list(values)
    if limit is None and len(values) > MAX_LISTED_CLASSES:  # " ...": "classes= ..." is a flag
        return CLASSES_NOT_LISTED.format(count=len(values), column=column).replace("[...]",
                                                                                   " ...")
    shown = values if limit is None else values[:limit]
    items = [cli_item(v) for v in shown]
    if limit is not None:
        items = [t if len(t) <= width else t[:width - 3] + "..." for t in items]
    text = ",".join(items)
    word = text if _SHELL_PLAIN.fullmatch(text) else "'" + text.replace("'", "'\"'\"'") + "'"
    more = len(values) - len(shown)
    return word + (f" ... ({more} more)" if more > 0 else "")


def sql_name(column: str) -> str:
    """A column's name as SQL reads it: as it is when an identifier, else double-quoted.

    Parameters
    ----------
    column : str
        The name.

    Returns
    -------
    str

    Examples
    --------
    >>> sql_name("risk"), sql_name("risk score")
    ('risk', '"risk score"')
    """
    return column if column.isidentifier() else '"' + column.replace('"', '""') + '"'


class Classes:
    """Classes a class message lists, shown as each surface types them (:func:`class_error`).

    Parameters
    ----------
    values : sequence
        The classes.
    column : str, default ""
        The column they come from.
    every : bool, default False
        Every class, to copy into ``classes=`` (:func:`show_classes`, :func:`cli_classes`);
        otherwise a few are shown (:func:`show_values`, ``cli_classes(limit=5)``).

    Examples
    --------
    >>> c = Classes(["a", "b"])
    >>> c.python(), c.cli()
    ("['a', 'b']", 'a,b')
    """

    def __init__(self, values: Iterable[Any], column: str = "", every: bool = False) -> None:
        self.values, self.column, self.every = list(values), column, every

    def python(self) -> str:
        """As Python writes them (a list).

        Returns
        -------
        str
            :func:`show_classes` of every class, else :func:`show_values` of a few.

        Examples
        --------
        >>> Classes(range(7)).python()
        '[0, 1, 2, 3, 4, ... (2 more)]'
        """
        return (show_classes(self.values, self.column) if self.every
                else show_values(self.values))

    def cli(self) -> str:
        """As ``--classes`` takes them.

        Returns
        -------
        str
            :func:`cli_classes` of every class, else of five.

        Examples
        --------
        >>> print(Classes(["a,b", "c"], every=True).cli())
        '"a,b",c'
        """
        return cli_classes(self.values, self.column, limit=None if self.every else 5)


_E = TypeVar("_E", bound="PolarsFairError")


def class_error(kind: type[_E], template: str, cli_template: str | None = None, /,
                **facts: Any) -> _E:
    """An error of a class message, its lists of classes written for each surface.

    Each fact given as :class:`Classes` is a Python list in the message and a ``--classes``
    word in its ``cli_message`` (the command line's flags then replace the parameter names:
    :func:`polars_fair.cli.io.cli_message`).

    Parameters
    ----------
    kind : type
        The error type.
    template : str
        The message.
    cli_template : str, optional
        The command line's message (default: ``template``).
    **facts
        The template's fields.

    Returns
    -------
    PolarsFairError

    Examples
    --------
    >>> err = class_error(InvalidLabelError, ONE_CLASS, column="p", role="y_pred",
    ...                   values=Classes(["x"]))
    >>> str(err).split(";")[0], err.cli_message.split(";")[0]
    ("column 'p' (y_pred) holds one class only (['x'])", "column 'p' (y_pred) holds one class only (x)")
    """  # noqa: E501
    python = {k: v.python() if isinstance(v, Classes) else v for k, v in facts.items()}
    cli = {k: v.cli() if isinstance(v, Classes) else v for k, v in facts.items()}
    return kind(template.format(**python),
                cli_message=(cli_template or template).format(**cli))


def show_columns(columns: Sequence[str]) -> str:
    """Render the available columns of a frame, without the internal ``__pf_`` columns.

    A working column of polars_fair (named with the reserved prefix ``__pf_``) is never one
    the user can name, so no "not found" message lists it, whatever the flag or argument.

    Parameters
    ----------
    columns : sequence of str
        The column names.

    Returns
    -------
    str
        :func:`show_values` of up to 60 names, internal ones left out.

    Examples
    --------
    >>> show_columns(["race", "__pf_argmax", "y_true"])
    "['race', 'y_true']"
    """
    return show_values([c for c in columns if not str(c).startswith("__pf_")], limit=60)


_CONVERSION = _re.compile(
    r"conversion from `(?P<source>[^`]*)` to `(?P<target>[^`]*)` failed in column "
    r"'(?P<column>[^']*)' for (?P<n>[\d,]+) out of (?P<m>[\d,]+) values?")
_PARSE = _re.compile(
    r"could not parse `.*` as dtype `(?P<target>[^`]*)` at column '(?P<column>[^']*)'",
    _re.DOTALL)
#: ``str.to_integer`` and ``str.json_decode``: Polars quotes the values too, and names the
#: column only in the expression it prints (``col("name")``).
_STRICT = _re.compile(r"strict (?P<target>\w+) parsing failed for (?P<n>[\d,]+) value\(s\)")
_JSON = _re.compile(r"error deserializing JSON")
#: a cast Polars does not do at all (text to a date: ``pl.col("d").cast(pl.Date)``), and the
#: function it names instead
_UNSUPPORTED = _re.compile(
    r"casting from (?P<source>\w+) to (?P<target>\w+) (?:is )?not supported")
_UNMAPPED = _re.compile(r"incomplete mapping specified for `replace_strict`")
#: Polars' names of the text dtype, as the messages write it
_TEXT_DTYPES = {"utf8view": "string", "utf8": "string", "largeutf8": "string", "str": "string"}
_INSTEAD = _re.compile(r"Use `(?P<use>[^`]+)` instead")
_sql_instead = {
    "date": "; write DATE({x}, '%Y-%m-%d') with the format of the text instead",
    "datetime": "; write STRPTIME({x}, '%Y-%m-%d %H:%M:%S') with the format of the text "
                "instead",
    "time": "; write STRPTIME({x}, '%H:%M:%S') with the format of the text instead",
}
_COLUMN = _re.compile(r'col\("(?P<column>[^"]*)"\)')


def renamed(name: str, taken: Collection[str] = ()) -> str:
    """A name that advice can propose for a key that cannot keep its own.

    The reserved prefix ``__pf_`` is dropped (every time it leads), since a name that keeps it
    is refused again; ``_attr`` is appended to a name that is refused as it is (an output
    column, one of ``taken``) or that the prefix alone made (then ``key_attr``).

    Parameters
    ----------
    name : str
        The refused name.
    taken : collection of str, optional
        Names the new one may not be (the output columns of the analysis).

    Returns
    -------
    str
        A name without the reserved prefix, outside ``taken``.

    Examples
    --------
    >>> renamed("__pf_x"), renamed("__pf___pf_n", taken={"n"}), renamed("metric", {"metric"})
    ('x', 'n_attr', 'metric_attr')
    >>> renamed("__pf_")
    'key_attr'
    """
    stem = name
    while stem.startswith("__pf_"):
        stem = stem[len("__pf_"):]
    if not stem:
        return "key_attr"
    return stem + "_attr" if stem == name or stem in taken else stem


def conversion_parts(message: str) -> tuple[str, str, str] | None:
    """The column, source and target dtypes of Polars' "conversion from ... failed" message.

    Parameters
    ----------
    message : str
        The text of a Polars error.

    Returns
    -------
    (str, str, str) or None
        ``(column, source, target)`` as Polars writes them (``"str"``, ``"i64"``), or ``None``.

    Examples
    --------
    >>> conversion_parts("conversion from `str` to `i64` failed in column 'y' for 1 out of 3 "
    ...                  "values: [...]")
    ('y', 'str', 'i64')
    """
    m = _CONVERSION.search(message)
    return None if m is None else (m["column"], m["source"], m["target"])


def conversion_failure(message: str, role: str,
                       counted: tuple[int, int] | None = None, *, sql: bool = False,
                       column: str | None = None) -> str | None:
    """The value-free message of a Polars conversion failure, or ``None`` for another error.

    Polars quotes the values it could not convert (``could not parse `Jane Doe` as dtype
    `i64```, ``... for 3 out of 3 values: ["Jane Doe", ...]``), which may be names or dates of
    birth; this keeps the column, the count and the dtypes and drops every value.

    Parameters
    ----------
    message : str
        The text of a Polars error.
    role : str
        The option or argument whose expression or type failed (``--dtype``, ``y_pred``).
    counted : (int, int), optional
        The failing rows and all rows, counted over the whole frame
        (:func:`polars_fair.counting.conversions.failed_rows`): Polars counts one chunk, or
        none at all (``str.to_integer``, ``str.json_decode``, ``replace_strict``).
    sql : bool, default False
        The expression came from a SQL option of the command line: a cast Polars never makes
        is advised in SQL (``DATE(d, '%Y-%m-%d')``), not with Polars' method.
    column : str, optional
        The column (or the output name of the expression) the conversion read, when known;
        else the one Polars' message names.

    Returns
    -------
    str or None
        :data:`CONVERSION_FAILED` filled in (:data:`CAST_UNSUPPORTED` for a cast Polars never
        makes, :data:`REPLACE_UNMAPPED` for values outside a ``replace_strict`` mapping), or
        ``None`` when ``message`` is not a conversion or parse failure.

    Examples
    --------
    >>> conversion_failure("conversion from `str` to `i32` failed in column 'name' for 2 "
    ...                    'out of 2 values: ["Jane Doe", "John Roe"]', "y_pred")
    "y_pred: 2 of 2 values of column 'name' could not be converted from str to i32 (the values \
are not shown: they may identify people)"
    >>> print(conversion_failure('strict integer parsing failed for 2 value(s): ["Jane Doe", '
    ...                          '"John Roe"] ... col("name").str.to_integer()', "by"))
    by: at least 2 value(s) of column 'name' could not be converted from text to integer (the \
values are not shown: they may identify people)
    >>> print(conversion_failure("casting from string to date is not supported. It was "
    ...                          "removed in Polars 2.0. Use `str.to_date()` instead. ... "
    ...                          'col("d").strict_cast(Date)', "by"))
    by: column 'd' cannot be cast from string to date: Polars does not cast string to \
date; use .str.to_date() instead
    >>> print(conversion_failure('incomplete mapping specified for `replace_strict` ... '
    ...                          'col("s").replace_strict([["1"], [1]])', "y_pred", (4, 12)))
    y_pred: 4 of 12 values of column 's' are not in the mapping of replace_strict, which has \
no default= (the values are not shown: they may identify people)
    >>> conversion_failure("something else", "y_pred") is None
    True
    """
    total = None if counted is None else f"{counted[0]:,} of {counted[1]:,} values"
    printed = c["column"] if (c := _COLUMN.search(message)) is not None else "?"
    if (m := _CONVERSION.search(message)) is not None:
        return CONVERSION_FAILED.format(role=role, count=total or f"{m['n']} of {m['m']} values",
                                        column=column or m["column"], source=m["source"],
                                        target=m["target"])
    if (m := _PARSE.search(message)) is not None:
        return CONVERSION_FAILED.format(role=role, count=total or "a value",
                                        column=column or m["column"], source="text",
                                        target=m["target"])
    if (m := _UNSUPPORTED.search(message)) is not None:
        return _cast_unsupported(message, m, role, total, column or printed, sql)
    if _UNMAPPED.search(message) is not None:
        return REPLACE_UNMAPPED.format(role=role, count=total or "some values",
                                       column=column or printed)
    strict, json = _STRICT.search(message), _JSON.search(message)
    if strict is not None or json is not None:
        count = total or (f"at least {strict['n']} value(s)" if strict else "a value")
        return CONVERSION_FAILED.format(role=role, count=count, column=column or printed,
                                        source="text",
                                        target=strict["target"] if strict else "JSON")
    return None


def _cast_unsupported(message: str, m: _re.Match[str], role: str, total: str | None,
                      column: str, sql: bool) -> str:
    """:data:`CAST_UNSUPPORTED` for a cast Polars never makes, with the advice of the surface."""
    source = _TEXT_DTYPES.get(m["source"].lower(), m["source"].lower())
    target = m["target"].lower()
    use = _INSTEAD.search(message)
    instead = f"; use .{use['use'].removeprefix('.')} instead" if use is not None else ""
    if sql:  # the command line's words
        instead = _sql_instead.get(target, "").format(x=column)
    if source == "string" and target == "boolean":  # the column quoted: any name reads
        quoted = '"' + column.replace('"', '""') + '"'
        instead = BOOLEAN_FROM_TEXT.format(
            expr=f"{quoted} = 'true'" if sql else f"pl.col({column!r}) == 'true'")
    return CAST_UNSUPPORTED.format(role=role, count=f"{total} of " if total else "",
                                   column=column, source=source, target=target, instead=instead)

