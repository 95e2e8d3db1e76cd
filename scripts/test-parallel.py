#!/usr/bin/env python3
"""Runs the XCTest bundle's test classes side by side, then the classes that need the machine to themselves, one
at a time (`make test`).

The suite waits far more than it computes: most classes launch callstorm, Kamailio or SIPp and wait for a run to
play out on the real clock (`make test` took 11 min 59 s at a load of 0.3-0.5 on 2 cores). Classes are independent:
ports come from the kernel (port 0, `freePort()`), temporary directories carry a unique name, child processes are
each test's own. So WORKERS classes run at once, each in its own process of the bundle (`<bundle> Module.Class`),
which keeps what a class shares between its tests (`SharedResult`) shared; `swift test --parallel` would start
one process per test method and make such a class's shared run once per test.

A class that measures the machine (CPU, scheduler lag, saturation) or loads it on purpose says so with a comment
directly above its declaration:

    // serial: <why it needs the machine to itself>

and runs after the others, alone. A marker without a reason fails the run.

Output: one line per class as it ends; the whole output of a class that failed, once it ends; at the end every
failing test by name (`Module.Class/testName`) with its assertion lines. Exit status 1 when any test failed, a
class crashed or overran its time, 0 otherwise. Each class's duration is kept in .build/test-times.json so the next
run starts the longest classes first.

Usage: scripts/test-parallel.py [--workers N] [--filter REGEX] [--class-timeout SECONDS] BUNDLE
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMES = os.path.join(ROOT, ".build", "test-times.json")
SERIAL_MARKER = re.compile(r"^\s*//\s*serial:(.*)$")
CLASS = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:final|public|internal|open)\s+)*class\s+(\w+)\s*:")
# "Executed 4 tests, with 1 failure (0 unexpected)", or "Executed 1 test, with 1 test skipped and 0 failures (...)".
EXECUTED = re.compile(r"Executed (\d+) tests?, with (?:\d+ tests? skipped and )?(\d+) failures? \((\d+) unexpected\)")
SKIPPED = re.compile(r"Test Case '[^']+' skipped")
FAILED_CASE = re.compile(r"Test Case '(?:\w+\.)?(\w+)\.(\w+)' failed")
CASE_STARTED = re.compile(r"Test Case '([^']+)' started")
CASE_ENDED = re.compile(r"Test Case '([^']+)' (?:passed|failed|skipped)")
# A class never measured: end-to-end modules first (they launch processes and wait), so a long class does not start
# last and leave the other workers idle.
FIRST_GUESS = {"CallstormCLITests": 30.0, "SIPClientTests": 10.0, "KamailioTests": 10.0, "WebSocketClientTests": 5.0,
               "PushGatewayTests": 5.0, "DriverTests": 3.0, "FaultProxyTests": 3.0, "TransportTests": 3.0}


def serial_classes(root):
    """{class name: reason} of every test class marked `// serial: <reason>` under Tests/."""
    marked, missing = {}, []
    for folder, _, files in os.walk(os.path.join(root, "Tests")):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8", errors="replace") as handle:
                lines = handle.read().split("\n")
            for index, line in enumerate(lines):
                hit = SERIAL_MARKER.match(line)
                if not hit:
                    continue
                j = index + 1
                while j < len(lines) and lines[j].strip().startswith(("//", "@")) and not CLASS.match(lines[j]):
                    j += 1
                declared = CLASS.match(lines[j]) if j < len(lines) else None
                where = f"{os.path.relpath(path, root)}:{index + 1}"
                if not declared or not hit.group(1).strip():
                    missing.append(where)
                else:
                    marked[declared.group(1)] = hit.group(1).strip()
    if missing:
        raise SystemExit("test-parallel: '// serial: <reason>' must sit directly above a test class and say why: "
                         + ", ".join(missing))
    return marked


def list_classes(bundle):
    """{"Module.Class": test count} from the bundle's own list."""
    listing = subprocess.run([bundle, "--list-tests"], capture_output=True, text=True, cwd=ROOT)
    if listing.returncode != 0:
        raise SystemExit(f"test-parallel: {bundle} --list-tests failed:\n{listing.stdout}{listing.stderr}")
    classes = {}
    for line in listing.stdout.split("\n"):
        line = line.strip()
        if "/" in line and "." in line.split("/")[0]:
            name = line.split("/")[0]
            classes[name] = classes.get(name, 0) + 1
    return classes


class Outcome:
    def __init__(self, name, status, seconds, output):
        self.name = name
        self.seconds = seconds
        self.output = output
        counts = EXECUTED.findall(output)
        self.executed = int(counts[-1][0]) if counts else 0
        self.failures = int(counts[-1][1]) if counts else 0
        self.skipped = len(SKIPPED.findall(output))
        self.failed_tests = sorted({f"{name.split('.')[0]}.{c}/{t}" for c, t in FAILED_CASE.findall(output)})
        if status is None:
            self.problem = "overran its time and was stopped" + self.running()
        elif status < 0:
            self.problem = f"crashed ({signal.Signals(-status).name})" + self.running()
        elif status != 0 and not self.failures:
            self.problem = f"exited {status} without a failing test (a fatalError?)" + self.running()
        elif not counts:
            self.problem = "ran no test (the name is not in the bundle?)"
        else:
            self.problem = None
        self.ok = status == 0 and self.problem is None and self.failures == 0

    def running(self):
        """` in Class.test` for the test that started and never ended (where a crash or an overrun happened)."""
        open_cases = set(CASE_STARTED.findall(self.output)) - set(CASE_ENDED.findall(self.output))
        return f" in {', '.join(sorted(open_cases))}" if open_cases else ""


class Runner:
    def __init__(self, bundle, timeout):
        self.bundle = bundle
        self.timeout = timeout
        self.lock = threading.Lock()
        self.children = set()
        self.done = 0
        self.total = 0
        self.stopping = False

    def run_class(self, name):
        if self.stopping:
            return None
        started = time.monotonic()
        with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as log:
            # A session of its own: a class that overruns (or a Ctrl-C) stops with everything it launched.
            child = subprocess.Popen([self.bundle, name], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
            with self.lock:
                self.children.add(child)
            try:
                status = child.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                stop_group(child)
                status = None
            with self.lock:
                self.children.discard(child)
            log.seek(0)
            outcome = Outcome(name, status, time.monotonic() - started, log.read())
        self.report(outcome)
        return outcome

    def report(self, outcome):
        with self.lock:
            self.done += 1
            counts = f"{outcome.executed} tests" + (f", {outcome.skipped} skipped" if outcome.skipped else "")
            verdict = "ok  " if outcome.ok else "FAIL"
            print(f"[{self.done:3}/{self.total}] {verdict} {outcome.name}  {counts}  {outcome.seconds:.1f} s",
                  flush=True)
            if not outcome.ok:
                print(f"---- output of {outcome.name} ({outcome.problem or 'failed'}) ----")
                print(outcome.output.rstrip())
                print(f"---- end of {outcome.name} ----", flush=True)

    def run(self, names, workers):
        self.total += len(names)
        pool = ThreadPoolExecutor(max_workers=max(1, workers))
        try:
            return [o for o in pool.map(self.run_class, names) if o is not None]
        except KeyboardInterrupt:
            self.stop_all()  # children run in sessions of their own: the terminal's Ctrl-C does not reach them
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def stop_all(self):
        self.stopping = True
        with self.lock:
            for child in list(self.children):
                stop_group(child)


def interrupted(signum, frame):
    raise KeyboardInterrupt


def stop_group(child):
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    child.wait()


def load_times():
    try:
        with open(TIMES, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {}


def save_times(times, outcomes):
    for outcome in outcomes:
        times[outcome.name] = round(outcome.seconds, 2)
    os.makedirs(os.path.dirname(TIMES), exist_ok=True)
    with open(TIMES, "w", encoding="utf-8") as handle:
        json.dump(times, handle, indent=1, sort_keys=True)


def summary(outcomes, started):
    tests = sum(o.executed for o in outcomes)
    skipped = sum(o.skipped for o in outcomes)
    bad = [o for o in outcomes if not o.ok]
    failures = sum(o.failures for o in outcomes)
    print(f"\ntest-parallel: {tests} tests in {len(outcomes)} classes, {failures} failed, {skipped} skipped, "
          f"{time.monotonic() - started:.0f} s")
    if not bad:
        return 0
    print("test-parallel: failing:")
    for outcome in bad:
        if outcome.problem:
            print(f"  {outcome.name}: {outcome.problem}")
        for test in outcome.failed_tests:
            print(f"  {test}")
            case = test.split("/")[-1]
            for line in outcome.output.split("\n"):
                if " error: " in line and f".{case} : " in line:
                    print(f"      {line.strip()}")
    return 1


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--filter", default=None, help="only classes whose Module.Class name matches")
    parser.add_argument("--class-timeout", type=float, default=1200)
    args = parser.parse_args(argv[1:])
    started = time.monotonic()
    serial = serial_classes(ROOT)
    classes = list_classes(args.bundle)
    names = [n for n in classes if not args.filter or re.search(args.filter, n)]
    if not names:
        print(f"test-parallel: no test class in {args.bundle}" + (f" matches {args.filter}" if args.filter else ""),
              file=sys.stderr)
        return 2
    times = load_times()
    guess = {n: times.get(n, FIRST_GUESS.get(n.split(".")[0], 1.0) * classes[n] / 5) for n in names}
    alone = sorted((n for n in names if n.split(".")[-1] in serial), key=lambda n: -guess[n])
    together = sorted((n for n in names if n.split(".")[-1] not in serial), key=lambda n: -guess[n])
    runner = Runner(args.bundle, args.class_timeout)
    print(f"test-parallel: {len(together)} classes, {args.workers} at a time; then {len(alone)} alone "
          f"({', '.join(n.split('.')[-1] for n in alone) or 'none'})", flush=True)
    outcomes = []
    # A CI runner's SIGTERM stops the classes too: they run in sessions of their own, which it would not reach.
    signal.signal(signal.SIGTERM, interrupted)
    try:
        outcomes += runner.run(together, args.workers)
        if alone:
            print("test-parallel: the classes that need the machine to themselves, one at a time", flush=True)
        outcomes += runner.run(alone, 1)
    except KeyboardInterrupt:
        runner.stop_all()
        print("test-parallel: interrupted", file=sys.stderr)
        return 130
    save_times(times, outcomes)
    return summary(outcomes, started)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
