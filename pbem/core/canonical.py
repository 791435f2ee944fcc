"""Strict YAML loading, canonical JSON bytes and domain-separated hashes (DESIGN §2.1).

The loader builds Python objects straight from the parser's event stream (LibYAML's C
parser where present), so that every rule below is checked in one pass with bounded
memory and the line of each offence is known:

- no anchors, aliases or tags (not even `!!str`); no duplicate keys; string keys only;
- a plain scalar is `null`, empty, `true`, `false`, an integer `-?(0|[1-9][0-9]*)` within
  ±(2^53−1), or a string that no YAML 1.1 or 1.2 reader takes for anything else:
  `NO`, `0139`, `1:30`, `1.5`, `~`, `2026-11-29`, `<<` and the like must be quoted;
- input size, nesting depth, node count and string length are limited.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import yaml

from pbem.core.errors import InputError

# LibYAML's parser is about eight times faster; the pure-Python one is the fallback.
_Parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 200_000
MAX_STRING = 256 * 1024
MAX_INT = 2**53 - 1

DOMAIN_GENESIS = b"pbem-genesis-v1\n"
DOMAIN_PACKET = b"pbem-packet-v1\n"
DOMAIN_STATE = b"pbem-state-v1\n"

# --- plain scalars ---------------------------------------------------------------------

_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")

# Plain scalars that some YAML 1.1 or 1.2 reader takes for something other than a string,
# from the resolvers of YAML 1.1 (yaml.org/type), YAML 1.2 (core and JSON schemas) and
# PyYAML's variants of the 1.1 ones. Each must be quoted to be a string.
_WORD_KINDS = {
    **dict.fromkeys("y Y yes Yes YES n N no No NO on On ON off Off OFF".split(), "a boolean by YAML 1.1 readers"),
    **dict.fromkeys("True TRUE False FALSE".split(), "a boolean by YAML 1.1 and 1.2 readers"),
    **dict.fromkeys("~ Null NULL".split(), "null by YAML 1.1 and 1.2 readers"),
    "<<": "the merge key by YAML 1.1 readers",
    "=": "the value key by YAML 1.1 readers",
}
_NUMBER_KINDS = [
    ("an integer", re.compile(r"""(?x)
        [-+]?0b[0-1_]+ | [-+]?0[0-7_]+ | [-+]?(?:0|[1-9][0-9_]*) | [-+]?0x[0-9a-fA-F_]+
      | [-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+                       # YAML 1.1
      | [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+                   # YAML 1.2 core
    """)),
    ("a float", re.compile(r"""(?x)
        [-+]?(?:[0-9][0-9_]*)?\.[0-9.]*(?:[eE][-+][0-9]+)?          # YAML 1.1
      | [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
      | [-+]?\.(?:inf|Inf|INF) | \.(?:nan|NaN|NAN)
      | [-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?               # PyYAML's YAML 1.1
      | \.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
      | [-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?    # YAML 1.2 core and JSON
    """)),
    ("a date or timestamp", re.compile(r"""(?x)
        [0-9]{4}-[0-9]{2}-[0-9]{2}
      | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?
        (?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?
    """)),
]
_NUMBER_START = frozenset("-+.0123456789")


class _Refused(Exception):
    """A scalar or line that breaks a rule; the caller adds the source and line."""


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
                raise _Refused(f"{value!r} could be read as {kind} by YAML 1.1 or 1.2 readers; quote it")
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


_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = ("a \\u escape names half of a surrogate pair, which is not a character; escape the character "
                     "itself, such as \\U0001F600")


def _fail(source: str, mark: Any, message: str) -> InputError:
    where = f"{source}, line {mark.line + 1}" if mark is not None else source
    return InputError(f"{where}: {message}")


def _scalar(event: Any, source: str) -> Any:
    value = event.value
    if event.tag is not None and event.tag != "!":
        raise _fail(source, event.start_mark, f"tags such as {event.tag!r} are not allowed")
    if len(value) > MAX_STRING:
        raise _fail(source, event.start_mark, f"a string of {len(value)} characters is longer than the limit of {MAX_STRING}")
    if not event.implicit[0]:  # quoted or block scalar: always a string
        if event.style == '"' and _SURROGATE.search(value):
            raise _fail(source, event.start_mark, _SURROGATE_ESCAPE)
        return value
    try:
        return _plain(value)
    except _Refused as refused:
        raise _fail(source, event.start_mark, str(refused)) from None


def loads(data: bytes | str, source: str = "<input>") -> Any:
    """Parse one YAML document strictly; raise InputError naming `source` and the line."""
    if isinstance(data, bytes):
        if len(data) > MAX_BYTES:
            raise InputError(f"{source}: the file is {len(data)} bytes, over the limit of {MAX_BYTES}")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{source}: the file is not UTF-8 (byte {exc.start} is invalid)") from None
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
    if not text.strip():
        raise InputError(f"{source}: the file is empty")

    parser = _Parser(text)
    stack: list[tuple[Any, Any]] = []  # (container, pending key or marker)
    keys_seen: list[set | None] = []
    root: Any = None
    documents = 0
    nodes = 0
    done = False
    try:
        while True:
            event = parser.get_event()
            if event is None:
                break
            if isinstance(event, yaml.StreamEndEvent):
                break
            if isinstance(event, (yaml.StreamStartEvent, yaml.DocumentEndEvent)):
                continue
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise _fail(source, event.start_mark, "the file holds more than one YAML document")
                continue
            if isinstance(event, yaml.AliasEvent):
                raise _fail(source, event.start_mark, f"aliases (*{event.anchor}) are not allowed")
            if getattr(event, "anchor", None) is not None:
                raise _fail(source, event.start_mark, f"anchors (&{event.anchor}) are not allowed")
            if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                value, _ = stack.pop()
                keys_seen.pop()
                if not stack:
                    root, done = value, True
                    continue
                _attach(stack, keys_seen, value, event, source)
                continue
            nodes += 1
            if nodes > MAX_NODES:
                raise _fail(source, event.start_mark, f"the document has more than {MAX_NODES} nodes")
            if isinstance(event, yaml.ScalarEvent):
                value = _scalar(event, source)
                if not stack:
                    root, done = value, True
                    continue
                _attach(stack, keys_seen, value, event, source)
                continue
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                tag = event.tag
                if tag is not None and tag != "!":
                    raise _fail(source, event.start_mark, f"tags such as {tag!r} are not allowed")
                if len(stack) >= MAX_DEPTH:
                    raise _fail(source, event.start_mark, f"the document is nested deeper than {MAX_DEPTH} levels")
                if isinstance(event, yaml.SequenceStartEvent):
                    stack.append(([], None))
                    keys_seen.append(None)
                else:
                    stack.append(({}, _NO_KEY))
                    keys_seen.append(set())
                continue
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        if "nesting depth" in problem:  # newer LibYAML stops deep nesting itself
            raise _fail(source, mark, f"the document is nested deeper than {MAX_DEPTH} levels") from None
        if "Unicode character escape" in problem:
            raise _fail(source, mark, _SURROGATE_ESCAPE) from None
        raise _fail(source, mark, f"the YAML is malformed or truncated ({problem})") from None
    if not done:
        raise InputError(f"{source}: the file holds no YAML document")
    return root


class _NoKey:
    pass


_NO_KEY = _NoKey()


def _attach(stack: list, keys_seen: list, value: Any, event: Any, source: str) -> None:
    container, pending = stack[-1]
    if isinstance(container, list):
        container.append(value)
        return
    if pending is _NO_KEY:
        if not isinstance(value, str):
            raise _fail(source, event.start_mark, f"mapping keys must be strings, not {_type_name(value)} ({value!r})")
        seen = keys_seen[-1]
        if value in seen:
            raise _fail(source, event.start_mark, f"the key {value!r} appears twice in one mapping")
        seen.add(value)
        stack[-1] = (container, value)
    else:
        container[pending] = value
        stack[-1] = (container, _NO_KEY)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "an integer", list: "a list", dict: "a mapping"}.get(type(value), type(value).__name__)


def load_file(path: str | Path, source: str | None = None) -> Any:
    """Read and strictly parse a YAML file; I/O problems are FileErrors naming it."""
    from pbem.core.errors import FileError

    path = Path(path)
    name = source or str(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise FileError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise FileError(f"{name}: is a folder, not a file") from None
    except OSError as exc:
        raise FileError(f"{name}: cannot be read ({exc.strerror})") from None
    return loads(data, name)


def load_mapping(path: str | Path, source: str | None = None) -> dict:
    doc = load_file(path, source)
    if not isinstance(doc, dict):
        raise InputError(f"{source or path}: the file must hold a mapping (key: value lines), not {_type_name(doc)}")
    return doc


def canonical(obj: Any) -> bytes:
    """Canonical bytes (RFC 8785 restricted to str, int, bool, null, list, mapping)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def digest(domain: bytes, obj: Any) -> str:
    """Hex SHA-256 of a domain prefix line and the canonical bytes of `obj`."""
    return hashlib.sha256(domain + canonical(obj)).hexdigest()


def dumps(obj: Any) -> str:
    """YAML text for humans that loads back (strictly) to exactly `obj`: block style,
    sorted keys, strings plain where the strict loader reads them back as the same string
    and JSON-quoted otherwise (a JSON string is a valid YAML double-quoted scalar)."""
    lines: list[str] = []
    if isinstance(obj, (dict, list)) and obj:
        _emit(obj, 0, lines)
    else:
        lines.append(_flow_text(obj))
    return "\n".join(lines) + "\n"


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.@/+-]*\Z")
# Characters YAML reads as line breaks or refuses raw; JSON leaves them unescaped.
_UNSAFE = re.compile("[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]")


def scalar_text(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        if abs(value) > MAX_INT:
            raise ValueError(f"cannot write the integer {value} to a pbem file: it is beyond ±2^53−1")
        return str(value)
    if type(value) is str:
        if _PLAIN.match(value) and is_plain_string(value):
            return value
        if _SURROGATE.search(value):
            raise ValueError(f"cannot write {value!r} to a pbem file: it holds a lone surrogate")
        return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False))
    raise TypeError(f"cannot write {type(value).__name__} {value!r} to a pbem file")


def _flow_text(value: Any) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return scalar_text(value)


def _emit(obj: Any, indent: int, lines: list[str]) -> None:
    pad = " " * indent
    if isinstance(obj, dict):
        for key in sorted(obj):
            value = obj[key]
            head = f"{pad}{scalar_text(key)}:"
            if isinstance(value, (dict, list)) and value:
                lines.append(head)
                _emit(value, indent + 2 if isinstance(value, dict) else indent, lines)
            else:
                lines.append(f"{head} {_flow_text(value)}")
        return
    for item in obj:
        if isinstance(item, (dict, list)) and item:
            sub: list[str] = []
            _emit(item, indent + 2, sub)
            first = sub[0]
            lines.append(f"{pad}- {first[indent + 2:]}")
            lines.extend(sub[1:])
        else:
            lines.append(f"{pad}- {_flow_text(item)}")
