#!/usr/bin/python3
"""Prints scripts/bench-http's results as one table, then memory, CPU per row, and the targets.

Usage: bench-table.py RESULTS

Each figure is the median over the rounds; a ratio is the median of the rounds' own ratios,
since an anchor and its case run side by side in every round and share that round's noise.
"""
import statistics
import sys

MiB = 1024  # VmRSS is in kB


def parse(path):
    meta, results, rss = {}, [], []
    with open(path) as file:
        for line in file:
            kind, *fields = line.split()
            values = dict(field.split("=", 1) for field in fields)
            if kind == "meta":
                meta.update(values)
            elif kind == "result":
                results.append(values)
            elif kind == "rss":
                rss.append(values)
    return meta, results, rss


def main():
    meta, results, rss = parse(sys.argv[1])
    clk_tck = int(meta["clk_tck"])

    def bytes_of(key):
        return f"{int(meta[key]) / 1024:,.0f} KiB"

    cases = {
        "page-50": (f"GET inbox page, 50 messages ({bytes_of('page_50_bytes')})", "nginx-page-50"),
        "nginx-page-50": ("  nginx, the same bytes from a file", None),
        "page-500": (f"GET inbox page, 500 messages ({bytes_of('page_500_bytes')})", "nginx-page-500"),
        "nginx-page-500": ("  nginx, the same bytes from a file", None),
        "page-10000": (f"GET inbox page, 500 of 10,000 ({bytes_of('page_10000_bytes')})", "nginx-page-10000"),
        "nginx-page-10000": ("  nginx, the same bytes from a file", None),
        "render-50": ("GET inbox page, 50, rendered for a new address", None),
        "render-10000": ("GET inbox page, 500 of 10,000, rendered for a new address", None),
        "not-modified": ("GET inbox page, 50, If-None-Match: 304", None),
        "css": (f"GET /style.css ({bytes_of('css_bytes')})", "nginx-css"),
        "nginx-css": ("  nginx, the same bytes from a file", None),
        "post-500": ("POST mark-read/unread, 500 stored", "sqlite"),
        "post-10000": ("POST mark-read/unread, 10,000 stored", "sqlite"),
        "sqlite": ("  SQLite: 1 INSERT per commit, WAL, FULL", None),
    }

    runs = {}
    for result in results:
        runs.setdefault((result["case"], int(result["connections"])), []).append(result)

    def rate(run):
        return int(run["requests"]) / (int(run["duration_us"]) / 1e6)

    def per_round(case, connections):
        return {run["round"]: run for run in runs.get((case, connections), [])}

    def cpu_per_request(case, connections, field=None):
        chosen = runs.get((case, connections), [])
        requests = sum(int(run["requests"]) for run in chosen)
        fields = [field] if field else ["utime", "stime"]
        ticks = sum(int(run[name]) for run in chosen for name in fields)
        return ticks / clk_tck / requests * 1e6 if requests else float("nan")

    def ratio(case, connections):
        anchor = cases[case][1]
        if not anchor:
            return None
        # SQLite's rate is one serial writer's: the anchor for both connection counts.
        anchor_rounds = per_round(anchor, 1 if anchor == "sqlite" else connections)
        ratios = [rate(run) / rate(anchor_rounds[name])
                  for name, run in per_round(case, connections).items() if name in anchor_rounds]
        return statistics.median(ratios) if ratios else None

    def commits_made(chosen):
        """Commits made during these runs, by the page's revision, or None if it could not be read."""
        counts = [run.get("commits", "unknown") for run in chosen]
        return None if "unknown" in counts else sum(int(count) for count in counts)

    def median(case, connections, key):
        return statistics.median(float(run[key]) for run in runs[(case, connections)])

    header = ["case", "conns", "requests/s", "(range)", "p50 ms", "p99 ms", "CPU µs/req", "ratio", "anchor"]
    rows = []
    problems = []
    order = ["page-50", "nginx-page-50", "page-500", "nginx-page-500", "page-10000", "nginx-page-10000",
             "render-50", "render-10000", "not-modified", "css", "nginx-css", "post-500", "post-10000", "sqlite"]
    for case in order:
        for connections in (64, 1):
            if (case, connections) not in runs:
                continue
            chosen = runs[(case, connections)]
            rates = [rate(run) for run in chosen]
            errors = sum(int(run["errors"]) for run in chosen)
            if errors:
                problems.append(f"{case} at {connections} connections: {errors} errors (failed connections or status >= 400)")
            if case.startswith("post-"):
                requests = sum(int(run["requests"]) for run in chosen)
                commits = commits_made(chosen)
                # A commit holds at most one post per connection, since each waits for its answer:
                # fewer commits than that would mean posts that changed nothing (a toggle out of step).
                if commits is None:
                    problems.append(f"{case} at {connections} connections: the ETag no longer shows the revision, "
                                    "so commits were not counted")
                elif commits * connections < requests:
                    problems.append(f"{case} at {connections} connections: {requests} answered posts in only "
                                    f"{commits} commits: some posts changed nothing")
            label, anchor = cases[case]
            value = ratio(case, connections)
            cpu = cpu_per_request(case, connections) if case != "sqlite" else None
            rows.append([
                label, str(connections),
                f"{statistics.median(rates):,.0f}", f"{min(rates):,.0f}–{max(rates):,.0f}",
                f"{median(case, connections, 'p50_us') / 1000:.3f}", f"{median(case, connections, 'p99_us') / 1000:.3f}",
                "" if cpu is None else f"{cpu:,.1f}",
                "" if value is None else f"{value:.2f}×",
                "" if anchor is None else ("SQLite commits/s" if anchor == "sqlite" else "nginx"),
            ])

    widths = [max(len(row[index]) for row in rows + [header]) for index in range(len(header))]
    def line(row):
        return "  ".join(text.ljust(widths[index]) if index in (0, 3, 8) else text.rjust(widths[index])
                         for index, text in enumerate(row)).rstrip()
    print()
    print(f"Mailroom over HTTP: wrk, keep-alive, {meta['rounds']} interleaved rounds of {meta['seconds']} s per case; "
          f"{meta['nproc']} cores; Mailroom --threads 2, nginx 2 workers, wrk 2 threads (1 for 1 connection)")
    print(line(header))
    print(line(["-" * width for width in widths]))
    for row in rows:
        print(line(row))
    print()

    # Memory: every Mailroom after every round.
    stored = {"m50": "50 stored", "m500": "500 stored", "m10000": "10,000 stored"}
    by_server = {}
    for entry in rss:
        by_server.setdefault(entry["server"], []).append(entry)
    for server, entries in by_server.items():
        after = " / ".join(f"{int(entry['VmRSS:']) / MiB:.1f}" for entry in entries)
        print(f"RSS after each round, {stored[server]}: {after} MiB (peak {int(entries[-1]['VmHWM:']) / MiB:.1f} MiB)")

    # The extra CPU of 4,950 more rows: the 5,000-row page against the 50-row one. Sent from the
    # whole-page cache, that is the cost of sending a row; rendered for a new address (rows from
    # the row cache, as after a change), less the sending, it is the cost of rendering a row.
    def per_extra_row(big, small, connections, field=None):
        if (big, connections) not in runs or (small, connections) not in runs:
            return None
        args = (field,) if field else ()
        # 500 rows against 50.
        return (cpu_per_request(big, connections, *args) - cpu_per_request(small, connections, *args)) / 450

    per_row = {}
    for connections in (64, 1):
        plural = "s" if connections > 1 else ""
        sent = per_extra_row("page-10000", "page-50", connections)
        if sent is not None:
            user = per_extra_row("page-10000", "page-50", connections, "utime")
            print(f"Server CPU per additional row sent, {connections} connection{plural}: "
                  f"{sent:.3f} µs ({user:.3f} µs of it in user space)")
        served = per_extra_row("render-10000", "render-50", connections)
        if served is not None and sent is not None:
            per_row[connections] = served - sent
            print(f"Server CPU per additional row rendered, {connections} connection{plural}: {served - sent:.3f} µs "
                  f"({served:.3f} µs rendered and sent, less {sent:.3f} µs sending)")
    for case in ("post-500", "post-10000"):
        for connections in (64, 1):
            chosen = runs.get((case, connections), [])
            if chosen:
                requests = sum(int(run["requests"]) for run in chosen)
                commits = commits_made(chosen)
                if commits is None:
                    made = "an unknown number of commits"
                else:
                    made = f"{commits:,} commits, {requests / max(commits, 1):.1f} posts per commit"
                print(f"{cases[case][0]}, {connections} conn.: {requests:,} posts answered, {made} "
                      "(by the page's revision, counting posts in flight when wrk stopped)")

    # The targets of issue 6.
    def met(condition):
        return "met" if condition else "NOT met"
    print()
    print("Targets (issue 6):")
    value = ratio("page-50", 64)
    if value is not None:
        print(f"  GET page, 50 messages, 64 connections, >= 0.5x nginx: {value:.2f}x  {met(value >= 0.5)}")
    if value is not None:
        print(f"  GET page of 50, 64 connections, logging off, >= 0.8x nginx (issue 10): {value:.2f}x  {met(value >= 0.8)}")
    if ("page-50", 1) in runs:
        p50 = median("page-50", 1, "p50_us") / 1000
        print(f"  GET page, single connection, p50 < 0.1 ms: {p50:.3f} ms  {met(p50 < 0.1)}")
    if value is not None:
        print(f"  issue 27: GET page of 50, 64 connections, logging off, >= 1.1x nginx: {value:.2f}x  {met(value >= 1.1)}")
    value = ratio("css", 64)
    if value is not None:
        print(f"  GET /style.css, 64 connections, >= 0.8x nginx: {value:.2f}x  {met(value >= 0.8)}")
        print(f"  issue 27: GET /style.css, 64 connections, >= 1.0x nginx: {value:.2f}x  {met(value >= 1.0)}")
    for case in ("post-500", "post-10000"):
        value = ratio(case, 64)
        if value is not None:
            print(f"  Durable POST, 64 connections, {cases[case][0].split(', ')[1]}, >= 2x SQLite: {value:.2f}x  "
                  f"{met(value >= 2)}")
    if 64 in per_row:
        print(f"  CPU per additional row rendered < 0.5 µs: {per_row[64]:.3f} µs  {met(per_row[64] < 0.5)}")
    big = by_server.get("m10000")
    if big:
        last = int(big[-1]["VmRSS:"]) / MiB
        growth = (int(big[-1]["VmRSS:"]) - int(big[0]["VmRSS:"])) / MiB
        print(f"  RSS after the run, 10,000 stored, < 40 MiB: {last:.1f} MiB  {met(last < 40)}; "
              f"growth from round 1 to {len(big)}: {growth:+.1f} MiB  {met(growth < 1)}")
    if problems:
        print()
        for problem in problems:
            print("warning: " + problem)


if __name__ == "__main__":
    main()
