"""BENCH_CARRY_OVER=1, for bench-results.py: a section run alone (BENCH_ONLY) whose other sections' raw files are
gone keeps the same day's figures it did not measure, in their order, with the header (suite length, noise note,
load averages, rounds, commit) of the full run they came from; this run's rows replace theirs or are appended, each
marked with the commit it was measured at alone. With BENCH_KEEP_WORK the sections not run are rebuilt from the
earlier raw files too: a figure equal to the earlier one was carried, not measured, and keeps its earlier marking."""
import os
import sys

HEADER = ("commit", "suite_seconds", "noise", "load_average_at_start", "load_average_at_end", "rounds",
          "seconds_per_load_run")


def carry_over(result, figures, path, load_json):
    """Merges the results file at `path` into `result` and `figures` (in place); whether there was one."""
    earlier = load_json(path) if os.environ.get("BENCH_CARRY_OVER") else None
    if not earlier:
        return False
    if earlier.get("machine") != result["machine"]:
        # Rows from another machine beside this one's would read as one run; only same-machine figures carry.
        print(f"BENCH_CARRY_OVER: {path} was measured on {earlier.get('machine')}, not this machine "
              f"({result['machine']}); nothing carried over", file=sys.stderr)
        return False
    mine = {f["id"]: f for f in figures}
    before = {f["id"]: f for f in earlier["figures"]}
    for f in mine.values():
        old = before.get(f["id"])
        if old is not None and {k: v for k, v in old.items() if k != "measured_alone_at"} == f:
            mine[f["id"]] = old  # rebuilt from the same raw files: carried over as it was
        else:
            f["measured_alone_at"] = result.get("commit")
    figures[:] = [mine.pop(f["id"], f) for f in earlier["figures"]] + list(mine.values())
    result.update({k: earlier[k] for k in HEADER if k in earlier})
    return True
