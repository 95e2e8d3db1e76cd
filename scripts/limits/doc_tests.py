"""Tests the docs cite must exist: README.md and docs/*.md name the tests that pin a behaviour (docs/LCK.md maps
each LiveCommunicationKit row to one), and a test renamed or moved leaves the doc pointing at nothing.

A citation is any word ending in `Tests`, alone or followed by `.Name`:
  - `SIPMediaTests`: a test class (`class SIPMediaTests`) or a test module (a folder under Tests/);
  - `SIPMediaTests.testBothWays`: a test method (`func testBothWays`) in a file that declares or extends the class;
  - `CallstormCLITests.SIPMediaRunTests`: a module and a class in it (`Module.Class`, as `swift test --filter` takes);
  - `testBothWays` alone: a method of a class cited earlier on the same line (`SIPMediaTests.testA, testB`), or of
    any test class when the line cites none.
A word that is not meant as a citation (a prose use of a word ending in `Tests`) can be excused on its line with
`<!-- limits: <reason> -->`.
"""

import os
import re

CITATION = re.compile(r"(?<![\w/.-])([A-Z][A-Za-z0-9]*Tests)(?:\.([A-Za-z_][A-Za-z0-9_]*))?")
CLASS = re.compile(r"^(?:final\s+|public\s+|open\s+)*class\s+([A-Z]\w*)\b", re.M)
EXTENSION = re.compile(r"^(?:public\s+)?extension\s+([A-Z]\w*)\b", re.M)
METHOD = re.compile(r"\bfunc\s+(test\w*)\s*\(")
BARE_METHOD = re.compile(r"(?<![\w.])(test[A-Z][A-Za-z0-9_]*)")
DOC_MARKER = re.compile(r"<!--\s*limits:\s*\S")


def test_index(root):
    """(modules, {class: module}, {class: set of test methods}) over every Swift file under Tests/."""
    modules, classes, methods = set(), {}, {}
    tests = os.path.join(root, "Tests")
    if not os.path.isdir(tests):
        return modules, classes, methods
    for module in sorted(os.listdir(tests)):
        if not os.path.isdir(os.path.join(tests, module)):
            continue
        modules.add(module)
        for directory, subdirs, files in os.walk(os.path.join(tests, module)):
            subdirs.sort()
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
                index_file(text, module, classes, methods)
    return modules, classes, methods


def index_file(text, module, classes, methods):
    """Adds the classes the file declares and the test methods of each type it declares or extends: a method is
    given to the nearest top-level `class` or `extension` above it (nested types are indented and
    not test classes)."""
    owners = sorted([(m.start(), m.group(1), True) for m in CLASS.finditer(text)]
                    + [(m.start(), m.group(1), False) for m in EXTENSION.finditer(text)])
    for _, name, declared in owners:
        if declared:
            classes.setdefault(name, module)
    for hit in METHOD.finditer(text):
        owner = None
        for start, name, _ in owners:
            if start > hit.start():
                break
            owner = name
        if owner is not None:
            methods.setdefault(owner, set()).add(hit.group(1))


def doc_files(root):
    """README.md and every Markdown file under docs/, relative to root."""
    found = ["README.md"] if os.path.exists(os.path.join(root, "README.md")) else []
    docs = os.path.join(root, "docs")
    for directory, subdirs, files in os.walk(docs):
        subdirs.sort()
        found += [os.path.relpath(os.path.join(directory, f), root) for f in sorted(files) if f.endswith(".md")]
    return found


def check_citations(root, index=None):
    """(path, line, message) for every cited test that does not exist."""
    modules, classes, methods = index or test_index(root)
    problems = []
    for relative in doc_files(root):
        with open(os.path.join(root, relative), encoding="utf-8", errors="replace") as handle:
            lines = handle.read().split("\n")
        for number, line in enumerate(lines, 1):
            if DOC_MARKER.search(line):
                continue
            cited = []
            for hit in CITATION.finditer(line):
                cited.append(hit.group(1))
                message = judge(hit.group(1), hit.group(2), modules, classes, methods)
                if message:
                    problems.append((relative, number, message))
            for hit in BARE_METHOD.finditer(line):
                message = judge_bare(hit.group(1), [c for c in cited if c in classes], methods)
                if message:
                    problems.append((relative, number, message))
    return problems


def judge_bare(method, cited, methods):
    """None when `method` belongs to a class the line cites (any test class if it cites none)."""
    owners = cited or list(methods)
    if any(method in methods.get(owner, set()) for owner in owners):
        return None
    if cited:
        return f"cites {method}, which none of {', '.join(sorted(set(cited)))} has"
    return f"cites {method}, which no test class has"


def judge(first, second, modules, classes, methods):
    """None when the citation names something that exists, else what is missing."""
    if second is None or not (second.startswith("test") or second[:1].isupper()):
        # `FooTests` alone, or followed by a word that is not a test's (`FooTests.swift`, `FooTests.the`).
        if second == "swift" or first in classes or first in modules:
            return None
        return f"cites {first}, which is no test class or test module under Tests/"
    if second.startswith("test"):
        if first not in classes:
            return f"cites {first}.{second}, but there is no test class {first}"
        if second not in methods.get(first, set()):
            return f"cites {first}.{second}, but {first} has no method {second}"
        return None
    if first not in modules:
        return f"cites {first}.{second}, but there is no test module {first}"
    if classes.get(second) != first:
        where = f" (it is in {classes[second]})" if second in classes else ""
        return f"cites {first}.{second}, but {first} has no test class {second}{where}"
    return None
