"""The Dockerfile read the way Docker reads it, so tests can run the commands it runs.

Continuation lines are joined, comments dropped, and instructions grouped by stage (each
FROM starts one). Exec-form arguments (`["a", "b"]`) are JSON; shell-form RUN lines are
split on `&&` into argument lists.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Instruction:
    name: str  # upper case: FROM, COPY, RUN, ...
    args: str


def stages(path: Path) -> list[list[Instruction]]:
    found: list[list[Instruction]] = []
    pending = ""
    for line in path.read_text().splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        name, _, args = (pending + stripped).partition(" ")
        pending = ""
        if name.upper() == "FROM":
            found.append([])
        found[-1].append(Instruction(name.upper(), args.strip()))
    return found


def exec_form(args: str) -> list[str]:
    value = json.loads(args)
    if not (isinstance(value, list) and all(isinstance(a, str) for a in value)):
        raise ValueError(f"not an exec-form argument list: {args}")
    return value


def shell_commands(args: str) -> list[list[str]]:
    return [shlex.split(part) for part in args.split("&&")]


def healthcheck_command(args: str) -> list[str]:
    """The command of `HEALTHCHECK [--options] CMD [...]`."""
    _options, marker, command = args.partition("CMD ")
    if not marker:
        raise ValueError(f"HEALTHCHECK without CMD: {args}")
    return exec_form(command)


def only(stage: list[Instruction], name: str) -> Instruction:
    matches = [i for i in stage if i.name == name]
    if len(matches) != 1:
        raise ValueError(f"{len(matches)} {name} instructions in the stage, not 1")
    return matches[0]
