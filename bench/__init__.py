"""dicepost's benchmarks (issue 10): `python -m bench` (what `make bench` runs).

Scripts, never timed tests. Modules, one job each:

- floor.py    the machine's floor: pgbench single-row updates, redis-benchmark round trips
- engine.py   per ruleset, seeded bot games; only engine.steps.run_round is timed
- stack.py    processes on loopback: a private PostgreSQL database, gunicorn, Celery workers,
              or the embedded `dicepost serve`; peak RSS of each process
- load.py     G games × P players submitting orders concurrently over HTTP
- service.py  the service bench: a stack, the load at full speed, then at half of it
- report.py   every figure with its ratio to the floor and where each target stands
- progress.py the progress bar; machine.py the facts a result needs (nproc, load, versions)

docs/performance.md holds the results and the sizing that follows from them.
"""
