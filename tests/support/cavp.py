"""Reads NIST CAVP response files (.rsp) and the cryptography_vectors text files in the same style.

A file is ``[Name = value, ...]`` section headers (or a bare ``[ENCRYPT]``), ``Name = value`` lines and
cases that start at ``Count``/``COUNT``.  Every case is a dict of the values in force when it was read:
the file's and the section's (headers and the assignments before the first case of a section, such as
CCM's shared Key and Nonce) and its own.  A bare section header (``[ENCRYPT]``) sets ``section``; a case line without ``=`` (``FAIL``) sets that word
to True.

    for case in read_cases("tests/data/aead/gcmDecrypt128.rsp"):
        case["Key"], case["IV"], case.get("FAIL", False)
"""

from __future__ import annotations

from pathlib import Path


def _assign(target: dict, text: str) -> None:
    if "=" in text:
        name, value = text.split("=", 1)
        target[name.strip()] = value.strip()
    elif text.strip():
        target[text.strip()] = True


def read_cases(path: str | Path) -> list[dict]:
    context: dict = {}
    cases: list[dict] = []
    case: dict | None = None
    for raw in Path(path).read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            case = None
            for part in line.strip("[]").split(","):
                if "=" in part:
                    _assign(context, part)
                else:
                    context["section"] = part.strip()
            continue
        name = line.split("=", 1)[0].strip()
        if name.lower() == "count":
            case = dict(context)
            cases.append(case)
        _assign(case if case is not None else context, line)
    return cases


def hexbytes(case: dict, name: str, nbytes: int | None = None) -> bytes:
    """A hex field as bytes, cut to ``nbytes`` when given (CCM writes an empty field as ``00``)."""
    value = bytes.fromhex(case.get(name) or "")
    return value if nbytes is None else value[:nbytes]


def write_cases(path: str | Path, cases: list[dict], header: str) -> None:
    """Cases back as text ``read_cases`` reads the same: every value on the case itself."""
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    for case in cases:
        lines.append("")
        count = next((k for k in case if k.lower() == "count"), None)
        if count is not None:
            lines.append(f"{count} = {case[count]}")
        for name, value in case.items():
            if name != count:
                lines.append(name if value is True else f"{name} = {value}".rstrip())
    Path(path).write_text("\n".join(lines) + "\n")
