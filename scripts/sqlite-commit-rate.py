#!/usr/bin/python3
"""SQLite's own rate of durable commits, one INSERT per transaction, on the disk of FOLDER.

Usage: sqlite-commit-rate.py FOLDER SECONDS

The file gets Mailroom's settings (WAL, synchronous=FULL, exclusive locking), so this is the
most one-commit-per-request can reach there. Prints the line scripts/bench.lua prints for wrk:
  BENCH requests=N duration_us=N p50_us=X p99_us=X errors=0
"""
import os
import sqlite3
import sys
import time


def main():
    folder, seconds = sys.argv[1], float(sys.argv[2])
    path = os.path.join(folder, "sqlite-commit-rate.sqlite")
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA locking_mode = EXCLUSIVE")
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = FULL")
        connection.execute("CREATE TABLE IF NOT EXISTS commits (id INTEGER PRIMARY KEY, at INTEGER NOT NULL)")
        latencies = []
        start = time.perf_counter_ns()
        end = start + int(seconds * 1e9)
        now = start
        while now < end:
            connection.execute("BEGIN")
            connection.execute("INSERT INTO commits (at) VALUES (?)", (now,))
            connection.execute("COMMIT")
            later = time.perf_counter_ns()
            latencies.append(later - now)
            now = later
    finally:
        connection.close()
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(path + suffix)
            except FileNotFoundError:
                pass
    latencies.sort()

    def percentile(p):
        return latencies[min(len(latencies) - 1, int(len(latencies) * p / 100))] / 1e3

    print(f"BENCH requests={len(latencies)} duration_us={(now - start) // 1000} "
          f"p50_us={percentile(50):.1f} p99_us={percentile(99):.1f} errors=0")


if __name__ == "__main__":
    main()
