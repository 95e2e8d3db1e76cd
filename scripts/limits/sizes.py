"""File, function and type sizes, and metric names spelled outside the catalog."""

import os
import re

from sleeps import computed_sleeps, fixed_sleeps, sleep_marked
from swift_text import FUNCTION, PROPERTY, TYPE, SwiftFile

FILE_LINES = 500
FUNCTION_LINES = 80
STORED_PROPERTIES = 15
METRIC_LITERAL = re.compile(r'\b(count|record)\("[a-z_]+\.[a-z_.]+"')
METRIC_DIRECTORY = os.path.join("Sources", "Driver")


def check_file(path, text, metric_literals=False, sleeps=False):
    """Every unmarked limit broken in one file, as (line, message), line 1-based."""
    f = SwiftFile(path, text)
    problems = []
    if len(f.lines) > FILE_LINES and not f.file_marked():
        problems.append((1, f"file has {len(f.lines)} lines (limit {FILE_LINES})"))
    for index, line in enumerate(f.code):
        if FUNCTION.match(line):
            end = f.body_end(index)
            if end is not None:
                length = end - index + 1
                if length > FUNCTION_LINES and not f.marked(index):
                    name = line.strip().split("{")[0].strip()
                    problems.append((index + 1, f"function has {length} lines (limit {FUNCTION_LINES}): {name}"))
        m = TYPE.match(line)
        if m and m.group(1) in ("struct", "class", "actor"):
            count = stored_properties(f, index)
            if count > STORED_PROPERTIES and not f.marked(index):
                problems.append((index + 1, f"{m.group(1)} {m.group(2)} has {count} stored properties "
                                            f"(limit {STORED_PROPERTIES})"))
        if sleeps and not sleep_marked(f, index):
            for seconds, call in fixed_sleeps(f, index):
                problems.append((index + 1, f"test sleeps {seconds:g} s ({call}); wait for an event or move the "
                                            "manual clock"))
            for call in computed_sleeps(f, index):
                problems.append((index + 1, f"test sleeps for a computed duration ({call}); wait for an event, or "
                                            "say why the real clock is the point with '// sleep-ok: <reason>'"))
        if metric_literals:
            raw = f.lines[index]
            for hit in METRIC_LITERAL.finditer(raw):
                # Only a call in code (the literal itself is a string, so test the call's name).
                if f.code[index][hit.start()] != " " and not f.marked(index):
                    problems.append((index + 1, f"metric name literal {hit.group(0)[len(hit.group(1)) + 1:]} "
                                                "outside the catalog (use MetricName)"))
    return problems


def stored_properties(f, index):
    end = f.body_end(index)
    if end is None:
        return 0
    # The line holding the type's opening brace sets its body depth.
    start = index
    while "{" not in f.code[start]:
        start += 1
    body_depth = f.depth_before[start] + 1
    count = 0
    for j in range(start + 1, end + 1):
        if f.depth_before[j] != body_depth:
            continue
        line = f.code[j]
        m = PROPERTY.match(line)
        if not m or re.search(r"\b(static|class)\b", m.group("mods")):
            continue
        rest = line[m.end():]
        eq, brace = rest.find("="), rest.find("{")
        if brace >= 0 and (eq < 0 or brace < eq):
            block = rest[brace:] + " ".join(f.code[j + 1:j + 3])
            if not re.search(r"\b(willSet|didSet)\b", block):
                continue  # a computed property
        count += max(1, rest.split("=")[0].count(",") + 1) if m.group("kind") == "let" and "(" not in \
            rest.split("=")[0] else 1
    return count
