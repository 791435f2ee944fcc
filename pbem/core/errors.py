"""Errors that reach the user, each with the exit code of DESIGN §5.

Every message starts with one clear sentence naming the file, the order and the rule
where they apply; details may follow on later lines."""

from __future__ import annotations


class PbemError(Exception):
    exit_code = 1

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class RulesError(PbemError):
    """Illegal orders or a rules error (exit 1)."""

    exit_code = 1


class UsageError(PbemError):
    """Wrong use of the command line (exit 2)."""

    exit_code = 2


class VerificationError(PbemError):
    """A signature, chain, hash or sequence check failed (exit 3)."""

    exit_code = 3


class FileError(PbemError):
    """A file or I/O error: missing, unreadable, outside the game folder (exit 4)."""

    exit_code = 4


class InputError(FileError):
    """A file that is not acceptable YAML input: not UTF-8, empty, truncated, too large,
    anchors, tags, duplicate keys, floats, ... (exit 4, a file error)."""


# The game folders the running command opened (pbem.core.game.open_folder), each once: where
# pbem looks for an altered state when the rules fail unexpectedly (pbem.core.game.altered_state).
OPENED: list = []
