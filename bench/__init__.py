"""dicepost's benchmarks (docs/performance.md): `python -m bench` (what `make bench` runs).

Scripts, never timed tests. Modules, one job each:

- floor.py    the machine's floor: pgbench single-row updates, redis-benchmark round trips
              (the web floor, in capacity.py, runs with it)
- engine.py   per ruleset, seeded bot games; only engine.steps.run_round is timed
- stack.py    processes on loopback: a private PostgreSQL database (pgdb.py), `dicepost web`,
              Celery workers, or the embedded `dicepost serve`; procs.py: peak RSS, CPU
- load.py     G games × P players submitting orders concurrently over HTTP (client.py);
              watch.py: when each round's step is committed
- service.py  the service bench: a stack, the load at full speed, then at half of it
- capacity.py what the web server and the workers can do: order submissions/s with many
              concurrent clients (rounds kept open), rounds resolved/s by N workers from a
              queue of ready rounds; and the web floor: floorapp.py (a trivial Flask app)
              under the same web server settings; hammer.py: the load generator (wrk or Python)
- report.py   every figure with its ratio to the floor; targets.py: where each target stands
- progress.py the progress bar; machine.py the facts a result needs (nproc, load, versions)
- endpoints.py `python -m bench.endpoints`: CPU ms and SQL statements per operation

docs/performance.md holds the results and the sizing that follows from them.
"""
