#!/usr/bin/env python3
"""The house limits, checked on every `make test` (README, "How it is built").

Fails, naming file:line, on
  - a Swift file over 500 lines,
  - a function (func, init, deinit, subscript, accessor-less closure bodies count with their function) over 80 lines,
  - a struct, class or actor with over 15 stored instance properties,
  - a metric name written as a string literal at a `count(`/`record(` call in Sources/Driver (the catalog,
    `MetricName`, is the one place names are spelled),
  - a sleep in a test (Tests/, Sources/TestSupport) that is literal and over 100 ms, or whose duration is computed
    (`usleep(x)`, `Thread.sleep(forTimeInterval: t)`, `Task.sleep(nanoseconds: n)`, `.now() + delay`): tests wait
    for events or move the manual clock,
  - a target of Package.swift whose declared dependencies differ from the modules its Swift files import, either
    way (limits/package.py says what counts),
  - a type name (struct, class, enum, protocol, actor, typealias at file scope) declared in two modules under
    Sources,
  - a test cited in README.md or docs/ (`FooTests`, `FooTests.testBar`, `Module.FooTests`) that does not exist
    under Tests/ (limits/doc_tests.py; a prose word can be excused with `<!-- limits: <reason> -->`),
unless the place carries a comment saying why (for a sleep: why the real clock is the point):

    // limits: <reason>          (a sleep may say // sleep-ok: <reason>)

on the offending line, or in the comment and attribute lines directly above it (a declaration's doc comment).
For a file, the marker goes in the lines before its first declaration (the file's header or the doc comment of
its first type); for a dependency kept on purpose, on its line in Package.swift. A marker with no reason does not
count. The older phrase "More than 15 stored properties on purpose: <why>" / "Over 80 lines on purpose: <why>" in
a comment counts as a marker too. A duplicate type name has no marker: rename one.

scripts/limits-pending.txt lists places an open issue is already changing (`PATH KIND reason`, KIND one of file,
function, type, metric, sleep; or `TARGET dependency reason`, `TYPENAME duplicate reason`): they are printed as
pending, not failed, so another branch's work in progress does not block this one. A pending entry that matches
nothing any more is printed (not failed, as the branch that fixed it may land first), so the list only shrinks.

The checks live in scripts/limits/, one file per concern, each with its self-test (test_*.py, fixtures in
scripts/limits/fixtures/).

Usage: scripts/limits.py [ROOT]       check ROOT/Sources, ROOT/Tests and ROOT/Package.swift (default: the repository)
       scripts/limits.py --self-test  run the checks' own unit tests
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "limits"))

from tree import check_tree  # noqa: E402 (the checks' folder is on the path only from here)


def self_test():
    suite = unittest.defaultTestLoader.discover(os.path.join(HERE, "limits"), pattern="test_*.py",
                                                top_level_dir=os.path.join(HERE, "limits"))
    result = unittest.TextTestRunner(verbosity=1).run(suite)
    return 0 if result.wasSuccessful() else 1


def main(argv):
    if argv[1:2] == ["--self-test"]:
        return self_test()
    root = argv[1] if len(argv) > 1 else os.path.dirname(HERE)
    notes = []
    problems = check_tree(root, notes)
    pending = [n for n in notes if ": pending (" in n]
    if pending:
        print(f"limits: {len(pending)} place(s) pending in scripts/limits-pending.txt (an open issue changes them)")
    for note in notes:
        if note not in pending:
            print(note)
    for problem in problems:
        print(problem)
    if problems:
        print(f"limits: {len(problems)} place(s) over the house limits; split them, or say why with "
              "'// limits: <reason>' (README, \"How it is built\")", file=sys.stderr)
        return 1
    print("limits: every Swift file, function, type, sleep, dependency, type name and cited test is within the house "
          "limits")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
