"""Whether the disk cache can be trusted: a folder only its owner (and root) can change.

Everything tsjit reads from its cache folder ends up running: generated modules are imported,
remembered program texts are compiled, numba unpickles its `.nbi` / `.nbc` files. So before
reading anything there, the folder is checked (`unsafe_reason`):

- on the path as given, the cache folder is not a symlink, and no folder above it up to the
  stop (below) is one, except root's own links (system layouts such as `/var/run -> /run`)
  and the home folder itself (its target is judged on the real path);
- on the real path, the cache folder is owned by the user, each parent up to the stop by the
  user or root, and none of them is writable by group or others;
- the walk stops after the user's home folder, or at a sticky folder owned by root or the
  user (`/tmp`: others may create entries there but not rename or delete ours), or at `/`.

A subfolder tsjit reads (`__pycache__`, `programs`) must also be the user's, not a symlink
and not writable by group or others; one that others can still enter is made 0700, after its
files that others could have written are deleted. Folders tsjit creates are 0700 and files
0600, whatever the umask. A folder that fails is not used: `checked_subfolder` warns once
(a `UserWarning` naming the folder and the reason) and returns None, and the caller runs
without the disk cache (`private_temp_folder`: a fresh 0700 folder, removed at exit).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import stat
import tempfile
import threading
import warnings
from pathlib import Path

FOLDER_MODE = 0o700
FILE_MODE = 0o600
_WARNED: set[str] = set()
_TEMP: list[Path] = []
_TEMP_LOCK = threading.Lock()


def unsafe_reason(folder: Path) -> str | None:
    """Why someone other than the user (or root) may have changed the existing `folder` or
    what is in it, or None if no one can (see the module docstring)."""
    uid = os.geteuid()
    literal = Path(os.path.abspath(folder))
    home = Path(os.path.abspath(os.path.expanduser("~")))
    for index, path in enumerate((literal, *literal.parents)):
        if index > 0 and path == home:  # a home that is a link: its target is judged below
            break
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            if index == 0 or info.st_uid != 0:
                return f"{path} is a symlink"
        elif _is_stop(info, uid):
            break
    real_home = Path(os.path.realpath(home))
    real = Path(os.path.realpath(literal))
    for index, path in enumerate((real, *real.parents)):
        info = os.lstat(path)
        if index > 0 and _is_stop(info, uid):
            break
        reason = _folder_reason(path, info, (uid,) if index == 0 else (uid, 0))
        if reason is not None:
            return reason
        if path == real_home:
            break
    return None


def _is_stop(info: os.stat_result, uid: int) -> bool:
    """A sticky folder of root or the user (`/tmp`): others cannot move what is in it."""
    return (
        stat.S_ISDIR(info.st_mode) and bool(info.st_mode & stat.S_ISVTX) and info.st_uid in (0, uid)
    )


def _folder_reason(path: Path, info: os.stat_result, owners: tuple[int, ...]) -> str | None:
    if stat.S_ISLNK(info.st_mode):
        return f"{path} is a symlink"
    if not stat.S_ISDIR(info.st_mode):
        return f"{path} is not a folder"
    if info.st_uid not in owners:
        return f"{path} is owned by uid {info.st_uid}, not by uid {os.geteuid()}"
    if info.st_mode & stat.S_IWOTH:
        return f"{path} is writable by others"
    if info.st_mode & stat.S_IWGRP:
        return f"{path} is writable by its group"
    return None


def make_private_folder(folder: Path) -> None:
    """Creates `folder` and its missing parents, each 0700 whatever the umask (those that
    exist are left as they are; `unsafe_reason` judges them)."""
    missing = []
    path = Path(os.path.abspath(folder))
    while not os.path.lexists(path):
        missing.append(path)
        path = path.parent
    for path in reversed(missing):
        try:
            os.mkdir(path, FOLDER_MODE)
        except FileExistsError:  # another process made it meanwhile: judged afterwards
            continue
        _set_mode(path, FOLDER_MODE)


def _set_mode(path: Path, mode: int) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


def checked_subfolder(folder: Path, name: str, create: bool) -> Path | None:
    """`folder / name`, if `folder` and it pass the check; None otherwise (after warning once
    about the folder) or when `create` is false and either is missing. With `create`, makes
    the missing ones private."""
    sub = folder / name
    try:
        if create:
            make_private_folder(folder)
        elif not os.path.lexists(folder):
            return None
        reason = unsafe_reason(folder)
        if reason is None:
            if create:
                make_private_folder(sub)
            elif not os.path.lexists(sub):
                return None
            reason = _subfolder_reason(sub)
    except OSError as err:
        reason = f"cannot be checked ({err})"
    _warn_if_unsafe(folder, reason)
    return None if reason else sub


def _subfolder_reason(sub: Path) -> str | None:
    """Why `sub` (inside a checked folder) is unsafe, or None after making it 0700."""
    info = os.lstat(sub)
    reason = _folder_reason(sub, info, (os.geteuid(),))
    if reason is None and info.st_mode & 0o077:
        for entry in sub.iterdir():
            entry_info = os.lstat(entry)
            if stat.S_ISDIR(entry_info.st_mode):
                shutil.rmtree(entry)
            elif not private_file(entry_info):
                entry.unlink()
        _set_mode(sub, FOLDER_MODE)
    return reason


def private_file(info: os.stat_result) -> bool:
    """Whether a file is the user's own regular file that no one else can write."""
    return (
        stat.S_ISREG(info.st_mode)
        and info.st_uid == os.geteuid()
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def read_private_file(path: Path) -> bytes | None:
    """The bytes of `path` if it is a private file (`private_file`, not a symlink), else None;
    the file is judged and read through one descriptor."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        if not private_file(os.fstat(fd)):
            return None
        return file.read()


def _warn_if_unsafe(folder: Path, reason: str | None) -> None:
    if reason is None or str(folder) in _WARNED:
        return
    _WARNED.add(str(folder))
    warnings.warn(
        f"tsjit cache folder {folder}: {reason}; tsjit runs without its disk cache (make the "
        "folder private to you, or remove it: others may have put files there)",
        UserWarning,
        stacklevel=4,
    )


def private_temp_folder() -> Path:
    """A fresh 0700 folder (with a 0700 `__pycache__`) for this process, removed at exit."""
    with _TEMP_LOCK:
        if not _TEMP:
            folder = Path(tempfile.mkdtemp(prefix="tsjit-private-"))
            make_private_folder(folder / "__pycache__")
            atexit.register(shutil.rmtree, folder, True)
            _TEMP.append(folder)
        return _TEMP[0]


def new_private_file(folder: Path, prefix: str) -> tuple[int, str]:
    """(descriptor, path) of a new empty file in `folder`, mode 0600 whatever the umask."""
    fd, temp = tempfile.mkstemp(dir=folder, prefix=prefix, suffix=".tmp")
    with contextlib.suppress(OSError):
        os.fchmod(fd, FILE_MODE)
    return fd, temp
