"""SQL expressions over a frame's own rows, refused before Polars parses them if they reach further.

``pl.sql_expr`` runs a subquery while it parses: ``race IN (SELECT x FROM read_csv('/etc/x'))``
reads the file (and shows its first line in the error), and a URL in its place is fetched.
Every SQL text polars_fair accepts (the command line's ``--by``, ``--y-true``, ``--y-pred``,
``--y-score``, ``--where``; the ``where=`` text of :func:`polars_fair.audit.html.audit_html`) goes
through :func:`check_sql` first, which reads the text alone, token by token:

- string literals (``'...'``, a doubled ``''`` inside) and quoted names (``"..."``) are read
  whole; a quoted name must be a column of the input; a backslash before a quote inside a
  string is refused (SQL dialects disagree on whether it escapes the quote);
- every bare word is a column of the input, a keyword of a row-level expression
  (:data:`KEYWORDS`: ``AND``, ``CASE``, ``IN``, ``BETWEEN``, ``CAST ... AS``, ...), a type
  name (:data:`TYPES`), or a function in :data:`FUNCTIONS` followed by ``(``;
- a word that starts a query or reads a table (:data:`TABLE_WORDS`: ``SELECT``, ``FROM``,
  ``WITH``, ``JOIN``, ``UNION``, ...) is refused, even where a column has its name (quote such
  a column: ``"order"``), and so is every other function (table
  functions such as ``read_csv`` are not in :data:`FUNCTIONS`), a qualified name (``t.x``),
  a comment, a parameter (``$1``, ``?``) and a statement separator (``;``);
- an aggregate or window function (:data:`AGGREGATES`, ``OVER``) is refused as not row-level;
- ``DATE(x)`` or ``TIMESTAMP(x)`` without a format is refused as not row-level wherever it
  stands (at the top, inside ``CASE``, inside another function's arguments): Polars guesses
  the format from the column's values, so one row's value depends on the others
  (:func:`date_refusal`, with the SQL that works instead);
- a text larger than its declared limits (:data:`polars_fair.core.limits.LIMITS`) is refused
  with ``SizeLimitError`` before it is parsed: its length (``sql_length``), its operators and
  ``AND``/``OR``/``NOT``/``XOR`` (``sql_operators``: Polars' parser and planner recurse on each,
  and a few thousand end the process; write ``g IN ('a', 'b', ...)`` rather than a chain of
  ``OR``), its nesting of parentheses (``sql_depth``), the padded length of ``LPAD`` and
  ``RPAD`` (``sql_pad``: a number written in the text, so ``LPAD(g, 100000000, 'x')`` does not
  build 100 MB per row), the number of ``REPLACE``/``REGEXP_REPLACE`` calls (``sql_replace``)
  and how many times longer they can make a cell (``sql_growth``: nested calls multiply a
  cell's length, so ``REPLACE(REPLACE(g, '', '<20,000 x>'), 'x', '<20,000 x>')`` is refused
  before it asks for gigabytes); their replacement must be a string literal; and every value
  the text builds row by row (:class:`_Built`): how many times its longest input cell it can
  hold (``sql_growth``: ``CONCAT_WS(',', g, g, ...)`` of 19,000 arguments) and how many
  characters of the text's own it can hold (``sql_text``: string literals, ``CONCAT_WS``
  separators, pad lengths, ``STRFTIME`` formats), so ``CONCAT(g, '<99,000 x>')`` does not
  build 99 kB per row. Those bounds are relative to a cell; the bytes a text builds over every
  row are bounded absolutely by :func:`check_built_bytes` (``sql_bytes``), which the command
  line and ``audit_html(where=)`` call with the input: one cheap query measures the rows and
  the longest cell of the columns a growing text reads.

Only then does :func:`sql_expr` call ``pl.sql_expr``, whose result is checked once more with
:func:`polars_fair.core.spec.check_row_level`. Nothing is read before the text passes: no file, no
URL, no table. The refusal is the same whether a named file exists or not, so an error says
nothing about the file system.

Why one module: every check of a SQL text reads the same tokens (:func:`tokenize`), and the
text reaches Polars only through :func:`sql_expr` after all of them (the reach of the text, its
size, a date compared with a number), so one reader sees every rule a SQL option meets.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair.core.limits import LIMITS

__all__ = [
    "AGGREGATES",
    "FUNCTIONS",
    "KEYWORDS",
    "TABLE_WORDS",
    "TYPES",
    "Token",
    "SCALAR_CHARS",
    "UNMEASURED_TEXT",
    "check_built_bytes",
    "check_size",
    "check_sql",
    "check_temporal_numbers",
    "sql_expr",
    "sql_name",
    "tokenize",
]

#: Words of a row-level expression besides columns and functions.
KEYWORDS = frozenset("""
AND OR NOT XOR IN IS NULL TRUE FALSE BETWEEN SYMMETRIC LIKE ILIKE RLIKE REGEXP SIMILAR TO
ESCAPE CASE WHEN THEN ELSE END AS CAST TRY_CAST INTERVAL DISTINCT UNKNOWN
""".split())

#: Type names (``CAST(x AS DECIMAL(10, 2))``, ``x::int``, ``DATE '2020-01-01'``).
TYPES = frozenset("""
INT INTEGER BIGINT SMALLINT TINYINT INT2 INT4 INT8 INT16 INT32 INT64 UINT8 UINT16 UINT32 UINT64
UNSIGNED SIGNED FLOAT FLOAT4 FLOAT8 FLOAT32 FLOAT64 DOUBLE PRECISION REAL DECIMAL NUMERIC DEC
VARCHAR CHAR CHARACTER VARYING TEXT STRING BOOL BOOLEAN DATE TIME TIMESTAMP DATETIME BYTEA BLOB
BINARY VARBINARY
""".split())

#: The scalar functions accepted (one value per row, from that row).
FUNCTIONS = frozenset("""
ABS CEIL CEILING FLOOR ROUND TRUNC TRUNCATE SIGN SQRT CBRT EXP LN LOG LOG2 LOG10 LOG1P POW POWER
MOD PI DEGREES RADIANS SIN COS TAN COT ASIN ACOS ATAN ATAN2 SIND COSD TAND ASIND ACOSD ATAND
ATAN2D GREATEST LEAST COALESCE NULLIF IFNULL IF LOWER UPPER LENGTH CHAR_LENGTH CHARACTER_LENGTH
OCTET_LENGTH BIT_LENGTH CONCAT CONCAT_WS LEFT RIGHT LTRIM RTRIM TRIM SUBSTR SUBSTRING REPLACE
REVERSE STARTS_WITH ENDS_WITH STRPOS REGEXP_LIKE REGEXP_REPLACE INITCAP LPAD RPAD SPLIT_PART
NORMALIZE DATE TIMESTAMP STRFTIME STRPTIME DATE_PART DATE_TRUNC CAST TRY_CAST
""".split())

#: Aggregate and window functions: refused, they spread one value over rows (not row-level).
AGGREGATES = frozenset("""
MAX MIN SUM AVG MEAN COUNT MEDIAN MODE STDDEV STDDEV_SAMP STDDEV_POP STDEV VARIANCE VAR
VAR_SAMP VAR_POP FIRST LAST FIRST_VALUE LAST_VALUE NTH_VALUE ARRAY_AGG STRING_AGG LISTAGG
GROUP_CONCAT ROW_NUMBER RANK DENSE_RANK PERCENT_RANK CUME_DIST NTILE LAG LEAD QUANTILE_CONT
QUANTILE_DISC PERCENTILE_CONT PERCENTILE_DISC CORR COVAR COVAR_SAMP COVAR_POP BIT_AND BIT_OR
BOOL_AND BOOL_OR EVERY ANY_VALUE UNNEST EXPLODE OVER PARTITION WINDOW QUALIFY
""".split())

_WINDOW_WORDS = frozenset({"OVER", "PARTITION", "WINDOW", "QUALIFY"})

#: Words that start a query or a statement, or read a table, a file or a URL.
TABLE_WORDS = frozenset("""
SELECT FROM WITH JOIN UNION INTERSECT EXCEPT VALUES TABLE INTO CREATE DROP INSERT UPDATE DELETE
ALTER COPY ATTACH DETACH PRAGMA LATERAL EXISTS SHOW EXPLAIN DESCRIBE WHERE GROUP HAVING ORDER
LIMIT OFFSET FETCH USING SET INSTALL LOAD EXPORT IMPORT CALL EXECUTE PREPARE ANY ALL SOME
""".split())

#: Punctuation of a row-level expression (operators, parentheses, commas, brackets).
_PUNCT = set("()+-*/%<>=!|~^&,[]:")
_WORD = re.compile(r"[^\W\d]\w*")
_NUMBER = re.compile(r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


@dataclass(frozen=True)
class Token:
    """One token of a SQL text (:func:`tokenize`).

    Parameters
    ----------
    kind : str
        ``"word"``, ``"quoted"`` (a ``"quoted name"``, unquoted), ``"string"`` (a literal),
        ``"number"`` or ``"punct"``.
    text : str
        The token's text (a quoted name without its quotes).
    pos : int
        Its offset in the SQL text.

    Examples
    --------
    >>> Token("word", "race", 0).kind
    'word'
    """

    kind: str
    text: str
    pos: int


def _refuse(role: str, text: str, why: str, cli_why: str | None = None) -> E.SQLRefusedError:
    return E.SQLRefusedError(
        E.SQL_REFUSED.format(role=role, text=text, why=why),
        cli_message=None if cli_why is None else E.SQL_REFUSED.format(role=role, text=text,
                                                                      why=cli_why))


def _unknown_function(role: str, text: str, name: str, near: str = "") -> E.SQLRefusedError:
    """SQL_WHY_FUNCTION, pointing to the list where the message is read (Python or flags)."""
    return _refuse(role, text, E.SQL_WHY_FUNCTION.format(name=name) + near,
                   E.CLI_SQL_WHY_FUNCTION.format(name=name) + near)


def _doubled_quotes(text: str, start: int) -> str:
    r"""The string at ``start`` read with ``\'`` as a quote, written with it doubled (``''``).

    :data:`polars_fair.errors.SQL_DOUBLED_QUOTE` (``, as in 'O''Brien'``), or ``""`` when
    the string read that way never closes (its end cannot be told).
    """
    out, j = ["'"], start + 1
    while j < len(text):
        pair = text[j:j + 2]
        if pair in ("\\'", "''"):
            out.append("''")
            j += 2
        elif text[j] == "'":
            return E.SQL_DOUBLED_QUOTE.format(literal="".join(out) + "'")
        else:
            out.append(text[j])
            j += 1
    return ""


def tokenize(text: str, role: str = "sql") -> list[Token]:
    r"""Split a SQL expression into tokens without interpreting it.

    Parameters
    ----------
    text : str
        The SQL text.
    role : str, default "sql"
        The argument it came from (named in errors).

    Returns
    -------
    list of Token
        The words, quoted names, string literals, numbers and punctuation, in order.

    Raises
    ------
    SQLRefusedError
        A comment, an unclosed string or quoted name, a backslash before a quote inside a
        string, or a character that is not part of a row-level expression (``;``, ``$``,
        ``?``, ``@``, a backtick, ...).

    Examples
    --------
    >>> [(t.kind, t.text) for t in tokenize("g IN ('it''s', 2)")]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('word', 'g'), ('word', 'IN'), ('punct', '('), ('string', "it's"), ('punct', ','),
     ('number', '2'), ('punct', ')')]
    >>> [(t.kind, t.text) for t in tokenize('"a b" > 1')]
    [('quoted', 'a b'), ('punct', '>'), ('number', '1')]
    """
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif text.startswith(("--", "/*"), i):
            raise _refuse(role, text, E.SQL_WHY_COMMENT.format(pos=i))
        elif ch in ("'", '"'):
            j, parts = i + 1, []
            while True:
                k = text.find(ch, j)
                if k < 0:
                    raise _refuse(role, text, E.SQL_WHY_UNCLOSED.format(pos=i))
                parts.append(text[j:k])
                if k + 1 < n and text[k + 1] == ch:  # a doubled quote stands for itself
                    parts.append(ch)
                    j = k + 2
                    continue
                break
            if ch == "'" and "\\'" in text[i:k + 1]:  # is the quote escaped? dialects differ
                raise _refuse(role, text, E.SQL_WHY_BACKSLASH.format(
                    pos=i, example=_doubled_quotes(text, i)))
            tokens.append(Token("string" if ch == "'" else "quoted", "".join(parts), i))
            i = k + 1
        elif (m := _NUMBER.match(text, i)) is not None and (ch.isdigit() or ch == "."):
            tokens.append(Token("number", m.group(), i))
            i = m.end()
        elif (m := _WORD.match(text, i)) is not None:
            tokens.append(Token("word", m.group(), i))
            i = m.end()
        elif ch in _PUNCT:
            tokens.append(Token("punct", ch, i))
            i += 1
        elif ch == ".":  # outside a number: a qualified name (t.x) or a struct field
            start = tokens[-1].text if tokens else ""
            raise _refuse(role, text, E.SQL_WHY_QUALIFIED.format(name=f"{start}.{text[i + 1:]}"))
        else:
            raise _refuse(role, text, E.SQL_WHY_CHARACTER.format(char=ch, pos=i))
    return tokens


_OPERATOR_WORDS = frozenset({"AND", "OR", "NOT", "XOR"})
_OPERATOR_PUNCT = frozenset("+-*/%<>=!|~^&")
_PAD = frozenset({"LPAD", "RPAD"})
_REPLACE = frozenset({"REPLACE", "REGEXP_REPLACE"})


def _too_large(role: str, text: str, name: str, what: str, size: int) -> E.SizeLimitError:
    why = E.SQL_WHY_TOO_LARGE.format(what=what, size=size, limit=LIMITS[name].limit)
    return E.SizeLimitError(E.SQL_TOO_LARGE.format(role=role, text=_short(text), why=why))


def _short(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


def _arguments(tokens: list[Token], start: int) -> list[list[Token]]:
    """The tokens of each argument of the call whose ``(`` is ``tokens[start]``."""
    depth = 0
    out: list[list[Token]] = [[]]
    for tok in tokens[start:]:
        if tok.kind == "punct" and tok.text in "([":
            depth += 1
            if depth == 1:
                continue
        elif tok.kind == "punct" and tok.text in ")]":
            depth -= 1
            if depth == 0:
                break
        elif tok.kind == "punct" and tok.text == "," and depth == 1:
            out.append([])
            continue
        out[-1].append(tok)
    return out


def _replace_growth(tokens: list[Token], idx: int, role: str, text: str) -> int:
    """How many times longer than its input a ``REPLACE``/``REGEXP_REPLACE`` call can make a cell.

    The replacement must be a string literal (a column's value could be any length). A literal
    pattern of ``p`` characters replaced by ``r`` characters grows a cell at most
    ``ceil(r / p)`` times; an empty pattern, a pattern that is not a literal and every regular
    expression may match at each of the cell's positions, which grows it ``r + 1`` times, and
    each ``$`` reference in a regular expression's replacement repeats the match once more.
    """
    name = tokens[idx].text.upper()
    args = _arguments(tokens, idx + 1)
    replacement = args[2] if len(args) > 2 else []
    if len(replacement) != 1 or replacement[0].kind != "string":
        shown = " ".join(t.text for t in replacement) or "nothing"
        raise _refuse(role, text, E.SQL_WHY_REPLACEMENT.format(name=tokens[idx].text,
                                                              replacement=shown))
    r = len(replacement[0].text)
    pattern = args[1] if len(args) > 1 else []
    literal = len(pattern) == 1 and pattern[0].kind == "string" and pattern[0].text != ""
    if name == "REPLACE" and literal:
        return max(1, -(-r // len(pattern[0].text)))
    return (r + 1) * (1 + replacement[0].text.count("$")) if name != "REPLACE" else r + 1


def check_sql(text: str, columns: Collection[str], role: str) -> None:
    """Refuse a SQL text that is not a row-level expression over ``columns``, without parsing it.

    Parameters
    ----------
    text : str
        The SQL expression.
    columns : collection of str
        The input's column names: the only names the text may read.
    role : str
        The argument it came from (``"where"``, ``"--y-pred"``), named in errors.

    Raises
    ------
    SQLRefusedError
        A query word (:data:`TABLE_WORDS`), a function outside :data:`FUNCTIONS` (table
        functions included), a qualified name, or a character :func:`tokenize` refuses.
    NotRowLevelError
        An aggregate or window function (:data:`AGGREGATES`); ``DATE(x)`` or ``TIMESTAMP(x)``
        without a format, anywhere in the text (:func:`date_refusal`).
    SizeLimitError
        A text above its size limits (:func:`check_size`).
    ColumnNotFoundError
        A name that is neither a column, a keyword, a type nor a function (the message lists the
        columns).

    Examples
    --------
    >>> check_sql("score >= 0.5 AND race <> 'a'", ["score", "race"], "where")
    >>> check_sql("race IN (SELECT x FROM read_csv('/etc/passwd'))", ["race"], "where")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.errors.SQLRefusedError: where: "race IN (SELECT x FROM ..." is refused: SELECT ...
    """
    cols = set(columns)
    if len(text) > LIMITS["sql_length"].limit:  # before the text is read token by token
        raise _too_large(role, text, "sql_length", "its length in characters", len(text))
    tokens = tokenize(text, role)
    check_size(text, tokens, role)
    for idx, tok in enumerate(tokens):
        nxt = tokens[idx + 1] if idx + 1 < len(tokens) else None
        prev = tokens[idx - 1] if idx > 0 else None
        call = nxt is not None and nxt.kind == "punct" and nxt.text == "("
        if tok.kind == "quoted":
            if call:  # "name"(...) calls a function by a quoted name
                raise _unknown_function(role, text, f'"{tok.text}"')
            after_as = prev is not None and prev.kind == "word" and prev.text.upper() == "AS"
            if tok.text not in cols and not after_as:  # "x" AS "my key": a name, never read
                raise E.ColumnNotFoundError(E.missing_column(tok.text, role, list(columns)))
            continue
        if tok.kind != "word":
            continue
        word = tok.text.upper()
        if call and word in _NO_FORMAT_CALLS:
            refused = date_refusal(text, tokens, idx, cols, role)
            if refused is not None:
                raise refused
        if call:
            if word in AGGREGATES:
                raise E.NotRowLevelError(E.NOT_ROW_LEVEL.format(
                    role=role, expr=repr(text), why=E.SQL_WHY_AGGREGATE.format(name=tok.text)))
            if word in TABLE_WORDS:
                raise _refuse(role, text, E.SQL_WHY_TABLE_WORD.format(word=tok.text))
            if word in FUNCTIONS or word in TYPES or word in KEYWORDS:
                continue
            raise _unknown_function(role, text, tok.text,  # SUBTRING: SUBSTRING
                                    E.closest([word], FUNCTIONS, quote=False))
        # a query word is one even where a column has its name (quote such a column: "order")
        if word in TABLE_WORDS:
            raise _refuse(role, text, E.SQL_WHY_TABLE_WORD.format(word=tok.text))
        if word in _WINDOW_WORDS:
            raise E.NotRowLevelError(E.NOT_ROW_LEVEL.format(
                role=role, expr=repr(text), why=E.SQL_WHY_AGGREGATE.format(name=tok.text)))
        if tok.text in cols:
            continue
        if word in AGGREGATES:
            raise E.NotRowLevelError(E.NOT_ROW_LEVEL.format(
                role=role, expr=repr(text), why=E.SQL_WHY_AGGREGATE.format(name=tok.text)))
        if word in KEYWORDS or word in TYPES:
            continue
        if prev is not None and prev.kind == "word" and prev.text.upper() == "AS":
            continue  # an alias, or a type name Polars may reject: a name, never read
        raise E.ColumnNotFoundError(E.missing_column(tok.text, role, list(columns)))


@borrow(check_sql, params=("text", "role"))
def check_size(text: str, tokens: list[Token], role: str) -> None:
    """Refuse a SQL text above its size limits (:data:`polars_fair.core.limits.LIMITS`).

    Parameters
    ----------
    tokens : list of Token
        Its tokens (:func:`tokenize`).

    Raises
    ------
    SizeLimitError
        More characters than ``sql_length``, more operators (``AND``, ``OR``, ``NOT``,
        ``XOR``, comparison and arithmetic signs) than ``sql_operators``, parentheses nested
        deeper than ``sql_depth``, an ``LPAD``/``RPAD`` whose length is not a number written in
        the text or is above ``sql_pad``, LPAD/RPAD lengths whose sum times the growth below
        is above ``sql_pad`` (a padded cell grown by ``REPLACE``, or several pads concatenated,
        may not build more characters than one pad may), more ``REPLACE``/``REGEXP_REPLACE``
        calls than ``sql_replace``, or calls whose growth of a cell (the product over the calls of
        ``ceil(len(replacement) / len(pattern))``, or ``len(replacement) + 1`` for an empty
        pattern, a pattern that is not a literal or a regular expression) is above
        ``sql_growth``.
    SQLRefusedError
        A ``REPLACE``/``REGEXP_REPLACE`` whose replacement is not a string literal.

    Examples
    --------
    >>> check_size("g = 'a'", tokenize("g = 'a'"), "where")
    >>> t = " OR ".join(["g = 'a'"] * 200)
    >>> check_size(t, tokenize(t), "where")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.errors.SizeLimitError: where: ... the number of operators ... is 399, more than ...
    """
    if len(text) > LIMITS["sql_length"].limit:
        raise _too_large(role, text, "sql_length", "its length in characters", len(text))
    operators = depth = deepest = replaces = padded = 0
    growth = 1
    previous_punct = False
    for idx, tok in enumerate(tokens):
        is_op = tok.kind == "punct" and tok.text in _OPERATOR_PUNCT
        if is_op and not previous_punct:  # ">=" and "<>" are one operator
            operators += 1
        previous_punct = is_op
        if tok.kind == "word" and tok.text.upper() in _OPERATOR_WORDS:
            operators += 1
        if tok.kind == "punct" and tok.text == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif tok.kind == "punct" and tok.text == ")":
            depth -= 1
        call = (tok.kind == "word" and idx + 1 < len(tokens)
                and tokens[idx + 1].kind == "punct" and tokens[idx + 1].text == "(")
        if call and tok.text.upper() in _REPLACE:
            replaces += 1
            growth *= _replace_growth(tokens, idx, role, text)
        if call and tok.text.upper() in _PAD:
            args = _arguments(tokens, idx + 1)
            arg = args[1] if len(args) > 1 else []
            pad = LIMITS["sql_pad"].limit
            number = arg[0].text if len(arg) == 1 and arg[0].kind == "number" else None
            if number is None:  # a column's value could be any length
                shown = " ".join(t.text for t in arg) or "nothing"
                raise _refuse(role, text, E.SQL_WHY_PAD.format(
                    name=tok.text, length=shown, limit=pad))
            if float(number) > pad:
                raise E.SizeLimitError(E.SQL_TOO_LARGE.format(
                    role=role, text=_short(text),
                    why=E.SQL_WHY_PAD.format(name=tok.text, length=number, limit=pad)))
            padded += int(float(number))
    checks = (("sql_operators", "the number of operators (AND, OR, NOT, comparisons, "
               "arithmetic)", operators),
              ("sql_depth", "the nesting of parentheses", deepest),
              ("sql_replace", "the number of REPLACE and REGEXP_REPLACE calls", replaces),
              ("sql_growth", "how many times longer than its input a cell can grow through "
               "REPLACE and REGEXP_REPLACE (the product of each call's growth)", growth),
              ("sql_pad", "the characters a padded cell can reach (the sum of the LPAD and "
               "RPAD lengths times the REPLACE growth)", padded * growth))
    for name, what, size in checks:
        if size > LIMITS[name].limit:
            raise _too_large(role, text, name, what, size)
    _Built(tokens, role, text).check()


#: How many characters ``STRFTIME`` can write for one character of its format (``%+`` writes
#: up to 35 characters, ``2020-09-30T01:02:03.456789123+00:00``, for two).
_STRFTIME_GROWTH = 18
#: Words after which a parenthesised list holds values compared with, never a value built.
_LIST_WORDS = frozenset({"IN"})
#: Punctuation that joins its operands into one value (``||``, arithmetic): their sizes add.
_JOINING = frozenset("|+-*/%^&")


class _Built:
    """The largest cell each part of a SQL text can build, as ``a x longest input + b``.

    Every value a text builds row by row is bounded before it is parsed: a column counts its
    longest cell once (``a = 1``), a string literal its characters (``b``; a literal in an
    ``IN (...)`` list is compared with, never built). Values joined by ``||`` or arithmetic
    add; ``CONCAT`` adds its arguments and ``CONCAT_WS`` its separator once per argument
    after the first; ``REPLACE``/``REGEXP_REPLACE`` multiply their input by their growth
    (:func:`_replace_growth`); ``LPAD``/``RPAD`` make exactly their length; ``STRFTIME``
    writes at most :data:`_STRFTIME_GROWTH` characters per character of its format; other
    functions are bounded by the sum of their arguments, and a comparison, ``AND``/``OR`` or
    ``CASE`` by its largest operand. Every call and every operand is checked: ``a`` against
    ``sql_growth``, ``b`` against ``sql_text``, so ``LENGTH(CONCAT_WS('<5,000 x>', g, g, ...))``
    is refused although its own value is a number.
    """

    def __init__(self, tokens: list[Token], role: str, text: str) -> None:
        self.tokens, self.role, self.text = tokens, role, text
        #: The largest ``a`` and ``b`` of any value read (:func:`check_built_bytes`).
        self.most = (0, 0)

    def check(self) -> None:
        """Read the whole text; raise ``SizeLimitError`` at the first part above a limit."""
        i = 0
        while i < len(self.tokens):  # a stray ")" or "," at the top: keep reading
            _, i = self._sequence(i)
            i += 1

    def _limit(self, size: tuple[int, int]) -> tuple[int, int]:
        a, b = size
        self.most = (max(self.most[0], a), max(self.most[1], b))
        if a > LIMITS["sql_growth"].limit:
            raise _too_large(self.role, self.text, "sql_growth", E.SQL_WHAT_GROWTH, a)
        if b > LIMITS["sql_text"].limit:
            raise _too_large(self.role, self.text, "sql_text", E.SQL_WHAT_TEXT, b)
        return size

    def _sequence(self, i: int) -> tuple[tuple[int, int], int]:
        """The size of the expression from ``tokens[i]`` to the next ``,``/``)`` of its level."""
        tokens, best, seg = self.tokens, (0, 0), (0, 0)
        while i < len(tokens):
            tok = tokens[i]
            if tok.kind == "punct" and tok.text in ",)]":
                break
            size = (0, 0)
            if tok.kind == "punct" and tok.text in "([":
                prev = tokens[i - 1] if i > 0 else None
                listed = prev is not None and prev.kind == "word" \
                    and prev.text.upper() in _LIST_WORDS
                items, i = self._group(i)
                size = (0, 0) if listed else max(items, default=(0, 0))
            elif tok.kind == "word" and tok.text.upper() not in _LIST_WORDS \
                    and i + 1 < len(tokens) and tokens[i + 1].kind == "punct" \
                    and tokens[i + 1].text == "(":
                size, i = self._call(i)
            elif tok.kind == "punct" and tok.text not in _JOINING:  # a comparison: a new operand
                best, seg = max(best, seg), (0, 0)
                i += 1
                continue
            elif tok.kind == "word" and tok.text.upper() in KEYWORDS | TYPES:
                best, seg = max(best, seg), (0, 0)  # AND, CASE ... THEN, AS VARCHAR
                i += 1
                continue
            elif tok.kind in ("string", "number"):
                size = (0, len(tok.text))
                i += 1
            elif tok.kind in ("word", "quoted"):
                size = (1, 0)
                i += 1
            else:
                i += 1
            seg = self._limit((seg[0] + size[0], seg[1] + size[1]))
        return max(best, seg), i

    def _group(self, i: int) -> tuple[list[tuple[int, int]], int]:
        """The sizes of the items of the ``(``...``)`` at ``tokens[i]``; the index after it."""
        items = []
        i += 1
        while True:
            size, i = self._sequence(i)
            items.append(size)
            if i >= len(self.tokens) or self.tokens[i].text != ",":
                return items, i + 1
            i += 1

    def _call(self, i: int) -> tuple[tuple[int, int], int]:
        """The size of the call whose name is ``tokens[i]``; the index after its ``)``."""
        name = self.tokens[i].text.upper()
        args, end = self._group(i + 1)
        total = (sum(a for a, _ in args), sum(b for _, b in args))
        if name == "CONCAT_WS" and args:
            (sa, sb), k = args[0], len(args) - 1
            rest = (total[0] - sa, total[1] - sb)
            total = (rest[0] + sa * max(k - 1, 0), rest[1] + sb * max(k - 1, 0))
        elif name in _REPLACE:
            f = _replace_growth(self.tokens, i, self.role, self.text)
            total = (f * args[0][0], f * args[0][1])
        elif name in _PAD and len(args) > 1:  # check_size: the length is one number
            length = _arguments(self.tokens, i + 1)[1][0].text
            total = (0, int(float(length)))
        elif name == "STRFTIME" and len(args) > 1:
            total = (_STRFTIME_GROWTH * args[1][0], _STRFTIME_GROWTH * args[1][1])
        return self._limit(total), end


#: A text whose values hold at most one input cell and this many characters of its own is not
#: measured (:func:`check_built_bytes`): it builds about what the input already holds.
UNMEASURED_TEXT = 64
#: The characters a cell of a dtype other than text (a number, a date, a time) is counted as
#: once written as text: ``-1.7976931348623157e308``, a 38-digit decimal, a date-time with its
#: nanoseconds and offset all fit.
SCALAR_CHARS = 64
_TEXT_DTYPES = (pl.String, pl.Categorical, pl.Enum)


def _longest(column: str, dtype: pl.DataType) -> pl.Expr:
    """The bytes of the longest cell of ``column`` as text (:data:`SCALAR_CHARS` if no text)."""
    if isinstance(dtype, _TEXT_DTYPES):
        return pl.col(column).cast(pl.String).str.len_bytes().max().fill_null(0)
    if dtype == pl.Binary:
        return pl.col(column).bin.size().max().fill_null(0)
    return pl.lit(SCALAR_CHARS, dtype=pl.UInt32)


def check_built_bytes(lf: pl.LazyFrame, texts: Sequence[tuple[str, str]]) -> None:
    """Refuse SQL texts whose values over every row could take more than ``sql_bytes`` bytes.

    ``sql_growth`` and ``sql_text`` bound one value relative to its longest input cell, so
    ``CONCAT(note, note, ...)`` of 999 arguments over 50,000 notes of 200 characters passes
    them and asks for 10 GB. For each text whose largest value (:class:`_Built`, every
    intermediate value counted) can hold ``a`` times the longest cell of the columns it reads
    plus ``b`` characters of its own, with ``a >= 2`` or ``b >`` :data:`UNMEASURED_TEXT`, one
    cheap lazy query over only the columns those texts read measures the rows and each
    column's longest cell in bytes (a text column; :data:`SCALAR_CHARS` for a number, a date or
    a time); ``rows x (a x longest + b)`` must be at most ``sql_bytes``. Nothing is read for
    other texts.

    Parameters
    ----------
    lf : pl.LazyFrame
        The input the texts read (before any filter: its rows bound the filtered ones).
    texts : sequence of (str, str)
        Each option (``--y-pred``, ``where``) and its SQL text, already checked by
        :func:`check_sql` over ``lf``'s columns.

    Raises
    ------
    SizeLimitError
        :data:`polars_fair.errors.SQL_BUILT_TOO_LARGE`, naming the option, the columns read,
        the rows, the longest cell in bytes and the bound (never a value).

    Examples
    --------
    >>> import polars as pl
    >>> lf = pl.LazyFrame({"note": ["ab", "abcd"]})
    >>> check_built_bytes(lf, [("--y-pred", "LENGTH(CONCAT(note, note)) > 3")])
    >>> check_built_bytes(pl.LazyFrame({"note": ["x" * 1000] * 2000}),
    ...     [("--y-pred", "REPLACE(note, 'x', '" + "y" * 999 + "') = 'a'")])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.errors.SizeLimitError: --y-pred: "REPLACE(note, ... 1,999,998,000 bytes over ...
    """
    schema = lf.collect_schema()
    measured: list[tuple[str, str, tuple[int, int], list[str]]] = []
    for role, text in texts:
        tokens = tokenize(text, role)
        built = _Built(tokens, role, text)
        built.check()
        a, b = built.most
        if a < 2 and b <= UNMEASURED_TEXT:
            continue
        read = list(dict.fromkeys(t.text for t in tokens
                                  if t.kind in ("word", "quoted") and t.text in schema))
        measured.append((role, text, (a, b), read))
    if not measured:
        return
    columns = list(dict.fromkeys(c for *_, read in measured for c in read))
    row = lf.select(pl.len().alias("rows"), *(
        _longest(c, schema[c]).alias(str(i)) for i, c in enumerate(columns))).collect().row(0)
    rows, longest = int(row[0]), dict(zip(columns, map(int, row[1:]), strict=True))
    limit = LIMITS["sql_bytes"].limit
    for role, text, (a, b), read in measured:
        cell = max((longest[c] for c in read), default=0)
        size = rows * (a * cell + b)
        if size > limit:
            raise E.SizeLimitError(E.SQL_BUILT_TOO_LARGE.format(
                role=role, text=_short(text), a=a, b=b, size=size, rows=rows, cell=cell,
                columns=", ".join(map(repr, read)) or "no column", limit=limit))


#: A literal of each temporal dtype and the part of it a number is usually meant as.
_TEMPORAL_ADVICE = {
    "Date": ("date", "DATE '1990-01-01'", "year"),
    "Datetime": ("date-time", "TIMESTAMP '1990-01-01 00:00:00'", "year"),
    "Time": ("time", "TIME '12:00:00'", "hour"),
}
_COMPARISON_CHARS = frozenset("<>=!")


def _operands(tokens: list[Token]) -> list[tuple[Token, list[tuple[int, Token]]]]:
    """Each comparison or ``BETWEEN`` whose sides are single tokens: ``(left, [(start, right)])``.

    ``>=`` (two punctuation tokens) is one operator; a sign before a right operand belongs to it
    (``start`` is the sign's offset: ``x > -5``); ``NOT BETWEEN`` is read as ``BETWEEN``, whose
    two bounds are both right operands.
    """
    def operand(k: int) -> tuple[int, int] | None:  # (start offset, index of the token)
        if k < len(tokens) and tokens[k].kind == "punct" and tokens[k].text in "+-":
            return (tokens[k].pos, k + 1) if k + 1 < len(tokens) else None
        return (tokens[k].pos, k) if k < len(tokens) else None

    out: list[tuple[Token, list[tuple[int, Token]]]] = []
    i = 0
    while i < len(tokens):
        tok, j = tokens[i], i
        between = tok.kind == "word" and tok.text.upper() == "BETWEEN"
        if tok.kind == "punct" and tok.text in _COMPARISON_CHARS:
            while j + 1 < len(tokens) and tokens[j + 1].kind == "punct" \
                    and tokens[j + 1].text in _COMPARISON_CHARS:
                j += 1
        elif not between:
            i += 1
            continue
        left = i - 1
        if left >= 0 and tokens[left].kind == "word" and tokens[left].text.upper() == "NOT":
            left -= 1
        rights: list[tuple[int, Token]] = []
        if (first := operand(j + 1)) is not None:
            rights.append((first[0], tokens[first[1]]))
            after = first[1] + 1
            if between and after < len(tokens) and tokens[after].text.upper() == "AND" \
                    and (second := operand(after + 1)) is not None:
                rights.append((second[0], tokens[second[1]]))
        if left >= 0 and rights:
            out.append((tokens[left], rights))
        i = j + 1
    return out


def _end(tok: Token) -> int:
    """The offset just after ``tok`` in its text (a quoted name with its quotes, doubled ones)."""
    if tok.kind == "quoted":
        return tok.pos + len(tok.text.replace('"', '""')) + 2
    return tok.pos + len(tok.text)


def check_temporal_numbers(text: str, schema: pl.Schema, role: str) -> None:
    """Refuse a SQL text that compares a date, date-time or time column with a number.

    Polars' SQL reads ``dob > 5`` over a date column as "after 1970-01-06" (the number taken as
    days, or microseconds, since 1970-01-01) and filters silently; a comparison with text
    (``dob > 'x'``) already fails. A column or number standing alone on each side of a
    comparison (``=``, ``<>``, ``<``, ``>=``, ...) or of ``BETWEEN`` is checked; the advice
    writes the text twice with one change, a literal of the column's type in place of the
    number, or the column's year (hour for a time) in place of the column, and both run as
    written.

    Parameters
    ----------
    text : str
        The SQL text.
    schema : pl.Schema
        The input's schema (the columns' dtypes).
    role : str
        The argument it came from (``--where``), named in the error.

    Raises
    ------
    InvalidArgumentError
        :data:`polars_fair.errors.SQL_TEMPORAL_NUMBER`, naming the column and its dtype.

    Examples
    --------
    >>> import polars as pl
    >>> schema = pl.Schema({"dob": pl.Date, "age": pl.Int64})
    >>> check_temporal_numbers("dob > DATE '1990-01-01' AND age > 5", schema, "--where")
    >>> check_temporal_numbers("dob > 5", schema, "--where")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: --where 'dob > 5' compares column 'dob' (Date) ...
    """
    def dtype(tok: Token) -> pl.DataType | None:
        if tok.kind in ("word", "quoted") and tok.text in schema:
            return schema[tok.text]
        return None

    def numeric(tok: Token) -> bool:
        kind = dtype(tok)
        return tok.kind == "number" or (kind is not None and kind.is_numeric())

    for left, rights in _operands(tokenize(text, role)):
        sides = [(column, [(start, number) for start, number in rights]) for column in [left]]
        sides += [(column, [(left.pos, left)]) for _, column in rights]
        for column, numbers in sides:
            kind = dtype(column)
            if kind is None or kind.base_type().__name__ not in _TEMPORAL_ADVICE \
                    or not any(numeric(number) for _, number in numbers):
                continue
            word, literal, part = _TEMPORAL_ADVICE[kind.base_type().__name__]
            with_literal = text
            for start, number in reversed(numbers):  # right to left: offsets stay valid
                if numeric(number):
                    with_literal = with_literal[:start] + literal + with_literal[_end(number):]
            part_of = f"DATE_PART('{part}', {sql_name(column.text)})"
            with_part = text[:column.pos] + part_of + text[_end(column):]
            spans = [left.pos, _end(left)] + [_end(number) for _, number in rights]
            raise E.InvalidArgumentError(E.SQL_TEMPORAL_NUMBER.format(
                role=role, text=text, column=column.text, dtype=kind, kind=word,
                comparison=text[min(spans):max(spans)], with_literal=with_literal,
                with_part=with_part))


def sql_expr(text: str, columns: Collection[str], role: str) -> pl.Expr:
    """A SQL text as a row-level Polars expression over ``columns``, checked before it is parsed.

    :func:`check_sql` reads the text first; only then is it handed to ``pl.sql_expr``, and the
    expression is checked with :func:`polars_fair.core.spec.check_row_level`.

    Parameters
    ----------
    text : str
        The SQL expression (``score_text <> 'Low'``).
    columns : collection of str or pl.Schema
        The input's column names; given as its schema, a date, date-time or time column compared
        with a number is refused too (:func:`check_temporal_numbers`).
    role : str
        The argument it came from, named in errors.

    Returns
    -------
    pl.Expr
        The expression (its output name is Polars' choice; alias it as needed).

    Raises
    ------
    SQLRefusedError
        See :func:`check_sql`; also a text Polars cannot parse (the message gives Polars' first
        line; nothing was read).
    InvalidArgumentError
        A date, date-time or time column compared with a number (with the schema).
    NotRowLevelError
        An aggregate, a window or a filter (:func:`check_sql`,
        :func:`polars_fair.core.spec.check_row_level`).
    ColumnNotFoundError
        A name that is not a column.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"score": [0.2, 0.7]})
    >>> df.select(sql_expr("score >= 0.5", df.columns, "y_pred"))["score"].to_list()
    [False, True]
    >>> sql_expr("MAX(score)", df.columns, "y_pred")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.errors.NotRowLevelError: y_pred='MAX(score)' is not a row-level expression: ...
    """
    from polars_fair.core.spec import check_row_level

    check_sql(text, columns, role)
    if isinstance(columns, pl.Schema):  # with the dtypes: a date compared with a number
        check_temporal_numbers(text, columns, role)
    try:
        expr = pl.sql_expr(text)
    except Exception as exc:  # Polars raises several types for bad SQL
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise E.SQLRefusedError(E.SQL_INVALID.format(role=role, text=text, detail=detail)) \
            from None
    try:
        check_row_level(expr, role)
    except E.NotRowLevelError as exc:  # in SQL words: the text, never Polars' expression
        raise E.NotRowLevelError(sql_not_row_level(text, role, str(exc))) from None
    return expr


def sql_name(column: str) -> str:
    """A column as a SQL expression names it: bare when a plain identifier, else double-quoted.

    A name that is a SQL word (:data:`KEYWORDS`, :data:`TABLE_WORDS`: ``order``, ``by``'s
    neighbours ``group``, ``select``) is quoted too, since the checker refuses it bare; a
    ``"`` inside is doubled. Advice that writes SQL over a column uses it, so it parses for any
    name.

    Parameters
    ----------
    column : str
        The column's name.

    Returns
    -------
    str

    Examples
    --------
    >>> sql_name("age"), sql_name("order"), sql_name("my col"), sql_name('a"b')
    ('age', '"order"', '"my col"', '"a""b"')
    """
    if column.isidentifier() and column.isascii() and column.upper() not in KEYWORDS | TABLE_WORDS:
        return column
    return '"' + column.replace('"', '""') + '"'


#: The date functions whose one-argument form guesses its format from the column's values.
_NO_FORMAT_CALLS = frozenset({"DATE", "TIMESTAMP"})
_WHY = re.compile(r"is not a row-level expression: it (?P<why>.*?); pass")


def date_refusal(text: str, tokens: list[Token], idx: int, columns: Collection[str],
                 role: str) -> E.NotRowLevelError | None:
    """The refusal of ``DATE(x)`` or ``TIMESTAMP(x)`` without a format at ``tokens[idx]``.

    Polars' ``DATE(x)`` of one argument guesses the format from the column's values, so a row's
    value depends on the other rows: refused wherever the call stands, with the SQL that
    works. For a column ``x``: :data:`polars_fair.errors.SQL_DATE_NO_FORMAT` (the format, the
    first ten characters of a date-time written as text, or ``CAST(x AS DATE)`` of a column
    read as a date-time) or :data:`polars_fair.errors.SQL_TIMESTAMP_NO_FORMAT`; for another
    argument (``DATE(SUBSTR(dt, 1, 10))``): :data:`polars_fair.errors.SQL_CALL_NO_FORMAT`.

    Parameters
    ----------
    text : str
        The SQL text.
    tokens : list of Token
        Its tokens (:func:`tokenize`).
    idx : int
        The index of the function's name, followed by ``(``.
    columns : collection of str
        The input's columns.
    role : str
        The flag (``--by``).

    Returns
    -------
    NotRowLevelError or None
        The refusal, or ``None`` for a call with a format (two arguments).

    Examples
    --------
    >>> t = "CASE WHEN DATE(dt) > DATE('2024-01-01', '%Y-%m-%d') THEN 1 ELSE 0 END"
    >>> print(date_refusal(t, tokenize(t), 2, ["dt"], "--y-pred"))  # doctest: +ELLIPSIS
    --y-pred "CASE WHEN DATE(dt) > ..." is not a row-level expression: DATE(dt) without a ...
    >>> date_refusal(t, tokenize(t), 7, ["dt"], "--y-pred") is None
    True
    """
    args = _arguments(tokens, idx + 1)
    if len(args) != 1 or not args[0]:
        return None
    depth, close = 0, len(text)
    for tok in tokens[idx + 1:]:
        depth += tok.kind == "punct" and tok.text in "(["
        depth -= tok.kind == "punct" and tok.text in ")]"
        if depth == 0:
            close = tok.pos
            break
    name = tokens[idx].text.upper()
    x = text[tokens[idx + 1].pos + 1:close].strip()
    call = f"{tokens[idx].text}({x})"
    surface = "cli" if role.startswith("--") else "python"  # audit_html(where=...): Python
    fields = dict(role=role, text=_short(text), call=call, x=x,
                  read=E.SQL_READ_DATETIME[surface].format(x=x))
    one = args[0][0]
    if len(args[0]) == 1 and one.kind == "word" and one.text in columns:
        template = E.SQL_DATE_NO_FORMAT if name == "DATE" else E.SQL_TIMESTAMP_NO_FORMAT
    else:
        template = E.SQL_CALL_NO_FORMAT
        fields["advice"] = (f"DATE({x}, '%Y-%m-%d')" if name == "DATE"
                            else f"TIMESTAMP({x}, '%Y-%m-%d %H:%M:%S')")
    return E.NotRowLevelError(template.format(**fields))


def sql_not_row_level(text: str, role: str, message: str) -> str:
    """The message of a SQL text that is not row-level, in SQL words with SQL that works.

    Parameters
    ----------
    text : str
        The SQL text as typed.
    role : str
        The flag (``--by``).
    message : str
        The message of :func:`polars_fair.core.spec.check_row_level` (its reason is kept).

    Returns
    -------
    str
        :data:`polars_fair.errors.NOT_ROW_LEVEL` naming the text (a date function without a
        format is refused before, by :func:`check_sql`: :func:`date_refusal`).

    Examples
    --------
    >>> print(sql_not_row_level("g", "--by", "x is not a row-level expression: it reads "
    ...                         "other rows (a window); pass ..."))  # doctest: +ELLIPSIS
    --by='g' is not a row-level expression: it reads other rows (a window), and an argument ...
    """
    why = w["why"] if (w := _WHY.search(message)) is not None else "reads other rows"
    return E.NOT_ROW_LEVEL.format(role=role, expr=repr(text), why=why)
