"""`python -m tests.golden RULESET [--revision N]`: write the golden records of a revision
that has none yet (default: the ruleset's newest), then check them. Refuses, writing
nothing, when any of them exists: a golden record is never rewritten or edited
(docs/rulesets/AUTHORING.md, "Revisions")."""

from __future__ import annotations

import argparse
import sys

from engine.contract import RulesError
from tests.golden.golden import check, read, write_new


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.golden", description=__doc__)
    parser.add_argument("ruleset", help="the ruleset's id")
    parser.add_argument("--revision", type=int, default=None,
                        help="the revision to pin (default: the newest)")
    args = parser.parse_args(argv)
    try:
        paths = write_new(args.ruleset, args.revision)
    except (FileExistsError, RulesError) as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 2
    for path in paths:
        problems = check(read(path))
        print(f"wrote {path}" + ("" if not problems else f" (it does not check: {problems[0]})"))
        if problems:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
