"""The local token file: owner-only, written once, never clobbered."""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from ._errors import TokenFileError

TOKEN_PREFIX = "a2app_"


def new_token() -> str:
    """A fresh agent token: `a2app_` and 48 hex characters (192 random bits)."""
    return TOKEN_PREFIX + secrets.token_hex(24)


def read_token_file(path: Path) -> str | None:
    """The token in `path`, or None when there is no such file."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise TokenFileError(f"cannot read the token file {path}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise TokenFileError(f"the token file {path} is not a regular file")
    # POSIX modes only; Windows has no group/other bits to check
    if os.name == "posix" and info.st_mode & 0o077:
        mode = stat.S_IMODE(info.st_mode)
        raise TokenFileError(
            f"the token file {path} has mode {mode:04o}, readable by others; "
            f"refusing to use it (run: chmod 600 {path})"
        )
    try:
        token = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenFileError(f"cannot read the token file {path}: {exc}") from None
    if not token or any(ch.isspace() for ch in token):
        raise TokenFileError(f"the token file {path} does not hold one token on one line")
    return token


def write_token_file_once(path: Path, token: str) -> str:
    """Write `token` to `path` unless a token file already appeared; return the one in the file.

    The file is complete before it becomes visible (temp file, then link), and
    a concurrent first start that got there first wins: its token may already
    be registered, so it must not be replaced.
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(token + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temp, path)
        except FileExistsError:
            existing = read_token_file(path)
            if existing is None:
                raise TokenFileError(f"the token file {path} vanished while starting") from None
            return existing
        except OSError:
            # a filesystem without hard links: a rename is still atomic, only not exclusive
            os.replace(temp, path)
        return token
    finally:
        temp.unlink(missing_ok=True)
