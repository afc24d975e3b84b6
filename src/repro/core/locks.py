"""A run's directory lock lives until that run ends: a guard around Snakemake's lock handling.

Snakemake refuses to start a run whose files another live run in the same directory reads or
writes: each run lists its input and output files in `.snakemake/locks/<n>.{input,output}.lock`
(or, with `--persistence-backend db`, in a table) and removes its lists when it ends. Since 9.17
(the persistence refactor, snakemake/snakemake#4012; 9.27.1, the newest release, still has it) a
run that ends removes them all: `FilePersistence._delete_locks` deletes its own lock files and
then `shutil.rmtree(".snakemake/locks")`, and `DbPersistence._delete_locks` deletes every lock of
the namespace. So when run B finishes, run A (still going) loses its lock, and run C may then
start writing A's outputs. Before 9.17 a run removed only its own files and only
`snakemake --unlock` (`cleanup_locks`) removed the directory.

`guard_locks()` restores that, for both backends, by patching Snakemake's persistence classes in
the process that calls it (the Snakefile does, at parse time, before Snakemake takes its lock):

- a run removes only the locks it wrote, never the directory and never another run's;
- `snakemake --unlock` still removes every lock (stale ones left by a killed run);
- checking for a conflicting lock and writing one's own happen under an exclusive `flock` on
  `.snakemake`, so two runs that start at once cannot both pass the check;
- a lock file is created with O_EXCL, so two runs never pick the same `<n>`.

A run killed with SIGKILL (or a power loss) still leaves its lock behind; `--unlock` removes it.
Proven by tests/test_locks.py with real concurrent `snakemake` processes.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from itertools import count
from typing import Any

_MARK = "_repro_lock_guard"


@contextmanager
def _exclusive(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold an exclusive flock on the directory `path` (best effort where the FS refuses it)."""
    fd = None
    try:
        fd = os.open(path, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError:
        pass
    try:
        yield
    finally:
        if fd is not None:
            os.close(fd)  # releases the flock


def _lock(self: Any) -> Iterator[None]:
    from snakemake.exceptions import LockException

    try:
        with _exclusive(self.path):
            if self.locked:
                raise LockException()
            self._write_locks("input", (str(f) for f in self.all_inputfiles()))
            self._write_locks("output", (str(f) for f in self.all_outputfiles()))
        yield
    finally:
        self.unlock()  # only what this run wrote (nothing, if it was refused)


# ------------------------------------------------------------------ file backend (the default)
def _file_write_locks(self: Any, lock_type: str, keys: Iterable[str]) -> None:
    keys_list = list(keys)
    if not keys_list:
        return
    os.makedirs(self._lockdir, exist_ok=True)
    for i in count(0):
        lockfile = os.path.join(self._lockdir, f"{i}.{lock_type}.lock")
        try:
            with open(lockfile, "x") as lock:
                self._lockfile[lock_type] = lockfile
                print(*keys_list, sep="\n", file=lock)
        except FileExistsError:
            continue
        return


def _file_delete_own_locks(self: Any) -> None:
    for lockfile in self._lockfile.values():
        try:
            os.remove(lockfile)
        except FileNotFoundError:
            pass
    self._lockfile.clear()


def _file_cleanup_locks(self: Any) -> None:
    self._lockfile.clear()
    if os.path.exists(self._lockdir):
        shutil.rmtree(self._lockdir)


# ------------------------------------------------------------------ db backend
def _db_guard(cls: Any) -> None:
    write_all, delete_all = cls._write_locks, cls._delete_locks

    def write_locks(self: Any, lock_type: str, keys: Iterable[str]) -> None:
        keys_list = list(set(keys))
        write_all(self, lock_type, keys_list)  # all or nothing (one commit)
        self.__dict__.setdefault("_repro_own_locks", []).extend((lock_type, k) for k in keys_list)

    def delete_own_locks(self: Any) -> None:
        own = self.__dict__.pop("_repro_own_locks", [])
        if not own:
            return
        from snakemake.persistence.db import LockORM
        from sqlalchemy import delete
        from sqlalchemy.orm import Session

        with Session(self.engine) as session:
            for lock_type in {t for t, _ in own}:
                keys = [k for t, k in own if t == lock_type]
                for i in range(0, len(keys), 500):
                    session.execute(
                        delete(LockORM).where(
                            LockORM.namespace == self.namespace,
                            LockORM.lock_type == lock_type,
                            LockORM.file_path.in_(keys[i : i + 500]),
                        )
                    )
            session.commit()

    cls._write_locks, cls._delete_locks = write_locks, delete_own_locks
    cls.cleanup_locks = lambda self: delete_all(self)


def guard_locks() -> bool:
    """Patch this process's Snakemake so that a run's lock lives until that run ends.

    Idempotent; returns whether the guard is in place (False on a Snakemake without the
    9.17+ persistence package, which never had the defect).
    """
    try:
        from snakemake.persistence import PersistenceBase
        from snakemake.persistence.db import DbPersistence
        from snakemake.persistence.file import FilePersistence
    except ImportError:
        return False
    if getattr(PersistenceBase, _MARK, False):
        return True
    PersistenceBase.lock = contextmanager(_lock)
    FilePersistence._write_locks = _file_write_locks
    FilePersistence._delete_locks = _file_delete_own_locks
    FilePersistence.cleanup_locks = _file_cleanup_locks
    _db_guard(DbPersistence)
    setattr(PersistenceBase, _MARK, True)
    return True
