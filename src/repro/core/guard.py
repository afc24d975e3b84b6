"""A read guard for the test suite: no process it starts may read outside the repository's
reach (the data cache of our own machines in the checkout's sibling `shared/` folder, which
users never have).

`REPRO_FORBID_READS=<dir>[:<dir>...]` in the environment (tests/conftest.py sets it, and every
job, warm server and subprocess inherits it) makes `import repro` install an audit hook that
refuses, with PermissionError, any Python-level open, listing, copy or subprocess command line
that names a path under those folders. Reads that bypass Python's audit events (a C library
opening a file itself) are caught by the suite's static check instead (tests/test_fresh_clone.py:
no tracked code or config names that folder).
"""

from __future__ import annotations

import os
import sys

ENV = "REPRO_FORBID_READS"
_EVENTS = {"open", "os.listdir", "os.scandir", "shutil.copyfile", "shutil.copytree",
           "glob.glob", "os.chdir", "subprocess.Popen"}


def install(spec: str) -> None:
    """Refuse every audited access to a path under one of the `:`-separated folders."""
    roots = tuple(os.path.realpath(r) for r in spec.split(os.pathsep) if r)
    if not roots:
        return

    def under(x: object) -> bool:
        if isinstance(x, bytes):
            x = os.fsdecode(x)
        if not isinstance(x, (str, os.PathLike)):
            return False
        s = os.fspath(x)
        if not s or "\0" in s or os.sep not in s:
            return False
        # relative paths resolve from the working directory; "..", or a link, can leave it
        full = s if os.path.isabs(s) and "/.." not in s else os.path.realpath(s)
        return any(r in s or full == r or full.startswith(r + os.sep) for r in roots)

    def hook(event: str, args: tuple) -> None:
        if event not in _EVENTS:
            return
        items = list(args)
        if event == "subprocess.Popen" and len(items) > 1 and isinstance(items[1], (list, tuple)):
            items = [items[0], *items[1]]
        for a in items:
            if under(a):
                raise PermissionError(f"{ENV}: {event} of {os.fspath(a)} refused: the tests "
                                      "read nothing outside the repository (tiny reads the "
                                      "committed excerpts, repro.core.fetch)")

    sys.addaudithook(hook)
