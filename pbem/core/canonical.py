"""Strict YAML loading, canonical JSON bytes and domain-separated hashes (DESIGN §2.1).

pbem reads a subset of YAML 1.2 that every conforming reader reads to the same value;
Appendix A of docs/protocol.md defines it. The loader builds Python objects straight from the parser's
event stream (LibYAML's C parser where present), so that every rule is checked in one
pass with bounded memory and the line of each offence is known:

- no anchors, aliases, tags (not even `!`), explicit keys (`?`), directives, or more
  than one document; keys are one-line scalars that read as strings, never duplicated;
- a plain scalar is `null`, empty, `true`, `false`, an integer `-?(0|[1-9][0-9]*)` within
  ±(2^53−1), or a string that no YAML 1.1 or 1.2 reader takes for anything else:
  `NO`, `0139`, `1:30`, `1.5`, `~`, `2026-11-29`, `<<` and the like must be quoted;
- where LibYAML departs from the YAML 1.2 spec (comments glued to a token, tabs,
  keep-chomping block scalars, lines of flow content that are not indented, ...)
  the construct is refused rather than read differently;
- input size, nesting depth, node count and string length are limited.

Every refusal is an InputError of one sentence starting "<source>, line N:".
"""

from __future__ import annotations

import bisect
import json
import re
from pathlib import Path

from pbem.core.errors import InputError
from pbem.core.sha import sha256

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterator

    import yaml


def _yaml() -> Any:
    """PyYAML, imported when a text is not in pbem's own written form (see _written): its
    import costs about twice a bare interpreter's start, more than a whole state takes to read."""
    import yaml

    return yaml


def _parser_class(yaml: Any) -> Any:
    # LibYAML's parser is about eight times faster; the pure-Python one is the fallback.
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 200_000
MAX_STRING = 256 * 1024
MAX_INT = 2**53 - 1

DOMAIN_GENESIS = b"pbem-genesis-v1\n"
DOMAIN_PACKET = b"pbem-packet-v1\n"
DOMAIN_STATE = b"pbem-state-v1\n"


_METHODS = ("match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer")


class LazyPattern:
    """A regular expression compiled when it is first used. Compiling one costs a tenth of a
    millisecond to two milliseconds, paid at every start of pbem for each pattern a module
    holds; most commands never use those that only the strict YAML loader, a refusal, an
    uncommon path or an unprintable text needs. Once compiled, its methods are the compiled
    pattern's own, read from slots: as quick to call as the pattern's."""

    __slots__ = ("_args", "_compiled") + _METHODS

    def __init__(self, pattern: str, flags: int = 0):
        self._args = (pattern, flags)
        self._compiled: re.Pattern | None = None

    def __getattr__(self, name: str) -> Any:
        # only reached for what is not set yet: before the first use, or another attribute
        if self._compiled is None:
            self._compiled = re.compile(*self._args)
            for method in _METHODS:
                setattr(self, method, getattr(self._compiled, method))
        return getattr(self._compiled, name)


# --- plain scalars ---------------------------------------------------------------------

_INT = LazyPattern(r"-?(?:0|[1-9][0-9]*)")

# Plain scalars that some YAML 1.1 or 1.2 reader takes for something other than a string,
# from the resolvers of YAML 1.1 (yaml.org/type), YAML 1.2 (core and JSON schemas),
# PyYAML's variants of the 1.1 ones and the 1.2 ones of ruamel.yaml and go-yaml, which allow
# underscores in numbers (a probe: `created: 0_9` read as 9 by ruamel.yaml, a string by
# pbem, gave the genesis two game ids). Each must be quoted to be a string.
_WORD_KINDS = {
    **dict.fromkeys("y Y yes Yes YES n N no No NO on On ON off Off OFF".split(), "a boolean by YAML 1.1 readers"),
    **dict.fromkeys("True TRUE False FALSE".split(), "a boolean by YAML 1.1 and 1.2 readers"),
    **dict.fromkeys("~ Null NULL".split(), "null by YAML 1.1 and 1.2 readers"),
    "<<": "the merge key by YAML 1.1 readers",
    "=": "the value key by YAML 1.1 readers",
}
_NUMBER_KINDS = [
    ("an integer", LazyPattern(r"""(?x)
        [-+]?0b[0-1_]+ | [-+]?0[0-7_]+ | [-+]?(?:0|[1-9][0-9_]*) | [-+]?0x[0-9a-fA-F_]+
      | [-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+                       # YAML 1.1
      | [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+                   # YAML 1.2 core
      | [-+]?0o?[0-7_]+ | [-+]?[0-9][0-9_]* | [-+][0-9_]+       # ruamel.yaml's and go-yaml's YAML 1.2
    """)),
    ("a float", LazyPattern(r"""(?x)
        [-+]?(?:[0-9][0-9_]*)?\.[0-9.]*(?:[eE][-+][0-9]+)?          # YAML 1.1
      | [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
      | [-+]?\.(?:inf|Inf|INF) | \.(?:nan|NaN|NAN)
      | [-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?               # PyYAML's YAML 1.1
      | \.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
      | [-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?    # YAML 1.2 core and JSON
      | [-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+             # ruamel.yaml's and go-yaml's YAML 1.2
      | [-+]?[0-9][0-9_]*\.[0-9_]* | [-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?
    """)),
    ("a date or timestamp", LazyPattern(r"""(?x)
        [0-9]{4}-[0-9]{2}-[0-9]{2}
      | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?
        (?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?
    """)),
]
_NUMBER_START = frozenset("-+.0123456789")


class _Refused(Exception):
    """A scalar or line that breaks a rule; the caller adds the source and line. `number`:
    the reason alone (without "; quote it") when it is that a reader could take the scalar
    for an integer."""

    def __init__(self, message: str, number: str | None = None):
        super().__init__(message)
        self.number = number


class NumberRefused(InputError):
    """A plain scalar refused because some YAML reader would take it for an integer
    (`hex: 0442`). Beside its message ("<where>: <reason>; quote it") it keeps `where`,
    `reason`, the scalar's text (`value`) and `path`, the keys and list indexes that lead
    to it from the top of the document: a caller that knows what the value is for (an
    orders file, by its order schema) can say what to write instead."""

    def __init__(self, where: str, reason: str, value: str, path: tuple):
        super().__init__(f"{where}: {reason}; quote it")
        self.where, self.reason, self.value, self.path = where, reason, value, path


def _plain(value: str) -> Any:
    """The value of a plain scalar, or _Refused saying why it must be quoted."""
    if not value or value == "null":
        return None
    if value == "true":
        return True
    if value == "false":
        return False
    first = value[0]
    if first in _NUMBER_START:
        if _INT.fullmatch(value):
            # 2^53−1 has 16 digits; int() of a much longer one would be slow or refused.
            number = int(value) if len(value) <= 17 else MAX_INT + 1
            if abs(number) > MAX_INT:
                raise _Refused(f"the integer {value} is beyond ±2^53−1, the range that every JSON reader keeps "
                               "exact; quote it if it is not a number")
            return number
        for kind, pattern in _NUMBER_KINDS:
            if pattern.fullmatch(value):
                if kind == "a float":
                    raise _Refused(f"{value!r} could be read as a float, and floats are not allowed: "
                                   "use an integer (count halves as integers) or quote it")
                reason = f"{value!r} could be read as {kind} by YAML 1.1 or 1.2 readers"
                raise _Refused(f"{reason}; quote it", reason if kind == "an integer" else None)
        if value == "-":
            raise _Refused("a plain '-' inside [ ] or { } is not YAML; quote it")
        return value
    kind = _WORD_KINDS.get(value)
    if kind is not None:
        raise _Refused(f"{value!r} could be read as {kind}; quote it")
    if first in "?:":
        raise _Refused(f"a plain value may not begin with '{first}'; quote it")
    return value


def is_plain_string(value: str) -> bool:
    """Whether `value` written unquoted reads back as the same string."""
    try:
        return _plain(value) == value
    except _Refused:
        return False


# --- the text before parsing ---------------------------------------------------------------

# YAML's printable characters less U+0085, U+2028 and U+2029, which YAML 1.1 readers
# (LibYAML among them) take for line breaks and YAML 1.2 readers for text, and less
# U+FEFF, which may only open the file.
# Written as the complement of the printable set, which compiles in about a millisecond
# where the negated printable class costs about 8 ms. Each of its characters is one Python
# calls unprintable, so a text that is printable but for its line breaks and tabs, as nearly
# every one is, needs no search, and most commands never compile the class.
_BAD_CHAR = LazyPattern("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
_TAB_INDENT = re.compile(r"^ *\t", re.M)


def printable_lines(text: str) -> bool:
    """Whether every character of `text` but its line breaks and tabs is one Python calls
    printable: then it holds none of `_BAD_CHAR`, nor any that reports escape (text.py)."""
    return text.replace("\n", "").replace("\t", "").isprintable()


# What only the positions of the parsed scalars tell apart: a tab outside scalars and
# comments, a '?' that is an explicit-key indicator, a '#' glued to the token before it.
_SUSPECT = LazyPattern(r"[\t?#]")  # a '#' after whitespace is not suspect, but a comment


def _has_suspects(text: str) -> bool:
    if "\t" in text or "?" in text:
        return True
    at = text.find("#")
    while at >= 0:
        if at and text[at - 1] not in " \t\n":
            return True
        at = text.find("#", at + 1)
    return False


def _utf16(data: bytes) -> str:
    """What to do with a file an editor saved as UTF-16 (its byte-order mark, or a zero byte
    beside each ASCII character), else "" (a new user's probe: no remedy was said)."""
    head = data[:200]
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(head) >= 8 and head.count(0) * 3 >= len(head)):
        return (": it is UTF-16 text, as some editors on Windows save it; save it again as UTF-8, or for a packet "
                "save the attachment itself, unchanged")
    return ""


def _text(data: bytes | str, source: str) -> str:
    if isinstance(data, bytes):
        if len(data) > MAX_BYTES:
            raise InputError(f"{source}: the file is {len(data)} bytes, over the limit of {MAX_BYTES}")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{source}: the file is not UTF-8 (byte {exc.start + 1} is invalid){_utf16(data)}") from None
        if "\x00" in text:   # UTF-16 of ASCII text without a byte-order mark decodes
            utf16 = _utf16(data)
            if utf16:
                raise InputError(f"{source}: the file is not UTF-8 (byte {data.index(0) + 1} is a zero byte){utf16}")
    else:
        text = data
        if len(text) > MAX_BYTES:
            raise InputError(f"{source}: the text is {len(text)} characters, over the limit of {MAX_BYTES}")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InputError(f"{source}, line {text.count(chr(10), 0, exc.start) + 1}: the text holds a lone "
                             f"surrogate (U+{ord(text[exc.start]):04X}), which is not a character") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:  # YAML reads CR LF, CR and LF alike as one line break
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise InputError(f"{source}: the file is empty")
    bad = None if printable_lines(text) else _BAD_CHAR.search(text)
    if bad is not None:
        char = ord(bad.group())
        what = ("a byte order mark" if char == 0xFEFF
                else "a line separator" if char in (0x85, 0x2028, 0x2029) else "a control character")
        raise InputError(f"{source}, line {_line_of(text, bad.start())}: the character U+{char:04X} ({what}) may "
                         f"only be written as an escape such as \\u{char:04x} in a double-quoted string")
    tab = _TAB_INDENT.search(text)
    if tab is not None:
        raise InputError(f"{source}, line {_line_of(text, tab.start())}: a tab in the indentation of a line; "
                         "indent with spaces")
    return text


def _spaces(count: int) -> str:
    return "1 space" if count == 1 else f"{count} spaces"


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


class _Lines:
    """Start offsets of the lines of a text, computed when first needed."""

    def __init__(self, text: str):
        self.text = text
        self._starts: list[int] | None = None

    def get(self, line: int) -> str:
        if self._starts is None:
            self._starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        if line >= len(self._starts):
            return ""
        start = self._starts[line]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]


# --- loading ---------------------------------------------------------------------------------


def loads(data: bytes | str, source: str = "<input>") -> Any:
    """Parse one YAML document strictly; raise InputError naming `source` and the line."""
    text = _text(data, source)
    value = _written(text)
    if value is not _NOT_WRITTEN:
        return value
    return _strict(text, source)


def strict_loads(data: bytes | str, source: str = "<input>") -> Any:
    """`loads` by the YAML parser alone, without the shortcut for pbem's own written form
    (the tests hold the two to the same values)."""
    return _strict(_text(data, source), source)


def _strict(text: str, source: str) -> Any:
    careful = _has_suspects(text)
    try:
        return _load(text, source, careful)
    except _yaml().YAMLError as exc:
        raise _quoted(text, source, _explain(text, source, exc)) from None
    except InputError as exc:   # a rule of pbem's subset
        raise _quoted(text, source, exc) from None


# --- pbem's own written form ---------------------------------------------------------------
#
# Almost every file pbem reads, it wrote: states, the genesis, packets, all `dumps` text
# after comment lines. Such a text is read without PyYAML: `_written` parses it as `dumps`
# writes, then checks that `dumps` of the value gives back exactly the text and that the
# value is within the limits above. `dumps` writes only what the strict loader reads back
# as the same value (tests/test_canonical.py checks it, for every kind of value), so a text
# that passes is one the strict loader would read to this very value; anything else, however
# close, goes to the strict loader, which accepts or refuses it as it always has. The
# reader itself need not be right about any other text: it only proposes a value.

_NOT_WRITTEN = object()
_KEY_HEAD = re.compile(r'("(?:[^"\\\n]|\\.)*"|[^\s:"\[\]{},]+):(?: |$)')
_DIGITS = frozenset("0123456789")
_JSON_WORDS = frozenset(("null", "true", "false"))
_JSON_STRING = re.compile(r'("(?:[^"\\\n]|\\.)*")')
# a plain string as pbem writes it (_PLAIN), but for the words JSON reads as they are
# (one group: split() returns the text between words and the words in turn, so joining the
# pieces with '"' quotes every word, with no call back into Python for each one)
_PLAIN_WORD = re.compile(r"(?<![A-Za-z0-9_.@/+-])(?!(?:null|true|false)(?![A-Za-z0-9_.@/+-]))"
                         r"([A-Za-z_][A-Za-z0-9_.@/+-]*)")


def _written(text: str) -> Any:
    """The value of `text` if it is exactly what pbem writes for a value within the limits
    (comment lines first allowed), else _NOT_WRITTEN. The text is rewritten line by line
    as JSON (block collections as brackets, plain strings quoted) and read by `json`."""
    start = 0
    while text.startswith("#", start):   # whole-line comments before the document
        start = text.find("\n", start) + 1
        if start == 0:
            return _NOT_WRITTEN
    body = text[start:]
    try:
        lines = body.split("\n")
        if lines.pop() != "":
            return _NOT_WRITTEN
        out: list[str] = []
        flows: list[int] = []
        if _block(lines, 0, 0, out, flows) != len(lines):
            return _NOT_WRITTEN
        if flows:
            _quote_plain_words(out, flows)
        value = json.loads("".join(out))
        if dumps(value) != body or not _within_limits(value):
            return _NOT_WRITTEN
    except Exception:   # not pbem's form (a text the reader cannot follow): the strict path decides
        return _NOT_WRITTEN
    return value


def _block(lines: list[str], at: int, indent: int, out: list[str], flows: list[int]) -> int:
    """Append as JSON the block collection or flow value that starts at line `at`, whose
    content starts at column `indent` (a flow collection as it stands, its index in `out`
    added to `flows`: `_quote_plain_words` quotes their plain words all at once); return the
    index of the line after it."""
    content = lines[at][indent:]
    if content.startswith("- "):
        out.append("[")
        item = " " * indent + "- "
        count = len(lines)
        while at < count and lines[at].startswith(item):
            if out[-1] != "[":
                out.append(",")
            rest = lines[at][indent + 2:]
            if _KEY_HEAD.match(rest) or rest.startswith("- "):
                lines[at] = " " * (indent + 2) + rest     # the item's first line, at its own column
                at = _block(lines, at, indent + 2, out, flows)
            else:
                at = _flow(lines, at, indent + 2, out, flows)
        out.append("]")
        return at
    if _KEY_HEAD.match(content) is None:
        return _flow(lines, at, indent, out, flows)
    out.append("{")
    pad = " " * indent
    item = pad + "- "
    count = len(lines)
    while at < count:
        line = lines[at]
        if not line.startswith(pad) or line[indent:indent + 1] in (" ", "-"):
            break
        head = _KEY_HEAD.match(line, indent)
        if out[-1] != "{":
            out.append(",")
        key = head.group(1)
        out.append(key + ":" if key[0] == '"' else '"' + key + '":')
        if head.end() < len(line):
            at = _flow(lines, at, head.end(), out, flows)
        elif lines[at + 1].startswith(item):
            at = _block(lines, at + 1, indent, out, flows)
        else:
            at = _block(lines, at + 1, indent + 2, out, flows)
    out.append("}")
    return at


def _flow(lines: list[str], at: int, column: int, out: list[str], flows: list[int]) -> int:
    """Append a flow value from `column` of line `at`: a scalar as JSON, a collection as it
    stands with its index added to `flows` (a line that ends in ',' goes on in the next: a
    long list wrapped); return the index of the line after it."""
    text = lines[at][column:]
    first = text[0]
    if first == '"' or first == "-" or first in _DIGITS or text in _JSON_WORDS:   # a string or a number: JSON as it is
        out.append(text)
        return at + 1
    if first != "[" and first != "{":                          # a plain string
        out.append('"' + text + '"')
        return at + 1
    parts = [text]
    while text.endswith(","):
        at += 1
        text = lines[at]
        parts.append(text)
    flows.append(len(out))
    out.append("".join(parts))
    return at + 1


def _quote_plain_words(out: list[str], flows: list[int]) -> None:
    """Quote the plain words of the flow collections at these indexes of `out`, in two
    regular-expression passes over all of them: their JSON strings split off, then the text
    between the strings split at its words, each joined back with '"' (a word between quotes).
    The texts are joined with characters no text read here holds (`_BAD_CHAR` refuses them),
    which are neither in a string nor in a word, and split at them again."""
    pieces = _JSON_STRING.split("\x00".join([out[i] for i in flows]))
    between = '"'.join(_PLAIN_WORD.split("\x01".join(pieces[::2]))).split("\x01")
    pieces[::2] = between
    for i, text in zip(flows, "".join(pieces).split("\x00")):
        out[i] = text


def _within_limits(value: Any) -> bool:
    """Whether a value read is within the limits the strict loader holds a text to: strings
    and keys of at most MAX_STRING characters, collections nested at most MAX_DEPTH deep, at
    most MAX_NODES nodes (every value, and every key). A collection's scalars are checked
    where it is, only collections go on the stack."""
    kind = type(value)
    if kind is not dict and kind is not list:
        return kind is not str or len(value) <= MAX_STRING
    nodes = 1
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return False
        if type(item) is dict:
            nodes += len(item)
            for key in item:
                if type(key) is not str or len(key) > MAX_STRING:
                    return False
            children: Any = item.values()
        else:
            children = item
        nodes += len(children)
        for child in children:
            kind = type(child)
            if kind is str:
                if len(child) > MAX_STRING:
                    return False
            elif kind is dict or kind is list:
                stack.append((child, depth + 1))
    return nodes <= MAX_NODES


def _fail(source: str, mark: Any, message: str) -> InputError:
    where = f"{source}, line {mark.line + 1}" if mark is not None else source
    return InputError(f"{where}: {message}")


class _NoKey:
    pass


_NO_KEY = _NoKey()
_SURROGATE = LazyPattern("[\ud800-\udfff]")
_SURROGATE_ESCAPE = ("a \\u or \\U escape names no character (half of a surrogate pair, or a number beyond U+10FFFF); "
                     "escape the character itself, such as \\U0001F600")
_FLOW_COLON = LazyPattern(r" *:[ \n]")
_BLOCK_HEADER = LazyPattern(r"[|>]([-+0-9]*)([^\n]*)")
_DIRECTIVE = LazyPattern(r"^%", re.M)
_AFTER_TOP_BLOCK = LazyPattern(r"[ \n]*(?:\Z|\.\.\.(?:[ \t\n]|\Z))")
_AFTER_END = LazyPattern(r"(?:[ \t]+#[^\n]*|[ \t]*)(?:\n *(?:#[^\n]*)?)*")


def _load(text: str, source: str, careful: bool) -> Any:
    yaml = _yaml()
    parser = _parser_class(yaml)(text)
    lines = _Lines(text)
    # One frame per open collection: [container, pending key or _NO_KEY (mappings) or
    # None (sequences), keys seen, block column outside it, start mark if flow].
    stack: list[list] = []
    block_col = -1  # column of the innermost block collection; flow lines must be deeper
    spans: list[int] | None = [] if careful else None  # scalar start, end, start, end, ...
    root: Any = None
    done = False
    documents = 0
    nodes = 0
    last_scalar = None
    ScalarEvent, AliasEvent = yaml.ScalarEvent, yaml.AliasEvent
    MappingStartEvent, SequenceStartEvent = yaml.MappingStartEvent, yaml.SequenceStartEvent
    CollectionEnd = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
    get_event = parser.get_event
    while True:
        event = get_event()
        kind = type(event)
        if kind is ScalarEvent:
            nodes += 1
            start = event.start_mark
            if event.anchor is not None:
                raise _fail(source, start, f"anchors (&{event.anchor}) are not allowed")
            if event.tag is not None:
                raise _fail(source, start, f"tags such as {event.tag!r} are not allowed")
            raw = event.value
            if len(raw) > MAX_STRING:
                raise _fail(source, start,
                            f"a string of {len(raw)} characters is longer than the limit of {MAX_STRING}")
            style = event.style
            end = event.end_mark
            if not style:
                try:
                    value = _plain(raw)
                except _Refused as refused:
                    if refused.number is not None and not (stack and stack[-1][1] is _NO_KEY):   # not a key
                        path = tuple(len(f[0]) if f[1] is None else f[1] for f in stack)
                        raise NumberRefused(f"{source}, line {start.line + 1}", refused.number, raw, path) from None
                    raise _fail(source, start, str(refused)) from None
            else:
                value = raw
                if style == '"' and _SURROGATE.search(raw):
                    raise _fail(source, start, _SURROGATE_ESCAPE)
            if style == "|" or style == ">":
                _check_block_scalar(text, source, lines, start, end, block_col)
            elif start.line != end.line:
                if not style and stack and stack[-1][4] is not None and stack[-1][1] is not _NO_KEY \
                        and _left_open(yaml, get_event):
                    raise _fail(source, start, _runs_on(lines, stack[-1], start))
                raise _fail(source, start, "a plain or quoted value must be on one line; write longer text as a "
                            "block scalar (| or >)")
            if careful:
                spans.append(start.index)
                spans.append(end.index)
            last_scalar = event
            if not stack:
                root, done = value, True
                continue
            frame = stack[-1]
            pending = frame[1]
            if pending is None:
                frame[0].append(value)
            elif pending is _NO_KEY:
                _check_key(text, source, frame, value, event)
            else:
                frame[0][pending] = value
                frame[1] = _NO_KEY
            if nodes > MAX_NODES:
                raise _fail(source, start, f"the document has more than {MAX_NODES} nodes")
            continue
        if kind in CollectionEnd:
            frame = stack.pop()
            block_col = frame[3]
            value = frame[0]
            if frame[4] is not None and (not stack or stack[-1][4] is None):  # outermost flow ends
                if event.start_mark.line != frame[4].line:
                    _check_flow_lines(source, lines, frame[4].line, event.start_mark, block_col)
            if not stack:
                root, done = value, True
                continue
            parent = stack[-1]
            if parent[1] is None:
                parent[0].append(value)
            else:
                parent[0][parent[1]] = value
                parent[1] = _NO_KEY
            continue
        if kind is MappingStartEvent or kind is SequenceStartEvent:
            nodes += 1
            start = event.start_mark
            if event.anchor is not None:
                raise _fail(source, start, f"anchors (&{event.anchor}) are not allowed")
            if event.tag is not None:
                raise _fail(source, start, f"tags such as {event.tag!r} are not allowed")
            if nodes > MAX_NODES:
                raise _fail(source, start, f"the document has more than {MAX_NODES} nodes")
            if len(stack) >= MAX_DEPTH:
                raise _fail(source, start, f"the document is nested deeper than {MAX_DEPTH} levels")
            is_map = kind is MappingStartEvent
            if stack and stack[-1][1] is _NO_KEY:
                raise _fail(source, start,
                            f"mapping keys must be strings, not {'a mapping' if is_map else 'a list'}")
            flow = event.flow_style
            if flow:
                if is_map and text[start.index] != "{":
                    raise _fail(source, start, "a key: value pair inside [ ] must be written inside { }")
                flow_mark = start if (not stack or stack[-1][4] is None) else stack[-1][4]
            else:
                flow_mark = None
            if is_map:
                stack.append([{}, _NO_KEY, set(), block_col, flow_mark])
            else:
                stack.append([[], None, None, block_col, flow_mark])
            if not flow:
                block_col = start.column
            continue
        if kind is AliasEvent:
            raise _fail(source, event.start_mark, f"aliases (*{event.anchor}) are not allowed")
        if kind is yaml.DocumentStartEvent:
            documents += 1
            if documents > 1:
                raise _fail(source, event.start_mark, "the file holds more than one YAML document")
            directive = _DIRECTIVE.search(text, 0, event.end_mark.index) if event.explicit else None
            if event.version is not None or event.tags or directive is not None:
                line = _line_of(text, directive.start()) if directive is not None else event.start_mark.line + 1
                raise InputError(f"{source}, line {line}: directives (%YAML, %TAG) are not allowed")
            continue
        if kind is yaml.DocumentEndEvent:
            if event.explicit and not _AFTER_END.fullmatch(text, event.end_mark.index):
                raise _fail(source, event.start_mark, "only comments may follow the end of the document (...)")
            continue
        if kind is yaml.StreamEndEvent or event is None:
            break
        # StreamStart needs nothing.
    if not done:
        raise InputError(f"{source}: the file holds no YAML document")
    if last_scalar is not None and last_scalar.style in ("|", ">") and not text.endswith("\n") \
            and last_scalar.end_mark.index >= len(text):
        raise _fail(source, last_scalar.start_mark,
                    "a block scalar (| or >) that ends the file must end with a line break")
    if careful:
        _check_suspects(text, source, spans)
    return root


def _left_open(yaml: Any, get_event: Any) -> bool:
    """Whether the parser, read on past a plain value inside [ ] or { } that runs on to the
    next line, finds no `,` or closing bracket for the collection holding it: a bracket left
    open rather than a value written on two lines. Only to choose the message; the value is
    refused either way."""
    depth = 0
    try:
        while True:
            event = get_event()
            if event is None or isinstance(event, yaml.StreamEndEvent):
                return False
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                if depth == 0:
                    return False
                depth -= 1
    except yaml.YAMLError as exc:
        return (getattr(exc, "problem", None) or "").startswith("did not find expected ','")


def _runs_on(lines: _Lines, frame: list, start: Any) -> str:
    """The message for a plain value inside [ ] or { } that runs on to the next line because
    the `,` or the closing bracket after it is missing."""
    opening, closing = ("{", "}") if isinstance(frame[0], dict) else ("[", "]")
    where = "opened on this line" if frame[4].line == start.line else "opened before it"
    word = lines.get(start.line)[start.column:].rstrip(" \t")
    word = word if len(word) <= 40 else word[:40] + "..."   # a hostile line is not echoed whole
    return f"the `{opening}` {where} is not closed after {word!r} (expected `,` or `{closing}`)"


def _check_key(text: str, source: str, frame: list, key: Any, event: Any) -> None:
    if not isinstance(key, str):
        if key is None and not event.value:
            raise _fail(source, event.start_mark, "a mapping entry has no key")
        raise _fail(source, event.start_mark,
                    f"mapping keys must be strings, not {_type_name(key)} ({event.value}); quote it")
    if frame[4] is not None:  # in a flow mapping: "key: value", the ':' after the key on its line
        end = event.end_mark.index
        if not _FLOW_COLON.match(text, end):
            rest = text[end:].lstrip(" ")
            if rest.startswith(":"):
                problem = "the ':' after a key must be followed by a space"
            elif not rest or rest[0] in "\n#":
                problem = "a key and its ':' must be on one line"
            else:
                problem = "every entry inside { } must be a key, ':' and a value"
            raise _fail(source, event.start_mark, problem)
    seen = frame[2]
    if key in seen:
        raise _fail(source, event.start_mark, f"the key {key!r} appears twice in one mapping")
    seen.add(key)
    frame[1] = key


def _check_flow_lines(source: str, lines: _Lines, first: int, end: Any, block_col: int) -> None:
    """The lines after the first of a flow collection are indented deeper than the block
    collection it is in (YAML 1.2 §7.1; LibYAML does not check), comment lines too and
    those by at least one space (readers disagree on comments at the left margin there)."""
    for number in range(first + 1, end.line + 1):
        line = lines.get(number)
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        if not body or (indent > block_col and (indent or body[0] != "#")):
            continue
        if body[0] == "#":
            raise InputError(f"{source}, line {number + 1}: a comment inside [ ] or {{ }} must be indented at "
                             f"least {_spaces(max(block_col + 1, 1))}")
        raise InputError(f"{source}, line {number + 1}: a line inside [ ] or {{ }} must be indented at least "
                         f"{_spaces(block_col + 1)}, more than the key or '-' the collection belongs to")


def _check_block_scalar(text: str, source: str, lines: _Lines, start: Any, end: Any, block_col: int) -> None:
    header = _BLOCK_HEADER.match(text, start.index)
    where = f"{source}, line {start.line + 1}"
    if header is None:  # the parser placed the scalar elsewhere than its | or >
        raise InputError(f"{where}: a block scalar must begin with | or >")
    indicators, rest = header.group(1), header.group(2)
    if start.column <= block_col:
        raise InputError(f"{where}: the {header.group()[0]} of a block scalar must be indented more than the key or "
                         "'-' it belongs to")
    if "+" in indicators:
        raise InputError(f"{where}: keep chomping (|+ or >+) is not allowed, as YAML readers disagree on "
                         "the line breaks it keeps; use | or |-")
    if indicators.strip("-"):
        raise InputError(f"{where}: an indentation indicator after | or > is not allowed; let the first line set "
                         "the indentation")
    if rest and not re.fullmatch(r"[ \t]+(#.*)?", rest):
        if rest.startswith("#"):
            raise InputError(f"{where}: a comment must be preceded by a space")
        raise InputError(f"{where}: only a comment may follow {header.group()[0]}{indicators} on its line")
    last = end.line if end.column else end.line - 1
    indent = None
    for number in range(start.line + 1, last + 1):
        line = lines.get(number)
        body = line.lstrip(" ")
        if body:
            indent = len(line) - len(body)
            break
    if indent is None and block_col < 0 and not _AFTER_TOP_BLOCK.match(text, end.index):
        raise InputError(f"{where}: a block scalar at the top level with no indented text may be followed only by "
                         "blank lines and the end marker ... (a line at the left margin would be its text)")
    minimum = max(block_col + 1, 1)
    if indent is not None and indent < minimum:
        raise InputError(f"{source}, line {number + 1}: the lines of a block scalar must be indented at least "
                         f"{_spaces(minimum)}")
    for number in range(start.line + 1, last + 1):
        line = lines.get(number)
        if line and not line.strip(" ") and len(line) > (indent or 0):
            if indent is None:
                raise InputError(f"{source}, line {number + 1}: a block scalar with no text may not hold a line "
                                 "of spaces")
            raise InputError(f"{source}, line {number + 1}: a line of only spaces in a block scalar may not be "
                             f"longer than the block's indentation ({_spaces(indent)})")


def _span_end(spans: list[int], index: int) -> int:
    """The end of the scalar whose [start, end) pairs in `spans` hold `index`, else -1."""
    at = bisect.bisect_right(spans, index)
    return spans[at] if at % 2 == 1 and at < len(spans) and index < spans[at] else -1


def _first_suspect_problem(text: str, spans: list[int], limit: int) -> tuple[int, str] | None:
    """The first tab, '?' or glued '#' before `limit` that breaks a rule, given the spans
    of the scalars parsed: (index, problem) or None. Linear in the text: each scalar and
    comment is passed over once."""
    position = 0
    while True:
        match = _SUSPECT.search(text, position, limit)
        if match is None:
            return None
        index = match.start()
        end = _span_end(spans, index)
        if end >= 0:  # in a scalar: its text
            position = end
            continue
        line_end = text.find("\n", index)
        line_end = len(text) if line_end < 0 else line_end
        char = text[index]
        if char == "#":
            if index == 0 or text[index - 1] in " \t\n":  # a comment, to the end of its line
                position = line_end
                continue
            return index, "a comment must be preceded by a space"
        if char == "?":
            return index, "explicit keys ('? key') are not allowed; write key: value"
        rest = text[index:line_end].lstrip(" \t")
        if rest and rest[0] != "#":
            return index, "a tab may stand only inside a scalar or a comment, or at the end of a line; use spaces"
        line_start = text.rfind("\n", 0, index) + 1
        before = index
        while before > line_start and text[before - 1] in " \t":
            before -= 1
        if before > line_start and text[before - 1] == "-" and _span_end(spans, before - 1) < 0 \
                and not (before == line_start + 3 and text.startswith("---", line_start)):
            return index, "a tab may not follow the '-' of a list entry; use spaces"
        position = line_end  # the rest of the line is blank or a comment


def _check_suspects(text: str, source: str, spans: list[int]) -> None:
    found = _first_suspect_problem(text, spans, len(text))
    if found is not None:
        raise InputError(f"{source}, line {_line_of(text, found[0])}: {found[1]}")


# --- explaining a parser error --------------------------------------------------------------

_BLANK = ("", " ", "\t", "\n")
_CONTEXTS = [
    ("anchor", "anchors (&name) are not allowed"),
    ("alias", "aliases (*name) are not allowed"),
    ("tag", "tags (!name) are not allowed"),
    ("directive", "directives (%YAML, %TAG) are not allowed"),
]


# the HTML entities a page writes for a packet's characters (quotes, <, >, &, a non-breaking space)
_ENTITY = LazyPattern(r"&(?:quot|apos|amp|lt|gt|nbsp|#[0-9]{2,5}|#x[0-9A-Fa-f]{2,4});")
WRAPPED = 80   # the longest line a file whose long lines a mail program wrapped holds (78, most often)


def _quoted(text: str, source: str, error: InputError) -> InputError:
    """`error` for a file the parser or pbem's subset refused, with a first sentence for a
    file a mail client quoted in a reply (most lines begin with `>`), or a packet pasted into
    the text of a mail (other lines before its first or after its signature): what to do."""
    where = re.match(re.escape(source) + r"(, line [0-9]+)?: ", error.message)
    if where is None:
        return error
    all_lines = text.split("\n")
    lines = [line for line in all_lines if line.strip()]
    tag = _FORUM_TAG.search(text)
    if tag is not None:
        # a packet (or orders) copied from a forum post with its markup (a reply's quote, the
        # source of a code block): the YAML error alone names a comment or a list key (an
        # audience's probe), and the line it names is not the tag's (a new user's probe)
        line = text.count("\n", 0, tag.start() + len(tag.group()) - len(tag.group().lstrip())) + 1
        return InputError(f"{source}, line {line}: the file holds forum markup ([code], [quote] or their closing "
                          f"tags): remove the tags and keep only what stands between them, or save the file attached "
                          f"to the post; the YAML error{where.group(1) or ''}: {error.message[where.end():]}")
    entity = _ENTITY.search(text)
    if entity is not None:
        # a packet copied from a web page's source, or a web mail's, has its quotes written as
        # `&quot;`, which YAML reads as an anchor (a referee's probe: "anchors (&name) are not allowed")
        why = (f"the file holds HTML entities ({entity.group()}) where the packet has characters, as a forum's or a web "
               f"mail's page writes them: save the packet attachment itself, unchanged, or copy it from the post as "
               f"the page shows it")
    elif lines and 2 * sum(line.lstrip().startswith(">") for line in lines) > len(lines):
        why = ("the file looks quoted by a mail client (its lines begin with \">\"): save the packet attachment "
               "itself, or remove the \"> \" quoting")
    elif (any(line.startswith("# pbem packet ") for line in all_lines) and max(map(len, all_lines)) <= WRAPPED
          and "signature:" in all_lines):   # a packet cut short before its signature is not wrapped (a referee's probe)
        # a packet's signature is one line of hundreds of characters: a packet without a long line
        # was wrapped by a mail program, and the YAML error alone does not say why (a players' probe)
        why = (f"the packet's long lines look wrapped, as a mail program wraps lines at about {WRAPPED} characters: "
               "save the packet attachment itself, unchanged, or send it as an attachment")
    elif signature_cut(text):
        # wrapped wider than a mail program's 80 columns, only the signature's line is long enough
        # to be cut; the YAML error then spoke of block scalars (a new user's probe)
        why = ("the packet's signature value is cut over several lines, as a program that wraps long lines cuts it: "
               "save the packet attachment itself, unchanged, or send it as an attachment")
    else:
        if pasted(text, source) is None:
            return error
        return InputError(f"{source}: {PASTED}; the YAML error{where.group(1) or ''}: {error.message[where.end():]}")
    return InputError(f"{where.group()}{why}; the YAML error: {error.message[where.end():]}")


PASTED = ("the file holds a packet with other text before or after it, as when a packet is pasted into a mail or a "
          "forum post: save the packet attachment itself, unchanged, or keep only its lines, from \"# pbem packet\" to "
          "its signature's value")
# the BBCode a forum wraps a post's code block or a quoted reply in ([code], [quote="bob"], [/quote]),
# at the start or the end of a line, where a copy of the post brings it
_TAG = r"\[/?(?:code|quote)(?:=[^\]\n]*)?\]"
_FORUM_TAG = LazyPattern(rf"^\s*{_TAG}|{_TAG}\s*$", re.IGNORECASE | re.MULTILINE)


def forum_markup(text: str) -> bool:
    """Whether `text` holds a forum's [code] or [quote] tag (or a closing one) at the start or
    the end of a line, as a copy of a post brings them."""
    return _FORUM_TAG.search(text) is not None


def pasted(text: str, source: str) -> Any:
    """The packet `text` holds, read from its own lines, from its "# pbem packet" head to its
    signature's value, where other text (not comments) stands before or after them, as in a
    mail; else None."""
    all_lines = text.split("\n")
    head = next((n for n, line in enumerate(all_lines) if line.startswith("# pbem packet ")), None)
    last = max((n for n, line in enumerate(all_lines) if line.startswith('  value: "U1NIU0lH')), default=None)
    if head is None or last is None or last < head:
        return None
    if not [line for line in all_lines[:head] + all_lines[last + 1:] if line.strip() and not line.startswith("#")]:
        return None
    try:     # only where the packet's own lines are a whole packet: else the packet itself is broken
        return loads("\n".join(all_lines[head:last + 1]) + "\n", source)
    except InputError:
        return None


def signature_cut(text: str) -> bool:
    """Whether the one long line of a packet's signature value (`  value: "U1NIU0lH...`, which
    pbem writes whole, ending in its closing quote) was cut over several lines: it does not end
    in its quote, and a later line does (a file that ends inside the value was cut short, not
    wrapped: a review)."""
    lines = [line.rstrip(" \t\r") for line in text.split("\n")]
    quotes = ('"', "\u201c", "\u201d")
    return any(line.startswith('  value: "U1NIU0lH') and not line.endswith(quotes)
               and any(later.endswith(quotes) for later in lines[n + 1:])
               for n, line in enumerate(lines))


# a typographic quote where pbem writes `"`: after a key's colon or a list's dash, or ending a line
_CURLY = LazyPattern("(?:: |^ *- )[\u201c\u201d\u201e\u2018\u2019]|[\u201c\u201d\u2018\u2019][ \t\r]*$", re.M)
CURLY = ("the packet's quotes were changed to typographic ones (\u201c \u201d), as a word processor, a mail program "
         "or a forum changes them: save the packet attachment itself, unchanged, or copy it from the post's code block")


def quotes_changed(text: str) -> bool:
    """Whether typographic quotes stand where pbem writes `"` (a quote a player wrote inside a
    string stands between pbem's own quotes, never there)."""
    return _CURLY.search(text) is not None


INDENTATION = ("the packet's indentation was changed, as a forum or mail program may change it ({how}): save the "
               "packet attached to the post or mail, unchanged, or copy it from the post's code block, which keeps "
               "its spaces")
_INDENTED = ("key: ", "value: ", "namespace: ")   # a signature's fields, two spaces in under `signature:`


def indentation_changed(text: str) -> str | None:
    """How a forum or a mail program changed the indentation of the packet `text` is, where
    the text shows it: non-breaking spaces at the start of lines, where pbem writes spaces, or
    the lines under `signature:` moved to the left margin (every line then is, as a forum that
    drops leading spaces leaves it); else None, and None for a text that holds no packet's lines.
    Only to explain a refusal: the text is never read otherwise than as it stands."""
    lines = [line.rstrip(" \t\r") for line in text.split("\n")]
    if "signature:" not in lines or not any(line.startswith("pbem: ") for line in lines):
        return None
    if any(line.startswith("\u00a0") for line in lines):
        return "non-breaking spaces where it has spaces"
    after = lines[lines.index("signature:") + 1:][:1]
    if after and after[0].startswith(_INDENTED):
        return "its indented lines moved to the left margin"
    return None


def _explain(text: str, source: str, exc: yaml.YAMLError) -> InputError:
    """An InputError for a file the parser refused: the rule of pbem's subset it breaks
    where one does (LibYAML refuses some valid YAML, always outside the subset), else the
    parser's own words."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None) or ""
    if "nesting depth" in problem:  # newer LibYAML stops deep nesting itself
        return _fail(source, mark, f"the document is nested deeper than {MAX_DEPTH} levels")
    if "Unicode character escape" in problem:
        return _fail(source, mark, _SURROGATE_ESCAPE)
    limit = len(text)
    if mark is not None and text.find("\n", mark.index) >= 0:
        limit = text.find("\n", mark.index)
    found = _diagnose(text, limit)
    context_mark = getattr(exc, "context_mark", None)
    for word, message in _CONTEXTS:
        if f"scanning an {word}" in context or f"scanning a {word}" in context:
            if found is None or context_mark is None or context_mark.index < found[0]:
                return _fail(source, context_mark or mark, message)
    if found is not None:
        return InputError(f"{source}, line {_line_of(text, found[0])}: {found[1]}")
    if mark is not None and text.startswith(":", mark.index) and text[mark.index + 1:mark.index + 2] not in _BLANK:
        return _fail(source, mark, "the ':' after a key must be followed by a space")  # LibYAML refuses x:, x:}
    return _unclosed(text, source, exc) or _fail(source, mark, f"the YAML is malformed or truncated ({problem})")


def _unclosed(text: str, source: str, exc: yaml.YAMLError) -> InputError | None:
    """The refusal of a `[` or `{` the parser found no `,` or closing bracket after, naming
    the bracket (only the message; the text is refused either way); None for another fault."""
    mark, opened = getattr(exc, "problem_mark", None), getattr(exc, "context_mark", None)
    if mark is None or opened is None or not (getattr(exc, "context", None) or "").startswith("while parsing a flow "):
        return None
    opening = text[opened.index:opened.index + 1]
    closing = {"{": "}", "[": "]"}.get(opening)
    if closing is None or getattr(exc, "problem", None) != f"did not find expected ',' or '{closing}'":
        return None
    if all(not line.strip(" \t") or line.lstrip(" \t").startswith("#") for line in text[mark.index:].split("\n")):
        return _fail(source, opened,
                     f"the `{opening}` opened on this line is never closed (expected `,` or `{closing}`)")
    where = "this line" if opened.line == mark.line else f"line {opened.line + 1}"
    return _fail(source, mark, f"expected `,` or `{closing}` here: the `{opening}` opened on {where} is not closed")


def _diagnose(text: str, limit: int) -> tuple[int, str] | None:
    """The first break of pbem's subset up to index `limit`, read from the parser's tokens
    up to where it stopped, as (index, problem); None if there is none."""
    found: list[tuple[int, str]] = []
    spans: list[int] = []
    depth = 0
    document_start = -1  # index of the first '---'
    content = False  # whether a node has begun
    older = before = None
    yaml = _yaml()
    scanner = _parser_class(yaml)(text)
    try:
        while True:
            token = scanner.get_token()
            if token is None or isinstance(token, yaml.StreamEndToken):
                break
            start = token.start_mark.index
            if isinstance(before, yaml.DocumentEndToken) and not isinstance(token, yaml.DocumentStartToken):
                found.append((start, "only comments may follow the end of the document (...)"))
            if isinstance(before, yaml.ScalarToken) and before.style in ("|", ">") and depth == 0 \
                    and not isinstance(token, (yaml.DocumentStartToken, yaml.DocumentEndToken)):
                found.append((start, "the lines of a block scalar must be indented at least 1 space"))
            if isinstance(token, (yaml.BlockMappingStartToken, yaml.BlockSequenceStartToken,
                                  yaml.FlowMappingStartToken, yaml.FlowSequenceStartToken)):
                depth += 1
            elif isinstance(token, (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)):
                depth -= 1
            if isinstance(token, yaml.DirectiveToken):
                found.append((start, "directives (%YAML, %TAG) are not allowed"))
            elif isinstance(token, yaml.AnchorToken):
                found.append((start, "anchors (&name) are not allowed"))
            elif isinstance(token, yaml.AliasToken):
                found.append((start, "aliases (*name) are not allowed"))
            elif isinstance(token, yaml.TagToken):
                found.append((start, "tags (!name) are not allowed"))
            elif isinstance(token, yaml.KeyToken) and text.startswith("?", start):
                found.append((start, "explicit keys ('? key') are not allowed; write key: value"))
            elif isinstance(token, yaml.ValueToken):
                found.extend(_value_problems(text, token, before, older))
            elif isinstance(token, yaml.ScalarToken):
                spans += (start, token.end_mark.index)
                if token.plain and token.value[:1] in ("?", ":"):
                    found.append((start, f"a plain value may not begin with '{token.value[0]}'; quote it"))
            elif isinstance(token, yaml.DocumentStartToken) and document_start < 0:
                document_start = start
            elif isinstance(token, yaml.DocumentEndToken) and not content and document_start < 0:
                found.append((start, "the file holds no YAML document"))
            if not isinstance(token, (yaml.StreamStartToken, yaml.DocumentStartToken, yaml.DocumentEndToken,
                                      yaml.DirectiveToken)):
                content = True
            older, before = before, token
            if found or start > limit:
                break
    except yaml.YAMLError:
        pass
    suspect = _first_suspect_problem(text, spans, limit)
    if suspect is not None:
        found.append(suspect)
    for match in _DIRECTIVE.finditer(text, 0, limit if document_start < 0 else min(limit, document_start)):
        if _span_end(spans, match.start()) < 0:
            found.append((match.start(), "directives (%YAML, %TAG) are not allowed"))
            break
    found = [item for item in found if item[0] <= limit]
    return min(found) if found else None


def _value_problems(text: str, token: Any, before: Any, older: Any) -> list[tuple[int, str]]:
    """What is wrong with the ':' of `token`, given the two tokens before it."""
    start = token.start_mark.index
    after = text[start + 1:start + 2]
    glued = after not in _BLANK
    if glued and after not in ",]}" and (start == 0 or text[start - 1] in " \n[{,"):
        return [(start, "a plain value may not begin with ':'; quote it")]
    problems = [(start, "the ':' after a key must be followed by a space")] if glued else []
    yaml = _yaml()
    if isinstance(before, yaml.ScalarToken) and isinstance(older, yaml.ValueToken):
        problems.append((start, "a mapping entry has no key"))
    elif isinstance(before, yaml.ScalarToken):
        if before.start_mark.line != before.end_mark.line:
            problems.append((before.start_mark.index, "a mapping key must be on one line"))
        elif before.end_mark.line != token.start_mark.line:
            problems.append((start, "a key and its ':' must be on one line"))
    elif isinstance(before, (yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)):
        problems.append((start, "mapping keys must be strings, not a mapping or a list"))
    elif not isinstance(before, yaml.KeyToken):
        problems.append((start, "a mapping entry has no key"))
    return problems


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    names = {bool: "a boolean", int: "an integer", list: "a list", dict: "a mapping"}
    return names.get(type(value), type(value).__name__)


def _read_up_to(fd: int, count: int) -> bytes:
    """Up to `count` bytes from `fd`, fewer only at the end of the file."""
    import os

    parts, got = [], 0
    while got < count:
        part = os.read(fd, count - got)
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def read_bounded(path: str | Path, source: str | None = None) -> bytes:
    """A file's bytes, refusing one over the file limit without reading it all (however
    large or sparse it is), and anything but a regular file without waiting on it (a named
    pipe in a folder sent to a referee: opening it to read would wait for a writer for ever);
    I/O problems are FileErrors naming it."""
    import os
    import stat

    from pbem.core.errors import FileError

    name = source or str(path)
    try:
        # O_NONBLOCK: opening a pipe returns at once; what was opened is then known by its
        # descriptor, so nothing can be put in its place between a look and the read
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
        try:
            status = os.fstat(fd)
        except OSError:
            os.close(fd)
            raise
        if not stat.S_ISREG(status.st_mode):
            os.close(fd)
            raise FileError(f"{name}: is a folder, not a file" if stat.S_ISDIR(status.st_mode) else
                            f"{name}: is not a regular file but {_kind(status.st_mode)}")
        try:
            size = status.st_size
            # as many bytes as the file has and one more (a file that grows as it is read
            # is read on, to the limit): asking for the whole limit at once would allocate
            # and free 4 MB for every small file. Read from the descriptor itself: a buffered
            # file object around it costs three times the read of a state file.
            data = _read_up_to(fd, min(size, MAX_BYTES) + 1)
            if len(data) > size:
                data += _read_up_to(fd, MAX_BYTES + 1 - len(data))
        finally:
            os.close(fd)
    except FileNotFoundError:
        raise FileError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise FileError(f"{name}: is a folder, not a file") from None
    except OSError as exc:
        raise FileError(f"{name}: cannot be read ({exc.strerror})") from None
    if len(data) > MAX_BYTES:
        raise InputError(f"{name}: the file is {max(size, len(data))} bytes, over the limit of {MAX_BYTES}")
    return data


def _kind(mode: int) -> str:
    """What a file that is neither regular nor a folder is, in words (a socket cannot be
    opened at all: `cannot be read`)."""
    import stat

    return ("a named pipe" if stat.S_ISFIFO(mode) else
            "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a special file")


def load_file(path: str | Path, source: str | None = None) -> Any:
    """Read and strictly parse a YAML file; I/O problems are FileErrors naming it (`source`,
    or its path, with any line break escaped: a file's name came with the mail too, and an
    error of pbem's must not print a line of its making; a hostile-input review)."""
    label = _label(path, source)
    return loads(read_bounded(path, label), label)


def load_mapping(path: str | Path, source: str | None = None) -> dict:
    return mapping_of(load_file(path, source), path, source)


def mapping_of(doc: Any, path: str | Path, source: str | None = None) -> dict:
    """`doc`, read from the file `path`, if it is a mapping; else the refusal naming the file."""
    if not isinstance(doc, dict):
        raise InputError(f"{_label(path, source)}: the file must hold a mapping (key: value lines), not "
                         f"{_type_name(doc)}")
    return doc


def _label(path: str | Path, source: str | None) -> str:
    from pbem.core.text import shown

    return shown(source or str(path))


def canonical(obj: Any) -> bytes:
    """Canonical bytes (RFC 8785 restricted to str, int, bool, null, list, mapping)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def digest(domain: bytes, obj: Any) -> str:
    """Hex SHA-256 of a domain prefix line and the canonical bytes of `obj`."""
    return digest_of(domain, canonical(obj))


def digest_of(domain: bytes, data: bytes) -> str:
    """`digest` of an object whose canonical bytes `data` the caller has made already."""
    return sha256(domain + data).hexdigest()


LINE_WIDTH = 100


def dumps(obj: Any) -> str:
    """YAML text for humans that loads back (strictly) to exactly `obj`: sorted keys;
    block style, except that a mapping or list that fits on its line whole is written
    there in flow style (`LW/I: {hex: "3320", str: 3}`); strings plain where the strict
    loader reads them back as the same string and JSON-quoted otherwise (a JSON string is
    a valid YAML double-quoted scalar)."""
    lines: list[str] = []
    if isinstance(obj, (dict, list)) and obj:
        _emit(obj, 0, lines, {})
    else:
        lines.append(_flow_text(obj))
    return "\n".join(lines) + "\n"


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.@/+-]*\Z")
# Characters YAML reads as line breaks or refuses raw; JSON leaves them unescaped.
_UNSAFE = LazyPattern("[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]")   # unprintable, each


def scalar_text(value: Any) -> str:
    kind = type(value)
    if kind is str:   # most scalars of a state: ids and words, which repeat
        text = _STRINGS.get(value)
        if text is None:
            text = _string_text(value)
            if len(_STRINGS) > 20_000:  # keep the memo bounded
                _STRINGS.clear()
            _STRINGS[value] = text
        return text
    if kind is int:
        if -MAX_INT <= value <= MAX_INT:
            return str(value)
        raise ValueError(f"cannot write the integer {value} to a pbem file: it is beyond ±2^53−1")
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    raise TypeError(f"cannot write {type(value).__name__} {value!r} to a pbem file")


_STRINGS: dict[str, str] = {}


def _string_text(value: str) -> str:
    if _PLAIN.match(value) and is_plain_string(value):
        return value
    try:
        value.encode("utf-8")   # refuses exactly the surrogates U+D800..U+DFFF
    except UnicodeEncodeError:
        raise ValueError(f"cannot write {value!r} to a pbem file: it holds a lone surrogate") from None
    text = json.dumps(value, ensure_ascii=False)
    return text if text.isprintable() else _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _flow_text(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{scalar_text(k)}: {_flow_text(value[k])}" for k in sorted(value)) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow_text(v) for v in value) + "]"
    return scalar_text(value)


def _flow_within(value: Any, memo: dict[int, str | None]) -> str | None:
    """`value` in flow style, or None if it takes more than a line's LINE_WIDTH characters,
    built in one pass that stops as soon as it is too long (so a large collection is never
    written out whole). A collection's text is kept in `memo` (one `dumps`, whose value holds
    every collection alive, so their ids stay theirs): a collection too long for its line is
    written in block style, and the flow texts of its items, built while trying the whole,
    are what its lines hold. Strings written before are looked up in `_STRINGS` here rather
    than through `scalar_text`: every state and packet written or read goes through this loop."""
    kind = type(value)
    if kind is not dict and kind is not list:
        return scalar_text(value)
    if not value:
        return "{}" if kind is dict else "[]"
    known = memo.get(id(value), memo)
    if known is not memo:
        return known
    room = LINE_WIDTH - 2
    parts = []
    strings = _STRINGS
    mapping = kind is dict
    for entry in sorted(value) if mapping else value:   # a mapping's keys, or a list's items
        item = value[entry] if mapping else entry
        of = type(item)
        if of is str:
            text = strings.get(item) or scalar_text(item)
        elif of is dict or of is list:
            text = _flow_within(item, memo)
            if text is None:
                memo[id(value)] = None
                return None
        else:
            text = scalar_text(item)
        if mapping:
            text = (strings.get(entry) or scalar_text(entry)) + ": " + text
        room -= len(text) + 2
        if room < -2:
            memo[id(value)] = None
            return None
        parts.append(text)
    text = "{" + ", ".join(parts) + "}" if mapping else "[" + ", ".join(parts) + "]"
    memo[id(value)] = text
    return text


def _fits(value: Any, room: int, memo: dict[int, str | None]) -> str | None:
    """`value` in flow style, if it takes at most `room` characters (room < LINE_WIDTH); an
    empty collection always, as `[]` or `{}` on its key's line however long the key: block
    style has no way to write it."""
    text = _flow_within(value, memo)
    return text if text is not None and (len(text) <= room or not value) else None


def _emit(obj: Any, indent: int, lines: list[str], memo: dict[int, str | None]) -> None:
    pad = " " * indent
    if isinstance(obj, dict):
        strings = _STRINGS
        for key in sorted(obj):
            value = obj[key]
            head = f"{pad}{strings.get(key) or scalar_text(key)}:"
            of = type(value)
            if of is not dict and of is not list:    # most entries: a scalar on its key's line
                lines.append(f"{head} {(strings.get(value) if of is str else None) or scalar_text(value)}")
                continue
            flow = _fits(value, LINE_WIDTH - len(head) - 1, memo)   # None: too long, so not empty
            if flow is not None:
                lines.append(f"{head} {flow}")
            elif of is list and not any(isinstance(v, (dict, list)) for v in value):
                _wrap(head, value, indent + 2, lines)
            else:
                lines.append(head)
                _emit(value, indent + 2 if of is dict else indent, lines, memo)
        return
    for item in obj:
        flow = _fits(item, LINE_WIDTH - indent - 2, memo) if isinstance(item, (dict, list)) else None
        if flow is None and isinstance(item, (dict, list)) and item:
            sub: list[str] = []
            _emit(item, indent + 2, sub, memo)
            first = sub[0]
            lines.append(f"{pad}- {first[indent + 2:]}")
            lines.extend(sub[1:])
        else:
            lines.append(f"{pad}- {flow if flow is not None else _flow_text(item)}")


def _wrap(head: str, items: list, indent: int, lines: list[str]) -> None:
    """A long list of scalars in flow style over several lines, each line after the first
    indented deeper than its key: `key: [a, b,` / `  c, d]`."""
    strings = _STRINGS
    texts = [((strings.get(item) if type(item) is str else None) or scalar_text(item)) + "," for item in items]
    texts[-1] = texts[-1][:-1] + "]"
    pad = " " * indent
    line = [f"{head} [{texts[0]}"]   # the first item goes on the key's line, however long
    width = len(line[0])
    for text in texts[1:]:
        if width + 1 + len(text) > LINE_WIDTH:
            lines.append(" ".join(line))
            line, width = [pad + text], indent + len(text)
        else:
            line.append(text)
            width += 1 + len(text)
    lines.append(" ".join(line))


# --- where two values differ -------------------------------------------------------------------

def first_difference(expected: Any, found: Any) -> tuple[str, Any, Any] | None:
    """The first field (in sorted order) where two JSON-like values differ."""
    return next(differences(expected, found), None)


# What `differences` may give for a field one of two values lacks, where "(absent)" could be a
# value a file holds (a scenario's text, a signature): no value read from any file is it.
ABSENT = object()


def differences(expected: Any, found: Any, path: str = "", absent: Any = "(absent)") -> Iterator[tuple[str, Any, Any]]:
    """Every field where two JSON-like values differ, in sorted order: its path, the value
    expected and the value found; `absent` stands for the value of a field one of them lacks
    (a caller that must tell it from a string "(absent)" gives an object of its own)."""
    if type(expected) is not type(found):
        yield path or "(top)", expected, found
    elif isinstance(expected, dict):
        for key in sorted(set(expected) | set(found)):
            sub = f"{path}.{key}" if path else key
            if key not in found:
                yield sub, expected[key], absent
            elif key not in expected:
                yield sub, absent, found[key]
            else:
                yield from differences(expected[key], found[key], sub, absent)
    elif isinstance(expected, list):
        for index, (want, got) in enumerate(zip(expected, found)):
            yield from differences(want, got, f"{path}[{index}]", absent)
        if len(expected) != len(found):
            yield f"{path} length", len(expected), len(found)
    elif expected != found:
        yield path or "(top)", expected, found
