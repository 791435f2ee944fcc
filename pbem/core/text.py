"""Text from packets made safe to show (DESIGN §5, attack 29).

Every string a player wrote may reach a terminal, a report or a forum post. Control
characters (terminal escape sequences, C1 controls, newlines that would forge a report
line), bidirectional overrides and invisible format characters are shown escaped, as
`\\x1b` or `\\u202e`; reports also escape the markup of their format, so a player's text
can neither forge a line nor a link.
"""

from __future__ import annotations

import re

from pbem.core.canonical import LazyPattern, printable_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable, Sequence, Sized

# C0 and C1 controls, DEL, soft hyphen, Arabic letter mark, Mongolian vowel separator,
# zero-width and bidirectional marks, line and paragraph separators, bidi embeddings,
# overrides and isolates, invisible operators, the byte order mark, interlinear
# annotation controls and the tag characters.
_UNSAFE = ("\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f"
           "\ufeff\ufff9-\ufffb\U000e0000-\U000e007f\ud800-\udfff")
_UNSAFE_ANY = LazyPattern(f"[{_UNSAFE}]")
# Our own output keeps its line breaks and tabs.
_UNSAFE_OUTPUT = LazyPattern(f"[{_UNSAFE.replace(chr(0) + '-' + chr(0x1f), chr(0) + '-' + chr(8) + chr(11) + '-' + chr(0x1f))}]")
# Every unsafe character is one Python calls unprintable (a control, format, separator,
# surrogate or unassigned character; tests/test_canonical.py checks each): a printable text, as
# nearly every one is, needs no search, and most commands never compile the two classes
# above (a millisecond each, at every start).


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _unsafe_in(text: str) -> re.Match | None:
    """The first unsafe character of `text`, looked for only in a text Python calls unprintable."""
    return None if text.isprintable() else _UNSAFE_ANY.search(text)


def shown(text: str) -> str:
    """A string from a packet, with every unsafe character escaped (newlines too)."""
    return text if _unsafe_in(text) is None else _UNSAFE_ANY.sub(_escape, text)


def first_unsafe(document: Any, path: str = "") -> tuple[str, str] | None:
    """The first string of `document` (keys too, in order) holding an unsafe character: its
    path ("units.german[0].name") and that character; None if there is none."""
    if isinstance(document, str):
        found = _unsafe_in(document)
        return (path or "(the text)", found.group()) if found else None
    if isinstance(document, dict):
        for key, value in document.items():
            bad = _unsafe_in(key) if isinstance(key, str) else None
            if bad:
                return (f"{path} (the key {shown(key)})" if path else f"the key {shown(key)}"), bad.group()
            found = first_unsafe(value, f"{path}.{key}" if path else str(key))
            if found:
                return found
    elif isinstance(document, list):
        for n, value in enumerate(document):
            found = first_unsafe(value, f"{path}[{n}]")
            if found:
                return found
    return None


def for_output(text: str) -> str:
    """Text about to be printed: unsafe characters escaped, line breaks and tabs kept."""
    if printable_lines(text):
        return text
    return _UNSAFE_OUTPUT.sub(_escape, text) if _UNSAFE_OUTPUT.search(text) else text


# Characters that can open Markdown markup inside a line (emphasis, code, links, HTML and
# autolinks, tables, strike-through); a report line always starts with "- ", so block markup
# cannot start there. ">" opens nothing inside a line once "<" is escaped: "3302 -> 3401"
# stays as the player reads it in a mail or an editor.
# `&` too: a character reference (`&#x202E;`) is a character to a Markdown renderer, so text
# refused with a raw bidi override or line break would bring it in as one (a hostile-input review).
_MARKDOWN = re.compile(r"([\\`*_\[\]<|~&])")
# BBCode tags open with "[" directly followed by a name, "/" or "*".
_BBCODE = LazyPattern(r"\[(?=[A-Za-z/*])")
_QUOTED = LazyPattern(r"`([^`]+)`")


def markdown(text: str) -> str:
    """One line of a Markdown report: markup characters backslash-escaped. (Most lines have
    none: the search alone is half the price of a substitution that replaces nothing.)"""
    text = shown(text)
    return _MARKDOWN.sub(r"\\\1", text) if _MARKDOWN.search(text) else text


def bbcode(text: str) -> str:
    """One line of a BBCode report: a space after any "[" that could open a tag, and the words
    pbem writes in backquotes (a command, a key) in double quotes, as a forum shows backquotes
    as they are (an audience's probe: "`pbem submit --seal`" in a post)."""
    text = _BBCODE.sub("[ ", shown(text))
    return _QUOTED.sub(r'"\1"', text) if "`" in text else text


def names(text: str, word: str) -> bool:
    """Whether `text` holds `word` as a word of its own: "move" in "move, rail, then end",
    neither in "moves" nor in "remove" nor in "air-move"."""
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def cites(text: str, rule: str) -> bool:
    """Whether `text` names `rule` itself: "K-INI-1" in "(automatic, K-INI-1)", but
    neither "9.1" in "19.1" or "9.10" nor "K-INI-1" in "K-INI-12"."""
    return re.search(rf"(?<![\w.]){re.escape(rule)}(?!\w|\.\d)", text) is not None


def with_rule(text: str, rule: str) -> str:
    """`text` citing `rule` once: nothing added where it cites it already, and added inside a
    closing bracket of rules ("... then end (K-MOV-1)" with K-MOV-4: "(K-MOV-1, K-MOV-4)")."""
    text = text.rstrip(".")
    if not rule or cites(text, rule):
        return text
    last = re.search(r"\(((?:[^()]|\(\d+\))+)\)$", text)
    family = _family(rule)
    if last and family is not None and all(_family(part) == family for part in last.group(1).split(", ")):
        return f"{text[:-1]}, {rule})"
    return f"{text} ({rule})"


def _family(rule: str) -> str | None:
    """What kind of rule number a text is: "dotted" (9.10.1, 11.2(1), 12.32-12.35), "house"
    (house 6), or a lettered one by its letters ("K" for K-MOV-1); None for anything else, as
    a hex (3320), a unit (B-PG-1 is not K-) or words: a bracket of rules only takes its kind."""
    if re.fullmatch(r"house \d+(?:\.\d+)*", rule):
        return "house"
    if re.fullmatch(r"\d+(?:\.\d+)+(?:\(\d+\))*(?:-\d+(?:\.\d+)*)?(?: errata)?", rule):
        return "dotted"
    lettered = re.fullmatch(r"([A-Z]+)-[A-Z]+(?:-[A-Z]+)*-\d+", rule)
    return lettered.group(1) if lettered else None


def numbers(items: list[dict]) -> str:
    """Orders by number, packet by packet (items with `seq` and `index`): "order 5 of packet
    9", "orders 4 to 6 and 8 of packet 9, and 1 of packet 11"."""
    by_packet: dict[int, list[int]] = {}
    for entry in items:
        by_packet.setdefault(entry["seq"], []).append(entry["index"])
    parts = [f"{listed(_runs(indexes, str))} of packet {seq}" for seq, indexes in sorted(by_packet.items())]
    return ("order " if len(items) == 1 else "orders ") + ", and ".join(parts)


def seal_names(names: list[str]) -> str:
    """Sealed items by name ("SEQ.N", docs/protocol.md §8), runs shortened: "2.1 to 2.43"
    where a side sealed one chit for each of 43 groups, not the 43 names."""
    by_packet: dict[int, list[int]] = {}
    for name in names:
        seq, n = name.split(".")
        by_packet.setdefault(int(seq), []).append(int(n))
    return listed([run for seq, ns in sorted(by_packet.items()) for run in _runs(ns, lambda n, seq=seq: f"{seq}.{n}")])


def _runs(numbers: list[int], name) -> list[str]:
    """Consecutive numbers as runs, each named by `name`: "4 to 6", but "4", "5" for two."""
    numbers = sorted(numbers)
    runs, start = [], numbers[0]
    for a, b in zip(numbers, numbers[1:] + [None]):
        if b != a + 1:   # a run ends at a
            runs += [name(start)] if start == a else [name(start), name(a)] if a == start + 1 else \
                [f"{name(start)} to {name(a)}"]
            start = b
    return runs


def listed(runs: list[str]) -> str:
    """Words in one phrase: "a", "a and b", "a, b and c"."""
    return runs[0] if len(runs) == 1 else ", ".join(runs[:-1]) + " and " + runs[-1]


# Characters a typist takes for one another, folded to one: the letter O and the digit 0, the
# letters l and I and the digit 1 (after lower-casing, so case goes too).
_LOOK_ALIKE = str.maketrans("oil", "011")


def _folded(text: str) -> str:
    return text.lower().translate(_LOOK_ALIKE)


def no_unit(ids: Sequence[str], uid: object, prefer: Iterable[str] = ()) -> str:
    """Why `uid` names no unit of `ids` (an order of battle): with the id it most likely meant.
    First an id equal to it but for look-alike characters ("r/30" or "R/3O" for R/30: case, O
    for 0, l or I for 1); else the closest of `prefer`, the ids the order could name now (the
    side's units, the units its phase can use), as the caller knows them; else the closest of
    all. Among ids as close, one the text begins with first: a digit too many, "G/4500", meant
    G/45 rather than the as close G/50."""
    return f"there is no unit {uid}{did_you_mean(ids, uid, prefer)}"


def did_you_mean(ids: Sequence[str], uid: object, prefer: Iterable[str] = ()) -> str:
    """" (did you mean X?)", X the id of `ids` that `uid` most likely meant (`meant`); "" if none is close."""
    guess = meant(ids, uid, prefer)
    return f" (did you mean {guess}?)" if guess else ""


def meant(ids: Sequence[str], uid: object, prefer: Iterable[str] = ()) -> str | None:
    """The id of `ids` that `uid` most likely meant, as `no_unit` says it; None if none is close."""
    text = str(uid)
    wanted = set(prefer)
    same = sorted((u for u in ids if _folded(u) == _folded(text)),
                  key=lambda u: (u.lower() != text.lower(), u not in wanted))
    # then two neighbouring characters typed the wrong way round ("GR/73" for GR/37, which
    # difflib scores below GR/47: a players' probe)
    swapped = sorted((u for u in ids if _swapped(_folded(u), _folded(text))), key=lambda u: (u not in wanted, u))
    return (same or swapped or [None])[0] or _closest(text, [u for u in ids if u in wanted]) or _closest(text, ids)


def _swapped(a: str, b: str) -> bool:
    """Whether b is a with two neighbouring characters exchanged."""
    if len(a) != len(b):
        return False
    apart = [i for i in range(len(a)) if a[i] != b[i]]
    return len(apart) == 2 and apart[1] == apart[0] + 1 and a[apart[0]] == b[apart[1]] and a[apart[1]] == b[apart[0]]


def _closest(text: str, ids: Sequence[str]) -> str | None:
    """The id of `ids` closest to `text` (look-alike characters taken as one), None if none is
    close; among the four closest, one `text` begins with first."""
    from difflib import get_close_matches

    by_fold: dict[str, str] = {}
    for u in ids:
        by_fold.setdefault(_folded(u), u)
    key = _folded(text)
    close = sorted(get_close_matches(key, list(by_fold), n=4, cutoff=0.75), key=lambda f: not key.startswith(f))
    return by_fold[close[0]] if close else None


def agreeing(subjects: Sized, singular: str, plural: str) -> str:
    """The word that agrees with a list of units as the subject: "LW/I retreats", "LW/I,
    LW/II retreat"."""
    return singular if len(subjects) == 1 else plural


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """"1 hex", "2 hexes": a number and its noun, singular for one."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"

