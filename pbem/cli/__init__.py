"""The `pbem` command line: a click group with one module per command (STYLE 8), in
pbem/cli/group.py. Command modules import only click at the top; the core, cryptography and
jsonschema are imported inside the commands, so `pbem --help` and `pbem --version` stay
fast. A command's module is imported only when that command runs (click's lazily loaded
subcommands), so `pbem adjudicate` does not pay for the imports of `pbem demo` or `pbem
render`. This package itself imports nothing: pbem.entry runs the plain command lines of
`pbem adjudicate`, `pbem audit`, `pbem status` and `pbem show` through pbem/cli/plain.py
without importing click at all."""

from __future__ import annotations


def __getattr__(name: str) -> object:
    # `cli` and `main` are pbem.cli.group's, imported on first use
    if name in ("cli", "main"):
        from pbem.cli import group

        return getattr(group, name)
    raise AttributeError(f"module 'pbem.cli' has no attribute {name!r}")
