"""The whole tree: every Swift file under Sources and Tests, then the checks across modules (Package.swift's
dependencies against the imports, one module per type name) and the tests the docs cite."""

import os

from doc_tests import check_citations
from package import check_dependencies, read_targets
from pending import kind_of, load_pending
from sizes import METRIC_DIRECTORY, check_file
from type_names import check_type_names


def check_tree(root, notes=None):
    pending = load_pending(root)
    used = set()
    problems = []

    def judge(key, message):
        if key in pending:
            used.add(key)
            if notes is not None:
                notes.append(f"{message.split(': ', 1)[0]}: pending ({pending[key]}): "
                             f"{message.split(': ', 1)[-1]}")
        else:
            problems.append(message)

    for relative, text, test in swift_files(root):
        metric = relative.startswith(METRIC_DIRECTORY + os.sep)
        for line, message in check_file(relative, text, metric_literals=metric, sleeps=test):
            judge((relative, kind_of(message)), f"{relative}:{line}: {message}")
    for target, message in check_dependencies(root):
        judge((target, "dependency"), message)
    directories = {t.name: t.directory for t in read_targets(root)} \
        if os.path.exists(os.path.join(root, "Package.swift")) else {}
    for name, message in check_type_names(root, directories):
        judge((name, "duplicate"), f"Sources: {message}")
    for relative, line, message in check_citations(root):
        problems.append(f"{relative}:{line}: {message}")
    for key in sorted(set(pending) - used):
        if notes is not None:
            notes.append(f"scripts/limits-pending.txt: {key[0]} {key[1]} is within the limits now: remove the entry")
    return problems


def swift_files(root):
    """(path relative to root, text, whether it is test code) of every Swift file under Sources and Tests."""
    for top in ("Sources", "Tests"):
        for directory, subdirs, files in os.walk(os.path.join(root, top)):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(directory, name)
                relative = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
                test = top == "Tests" or relative.startswith(os.path.join("Sources", "TestSupport") + os.sep)
                yield relative, text, test
