"""Open exactly the file that was checked: race-free reads, writes and removals.

A path that passed the permission gate is only a string. Between the check and
the open, a hostile repository's background process can turn a directory on
that path into a symlink to `~/.config` (seen: 25-60% of tries landed outside
the project), or point a checked name at a denied secret. So the tools do this:

1. `resolve` the path once (symlinks and `..` as the kernel would follow them),
2. check that resolved path (deny rules, writable roots, rift's own dirs),
3. open it here, component by component from `/`, each directory relative to
   its parent's descriptor with `O_NOFOLLOW | O_DIRECTORY`. A component that
   became a symlink after the check fails the open (`PathChanged`) instead of
   being followed, so what is opened is what was checked.

Reads take regular files only, checked on the opened descriptor (`fstat`), so a
FIFO cannot hang a read and `/dev/zero` cannot fill memory; they stop at a cap.
Writes create a temp file in the checked directory's descriptor, fsync it and
rename it over the name with directory descriptors: readers see the old file or
the new one, and a symlink planted at the name is replaced, never followed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from typing import NamedTuple

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_DIR_NO_READ = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_TEMP = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC

READ_CAP = 64 * 1024 * 1024
"""The most a tool reads of one file; a bigger one is refused rather than loaded."""


class UnsafePath(OSError):
    """The path cannot be used safely (an OSError, which is what file callers catch)."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(errno.EPERM, why, str(path))
        self.path = path


class PathChanged(UnsafePath):
    """A component of an already checked path is now a symlink (or not a directory)."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            path,
            "a part of the path changed (to a symlink or a non-directory) while rift was"
            " opening it; nothing was read or written",
        )


class NotRegular(UnsafePath):
    """Not a regular file: a FIFO, a device, a socket, a symlink where a file was."""


class TooLarge(UnsafePath):
    """A regular file past the read cap."""


class FileId(NamedTuple):
    """What identifies the file rift wrote: its inode and a digest of its bytes."""

    dev: int
    ino: int
    digest: str


def resolve(path: Path) -> Path:
    """`path` made absolute with every symlink and `..` followed as the kernel would;
    a missing tail is kept as written. Check this, then open it with this module."""
    return Path(os.path.realpath(path))


def digest(data: bytes) -> str:
    import hashlib  # here only: not on the startup path of a run that writes nothing

    return hashlib.sha256(data).hexdigest()


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _step(fd: int, name: str, path: Path) -> int:
    """Open directory `name` under `fd` without following a symlink."""
    try:
        return os.open(name, _DIR, dir_fd=fd)
    except PermissionError:
        return os.open(name, _DIR_NO_READ, dir_fd=fd)  # searchable but not listable
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        try:
            mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
        except OSError:
            mode = stat.S_IFLNK  # gone again: it is changing under us
        if stat.S_ISLNK(mode):
            raise PathChanged(path) from exc
        raise NotADirectoryError(errno.ENOTDIR, f"{name} is not a directory", str(path)) from exc


def open_dir(real: Path, *, create: bool = False) -> int:
    """A descriptor of directory `real` (absolute, resolved), walked without following any
    symlink; with `create`, missing directories are made on the way. Caller closes it."""
    if not real.is_absolute():
        raise UnsafePath(real, "not an absolute path")
    fd = os.open("/", _DIR)
    try:
        for name in real.parts[1:]:
            try:
                nxt = _step(fd, name, real)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=fd)
                nxt = _step(fd, name, real)
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def lstat(real: Path) -> os.stat_result | None:
    """What is at `real` now, not following a final symlink; None when nothing is."""
    try:
        dfd = open_dir(real.parent)
    except FileNotFoundError:
        return None
    try:
        return os.stat(real.name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    finally:
        os.close(dfd)


def read_regular(real: Path, cap: int = READ_CAP) -> tuple[bytes, os.stat_result]:
    """The bytes of regular file `real` (resolved) and its stat, opened without following
    any symlink. FileNotFoundError when missing, IsADirectoryError for a directory,
    NotRegular for anything else that is not a regular file, TooLarge past `cap`."""
    dfd = open_dir(real.parent)
    try:
        try:
            fd = os.open(real.name, _READ, dir_fd=dfd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise PathChanged(real) from exc
            raise
    finally:
        os.close(dfd)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", str(real))
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(real, f"{_kind(info.st_mode)}, not a regular file; not read")
        if info.st_size > cap:
            raise TooLarge(real, f"{info.st_size} bytes, over the {cap}-byte read limit")
        want = min(cap, info.st_size) + 1  # read(n) allocates n: size it by the file
        data = handle.read(want)
        if len(data) == want and want <= cap:  # it grew since fstat: the rest, to the cap
            data += handle.read(cap + 1 - len(data))
    if len(data) > cap:
        raise TooLarge(real, f"over the {cap}-byte read limit")
    return data, info


def read_prior(real: Path) -> bytes | None:
    """`real`'s bytes before a change; None only when nothing is there."""
    try:
        return read_regular(real)[0]
    except FileNotFoundError:
        return None


def write_atomic(real: Path, data: bytes) -> FileId:
    """Replace (or create) regular file `real` (resolved) with `data`, atomically.

    Missing directories are created; an existing file keeps its permission bits, a
    new one gets the umask's. Returns the new file's identity (for undo to compare).
    """
    dfd = open_dir(real.parent, create=True)
    try:
        try:
            old = os.stat(real.name, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            old = None
        if old is not None and not stat.S_ISREG(old.st_mode):
            raise NotRegular(real, f"{_kind(old.st_mode)}, not a regular file; not replaced")
        return _replace_in(dfd, real, data, old)
    finally:
        os.close(dfd)


def _stem(name: str) -> str:
    """At most 200 bytes of `name` for the temp name: NAME_MAX counts bytes, so a 254-byte
    UTF-8 name cut at 200 characters still overflowed it. A split character's bytes stay
    bytes (surrogate escapes), which the kernel takes as they are."""
    return os.fsdecode(os.fsencode(name)[:200])


def _replace_in(dfd: int, real: Path, data: bytes, old: os.stat_result | None) -> FileId:
    for _ in range(100):
        tmp = f".{_stem(real.name)}.{os.urandom(6).hex()}.tmp"
        try:
            fd = os.open(tmp, _TEMP, 0o666, dir_fd=dfd)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(errno.EEXIST, "no free temporary name", str(real))
    try:
        with os.fdopen(fd, "wb") as handle:
            if old is not None:
                os.fchmod(fd, stat.S_IMODE(old.st_mode))
            handle.write(data)
            handle.flush()
            os.fsync(fd)
            info = os.fstat(fd)
        os.replace(tmp, real.name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dfd)
        raise
    return FileId(info.st_dev, info.st_ino, digest(data))


def current_id(real: Path) -> FileId | None:
    """The identity of the regular file at `real` now; None when nothing is there.
    NotRegular when something else (a symlink, a directory) is."""
    info = lstat(real)
    if info is None:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise NotRegular(real, f"now {_kind(info.st_mode)}")
    data, _ = read_regular(real)
    return FileId(info.st_dev, info.st_ino, digest(data))


def remove(real: Path) -> None:
    """Unlink regular file `real` (resolved) by name in its checked directory; a missing
    file is fine, anything but a regular file is refused."""
    try:
        dfd = open_dir(real.parent)
    except FileNotFoundError:
        return
    try:
        try:
            info = os.stat(real.name, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            return
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(real, f"now {_kind(info.st_mode)}; not removed")
        os.unlink(real.name, dir_fd=dfd)
    finally:
        os.close(dfd)
