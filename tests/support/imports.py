"""Which modules a pbem command imports: the command run as the command line runs it
(pbem.entry), in an interpreter of its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# the command's output is its own: what it imported goes to a file
_CODE = ("import sys\n"
         "from pbem import entry\n"
         "found, modules = sys.argv[1], sys.argv[2].split(',')\n"
         "sys.argv = ['pbem'] + sys.argv[3:]\n"
         "try:\n    entry.main()\nexcept SystemExit as done:\n    assert not done.code, done.code\n"
         "open(found, 'w').write(','.join(m for m in modules if m in sys.modules))")


def imported(tmp_path: Path, command: list[str], modules: tuple[str, ...]) -> list[str]:
    """Those of `modules` that `pbem COMMAND` imported; the command must succeed, printing."""
    found = tmp_path / "imported.txt"
    done = subprocess.run([sys.executable, "-c", _CODE, str(found), ",".join(modules), *command],
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout, (command, done.stderr)
    text = found.read_text()
    return text.split(",") if text else []
