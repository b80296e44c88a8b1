"""Instructions per composed mail, counted by callgrind: `python -m bench.mailcount`.

A universal game on an 8x8 grid (two players with addresses, a fixed clock) is played for
some rounds in-process on a private PostgreSQL database; then its confirmation and
results mails are composed and written to bytes (`compose` + `wire_bytes`, the DKIM
signature included when configured) in passes, the results of one step together inside
one `service.memo.shared` block as a deliver_mails message composes them. The first pass
warms the process (imports, compiled templates); callgrind counts the later passes only,
between two marks, so setup and loading are left out.

`--callgrind` runs itself under `valgrind --tool=callgrind` and prints instructions per
mail of each kind; without it, it prints CPU ms per mail. `--cold` empties the per-process
caches (records, grids, legal orders) before every pass, so each step's shared work is
paid once per step as in a worker that composes each round's mails once. `--save DIR`
writes every composed mail to DIR (compare two trees' mails byte for byte with `--keep`,
which composes from a database kept by name instead of playing a new game).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.pgdb import ADMIN_URL, private_database, url_of

MARKS_C = r"""
#include <valgrind/callgrind.h>
void mark_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void mark_toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
void mark_dump(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
"""
START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


class Marks:
    """Callgrind's client requests through a small C library (no-ops outside valgrind)."""

    def __init__(self, lib: ctypes.CDLL | None) -> None:
        self.lib = lib

    @classmethod
    def load(cls, build_dir: Path) -> Marks:
        if "valgrind" not in os.environ.get("LD_PRELOAD", "") and not os.environ.get("MAILCOUNT_MARKS"):
            return cls(None)
        src, lib = build_dir / "marks.c", build_dir / "marks.so"
        src.write_text(MARKS_C)
        cc = shutil.which("cc")
        if cc is None:
            sys.exit("bench.mailcount --callgrind needs a C compiler (cc) for its marks")
        subprocess.run([cc, "-O1", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
        return cls(ctypes.CDLL(str(lib)))

    def start(self) -> None:
        if self.lib:
            self.lib.mark_start()

    @contextmanager
    def counted(self) -> Iterator[None]:
        if self.lib:
            self.lib.mark_toggle()
        try:
            yield
        finally:
            if self.lib:
                self.lib.mark_toggle()

    def dump(self, label: str) -> None:
        if self.lib:
            self.lib.mark_dump(label.encode())


def play(app: Any, rounds: int) -> str:
    """A new 8x8 universal game played `rounds` rounds by bench bots: its id."""
    from bench.endpoints import catch_sends
    from bench.load import send_orders
    from bench.profile import TestApi
    from service import resolution
    from service.db import session_scope

    ready, _mail = catch_sends()
    client = app.test_client()
    api = TestApi(client)
    rng = random.Random(1)
    seats = [{"name": n, "email": f"{n}@example.com"} for n in ("alice", "bob")]
    created = client.post("/api/games", json={"ruleset": "universal", "title": "Mail count",
                                              "options": {"width": 8, "height": 8},
                                              "seats": seats}).get_json()
    gid = str(created["id"])
    tokens = [client.post(f"/api/games/{gid}/join", json={"invite_token": s["invite_token"]})
              .get_json()["player_token"] for s in created["seats"]]
    clock = app.config["CLOCK"]
    for _ in range(rounds):
        with app.app_context():
            while ready:
                with session_scope() as session:
                    resolution.resolve_round(session, *ready.pop())
        game = client.get(f"/api/games/{gid}").get_json()
        if game["status"] != "active":
            break
        for token in tokens:
            clock.advance(timedelta(minutes=7))
            send_orders(api, gid, token, int(game["round"]), rng)
    with app.app_context():
        while ready:
            with session_scope() as session:
                resolution.resolve_round(session, *ready.pop())
    return gid


def mail_rows(app: Any, gid: str) -> tuple[list[int], list[list[int]]]:
    """The game's confirmation rows, and its results rows grouped by step."""
    from sqlalchemy import select

    from service.db import session_scope
    from service.models import Outbox

    with app.app_context(), session_scope() as session:
        rows = session.execute(select(Outbox.id, Outbox.kind, Outbox.payload)
                               .where(Outbox.game_id == gid).order_by(Outbox.id)).all()
    confirmations = [int(i) for i, kind, _p in rows if kind == "confirmation"]
    steps: dict[int, list[int]] = {}
    for i, kind, payload in rows:
        if kind == "results":
            steps.setdefault(int(payload["step"]), []).append(int(i))
    return confirmations, [steps[t] for t in sorted(steps)]


def compose_group(app: Any, ids: list[int], together: bool, marks: Marks,
                  keep: Callable[[int, bytes], None]) -> None:
    """Compose and write these rows as delivery does (the row, its game with its seats);
    together: in one transaction sharing its reads (service.memo), as one message's rows."""
    from sqlalchemy import select
    from sqlalchemy.orm import joinedload

    from service.db import session_scope
    from service.mail.settings import mail_settings
    from service.memo import shared
    from service.models import Game, Outbox
    from service.outbound.compose import compose
    from service.outbound.deliver import wire_bytes

    settings = mail_settings(app.config)
    with session_scope() as session:
        def one(outbox_id: int) -> None:
            row = session.get(Outbox, outbox_id)
            assert row is not None
            # Held while composing, as delivery holds it: the session's identity map is weak.
            game = session.get(Game, row.game_id, options=[joinedload(Game.seats)])
            with marks.counted():
                raw = wire_bytes(compose(session, row, settings), settings)
            keep(outbox_id, raw)
            del game

        if together:
            with session.begin(), shared(session):
                rows = list(session.scalars(select(Outbox).where(Outbox.id.in_(ids))))
                for outbox_id in ids:
                    one(outbox_id)
                del rows
        else:
            for outbox_id in ids:
                with session.begin():
                    one(outbox_id)


def forget_caches() -> None:
    """The per-process caches a worker fills as it goes (the record, grids, legal orders, the
    encoded lines and attachments)."""
    from service import caches
    from service.mail import mime

    caches.clear_all()
    mime.base64_lines.cache_clear()
    mime._qp_body.cache_clear()


def measure(app: Any, confirmations: list[int], steps: list[list[int]], passes: int, cold: bool,
            marks: Marks, save: Path | None) -> dict[str, tuple[int, float]]:
    """{kind: (mails composed, CPU seconds)} over the counted passes."""
    def keep(outbox_id: int, raw: bytes) -> None:
        if save is not None:
            (save / f"{outbox_id}.eml").write_bytes(raw)

    out: dict[str, tuple[int, float]] = {}
    with app.app_context():
        compose_group(app, confirmations, False, Marks(None), keep)  # warm: imports, templates
        for group in steps:
            compose_group(app, group, True, Marks(None), keep)
        marks.start()
        for kind, groups, together in (("confirmation", [confirmations], False), ("results", steps, True)):
            cpu = 0.0
            for _ in range(passes):
                if cold:
                    forget_caches()
                for group in groups:
                    t0 = time.process_time()
                    compose_group(app, group, together, marks, lambda i, raw: None)
                    cpu += time.process_time() - t0
            out[kind] = (passes * sum(len(g) for g in groups), cpu)
            marks.dump(kind)
    return out


def inside(args: argparse.Namespace) -> None:
    from service import create_app
    from service.clock import FakeClock
    from service.db import engine_of
    from service.migrate import upgrade

    os.environ.setdefault("PYTHONHASHSEED", "0")
    save = Path(args.save) if args.save else None
    if save is not None:
        save.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, database(args.keep) as (url, fresh):
        marks = Marks.load(Path(tmp))
        app = create_app({"DATABASE_URL": url, "REDIS_URL": None, "SECRET_KEY": "bench",
                          "BASE_URL": "http://127.0.0.1", "GAMES_PER_CLIENT": "off",
                          "CONFIRMED_DOMAINS": ("example.com",),
                          "CLOCK": FakeClock(START)})
        if fresh:
            upgrade(engine_of(app))
            play(app, args.rounds)
        from sqlalchemy import text

        with engine_of(app).connect() as conn:
            gid = str(conn.execute(text("SELECT id FROM games ORDER BY created_at LIMIT 1")).scalar())
        confirmations, steps = mail_rows(app, gid)
        result = measure(app, confirmations, steps, args.passes, args.cold, marks, save)
        engine_of(app).dispose()
    for kind, (n, cpu) in result.items():
        print(f"{kind}: {n} mails, {1000 * cpu / max(n, 1):.2f} ms CPU a mail")


@contextmanager
def database(keep: str | None) -> Iterator[tuple[str, bool]]:
    """(url, fresh): a private database dropped at the end, or one kept by name (made once)."""
    if keep is None:
        with private_database("mailcount") as url:
            yield url, True
        return
    import psycopg

    name = f"dicepost_bench_keep_{keep}"
    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        fresh = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None
        if fresh:
            conn.execute(f'CREATE DATABASE "{name}"')
    yield url_of(name), fresh


def counted(out_dir: Path) -> dict[str, int]:
    """Instructions of each dump callgrind wrote (its `summary:` or `totals:` line)."""
    found: dict[str, int] = {}
    for path in sorted(out_dir.glob("callgrind.out*")):
        label, total = "", 0
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("desc: Trigger: Client Request: "):
                label = line.rsplit(": ", 1)[-1]
            elif line.startswith(("summary:", "totals:")):
                total = int(line.split()[1])
        if label:
            found[label] = total
    return found


def print_per_mail(stdout: str, totals: dict[str, int], digits: int) -> None:
    """Each marked part's instructions a mail: its callgrind total over the count the run printed
    beside its name ("name: count ...")."""
    for line in stdout.splitlines():
        name, _, rest = line.partition(": ")
        if name in totals:
            n = int(rest.split()[0])
            print(f"{name}: {totals[name] / max(n, 1) / 1e6:.{digits}f} M instructions a mail (callgrind)")


def under_callgrind(module: str, args: list[str]) -> tuple[str, dict[str, int]]:
    """`python -m module args` under callgrind, counting between its marks only: what it
    printed (printed here too) and the instructions of each mark's dump. Exits with its
    errors if it failed."""
    out_dir = Path(tempfile.mkdtemp(prefix=f"{module.rpartition('.')[2]}-"))
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no",
           f"--callgrind-out-file={out_dir}/callgrind.out.%p", sys.executable, "-m", module, *args]
    env = {**os.environ, "PYTHONHASHSEED": "0", "MAILCOUNT_MARKS": "1"}
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(done.stderr[-4000:])
    print(done.stdout, end="")
    totals = counted(out_dir)
    shutil.rmtree(out_dir, ignore_errors=True)
    return done.stdout, totals


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.mailcount", description=__doc__)
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--passes", type=int, default=3)
    p.add_argument("--cold", action="store_true", help="empty the per-process caches before every pass")
    p.add_argument("--callgrind", action="store_true", help="count instructions under valgrind")
    p.add_argument("--keep", help="compose from the database kept under this name (played once)")
    p.add_argument("--save", help="write every composed mail to this directory")
    args = p.parse_args()
    if not args.callgrind:
        inside(args)
        return
    again = ["--rounds", str(args.rounds), "--passes", str(args.passes)]
    again += ["--cold"] if args.cold else []
    again += ["--keep", args.keep] if args.keep else []
    print_per_mail(*under_callgrind("bench.mailcount", again), digits=2)


if __name__ == "__main__":
    main()
