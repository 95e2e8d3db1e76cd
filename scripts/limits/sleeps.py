"""Sleeps in tests, which wait on the real clock however idle the machine is.

Two rules, both excused by a comment saying why the real clock is the point, on the sleep's line or in the comment
lines directly above it:

    // sleep-ok: <reason>

(the general `// limits: <reason>` counts too):
  - a literal sleep over 100 ms (`usleep(200_000)`, `.now() + .milliseconds(300)`);
  - a sleep for a computed duration (`usleep(x)`, `Thread.sleep(forTimeInterval: someVar)`, `sleep(n * 2)`,
    `Task.sleep(nanoseconds: computed)`, `asyncAfter(deadline: .now() + delay)`), whose length the first rule cannot
    read: a 400 ms outage behind a parameter passed it for months.
"""

import re

from swift_text import MARKER

SLEEP_MARKER = re.compile(r"//\s*sleep-ok:\s*\S")
SLEEP_LIMIT_SECONDS = 0.1
NUMBER = r"(\d[\d_]*(?:\.\d+)?)"
SLEEPS = [  # (pattern, seconds per unit of the captured number)
    (re.compile(r"\busleep\(\s*" + NUMBER + r"\s*\)"), 1e-6),
    (re.compile(r"(?<![\w.])sleep\(\s*" + NUMBER + r"\s*\)"), 1.0),
    (re.compile(r"Thread\.sleep\(forTimeInterval:\s*" + NUMBER + r"\s*\)"), 1.0),
    (re.compile(r"Task\.sleep\(nanoseconds:\s*" + NUMBER + r"\s*\)"), 1e-9),
    (re.compile(r"asyncAfter\(deadline:\s*\.now\(\)\s*\+\s*" + NUMBER + r"\s*\)"), 1.0),
    (re.compile(r"asyncAfter\(deadline:\s*\.now\(\)\s*\+\s*\.milliseconds\(\s*" + NUMBER + r"\s*\)"), 1e-3),
    (re.compile(r"asyncAfter\(deadline:\s*\.now\(\)\s*\+\s*\.seconds\(\s*" + NUMBER + r"\s*\)"), 1.0),
]
# Every call that waits on the real clock, up to its opening parenthesis.
SLEEP_CALL = re.compile(r"(?:(?<![\w.])(?:u|nano)?sleep|\b(?:Thread|Task)\.sleep|\.asyncAfter)\(")
# An argument that is a literal: an optional label, an optional `.now() +`, then a number or `.unit(number)`.
LITERAL_ARGUMENT = re.compile(r"^\s*(?:\w+:\s*)?(?:\.now\(\)\s*\+\s*)?(?:" + NUMBER[1:-1] + r"|\.(?:nanoseconds|"
                              r"microseconds|milliseconds|seconds)\(\s*" + NUMBER[1:-1] + r"\s*\))\s*$")


def sleep_marked(f, index):
    """Whether line `index` or the comment lines directly above it say why the sleep is on the real clock."""
    return f.marked(index) or f.marked(index, SLEEP_MARKER)


def fixed_sleeps(f, index):
    """(seconds, text) of every literal sleep over the limit on line `index`, in code."""
    found = []
    for pattern, scale in SLEEPS:
        for hit in pattern.finditer(f.code[index]):
            seconds = float(hit.group(1).replace("_", "")) * scale
            if seconds > SLEEP_LIMIT_SECONDS:
                found.append((seconds, hit.group(0)))
    return found


def computed_sleeps(f, index):
    """The text of every sleep on line `index` whose duration is not a literal (an argument read to its closing
    parenthesis, over following lines when it continues)."""
    found = []
    line = f.code[index]
    for hit in SLEEP_CALL.finditer(line):
        argument = call_argument(f, index, hit.end())
        if argument is not None and not LITERAL_ARGUMENT.match(argument):
            found.append(line[hit.start():hit.end()] + " ".join(argument.split()) + ")")
    return found


def call_argument(f, index, start):
    """The code between the parenthesis opened just before `start` on line `index` and its match; None when it
    does not close within a few lines (not a call this rule can read)."""
    depth, text = 1, []
    for j in range(index, min(index + 4, len(f.code))):
        line = f.code[j][start:] if j == index else f.code[j]
        for ch in line:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    return "".join(text)
            text.append(ch)
        text.append(" ")
    return None
