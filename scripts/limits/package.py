"""Package.swift's declared dependencies against the modules each target's Swift files import.

SwiftPM lets a file import any module built before it, declared or not, so the declared graph drifts from the real
one in both directions: a dependency nobody imports any more (it still orders the build and links), and an import
that works only because some other dependency happens to pull the module in (it breaks when that one goes). Both
are named here, per target, for every target with Swift sources (C targets include headers; their links are not
read). Only names that are targets of this package count: Foundation, Glibc, XCTest and the like are not ours.
`@testable`, `@_exported` and `@preconcurrency` imports count, as do `import struct M.Name` and imports of C
system-library targets (`import CLibyaml`). A declared dependency that is on purpose not imported (a library
linked for its symbols, such as a malloc) carries `// limits: <reason>` on its line in Package.swift.
"""

import os
import re

from swift_text import MARKER, code_mask

TARGET_CALL = re.compile(r"\.(target|testTarget|executableTarget|systemLibrary)\s*\(")
NAME = re.compile(r'\bname:\s*"([^"]+)"')
PATH = re.compile(r'\bpath:\s*"([^"]+)"')
# What follows `dependencies:` up to the next argument label of a target.
AFTER_DEPENDENCIES = re.compile(r"\b(?:path|exclude|sources|resources|publicHeadersPath|cSettings|cxxSettings|"
                                r"swiftSettings|linkerSettings|plugins|packageAccess)\s*:")
STRING = re.compile(r'"([^"\\]+)"')
IMPORT = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|package|private|fileprivate)\s+)?import\s+"
                    r"(?:(?:struct|class|enum|protocol|typealias|func|let|var)\s+)?([A-Za-z_]\w*)")


class Target:
    def __init__(self, kind, name, directory, dependencies, excused):
        self.kind = kind
        self.name = name
        self.directory = directory    # relative to the package root
        self.dependencies = dependencies  # [(name, line)] in declaration order
        self.excused = excused        # declared names whose line says why they are not imported


def read_targets(root):
    """Every target of ROOT/Package.swift, in declaration order."""
    with open(os.path.join(root, "Package.swift"), encoding="utf-8") as handle:
        text = handle.read()
    code = without_comments(text)
    lines = text.split("\n")
    targets = []
    for hit in TARGET_CALL.finditer(code):
        end = closing_paren(code, hit.end())
        call = code[hit.end():end]
        name = NAME.search(call)
        if not name:
            continue
        kind = hit.group(1)
        path = PATH.search(call)
        top = "Tests" if kind == "testTarget" else "Sources"
        directory = path.group(1) if path else os.path.join(top, name.group(1))
        dependencies, excused = [], set()
        start = call.find("dependencies:")
        if start >= 0:
            stop = AFTER_DEPENDENCIES.search(call, start)
            body_start = hit.end() + start
            body = call[start:stop.start() if stop else len(call)]
            for dep in STRING.finditer(body):
                line = text.count("\n", 0, body_start + dep.start())
                dependencies.append((dep.group(1), line + 1))
                if MARKER.search(lines[line]):
                    excused.add(dep.group(1))
        targets.append(Target(kind, name.group(1), directory, dependencies, excused))
    return targets


def without_comments(text):
    """`text` with // and /* */ comments blanked (newlines kept), string literals untouched: a manifest's strings
    are one-line names and paths."""
    out, i, n, quoted = [], 0, len(text), False
    while i < n:
        c = text[i]
        if quoted:
            quoted = c != '"' and c != "\n"
            out.append(c)
            i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.extend("\n" if ch == "\n" else " " for ch in text[i:j])
            i = j
        else:
            quoted = c == '"'
            out.append(c)
            i += 1
    return "".join(out)


def closing_paren(code, start):
    depth = 1
    for k in range(start, len(code)):
        if code[k] == "(":
            depth += 1
        elif code[k] == ")":
            depth -= 1
            if depth == 0:
                return k
    return len(code)


def imports_of(root, directory):
    """{module: first "path:line"} of every module imported by the Swift files under `directory`."""
    found = {}
    for folder, subdirs, files in os.walk(os.path.join(root, directory)):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
            mask = code_mask(text)
            position = 0
            for number, line in enumerate(text.split("\n"), 1):
                code = "".join(ch if mask[position + k] else " " for k, ch in enumerate(line))
                position += len(line) + 1
                hit = IMPORT.match(code)
                if hit:
                    found.setdefault(hit.group(1), f"{os.path.relpath(path, root)}:{number}")
    return found


def check_dependencies(root):
    """([(target, message)]) for every declared dependency not imported and every imported target not declared."""
    if not os.path.exists(os.path.join(root, "Package.swift")):
        return []
    targets = read_targets(root)
    names = {t.name for t in targets}
    problems = []
    for target in targets:
        if target.kind == "systemLibrary":
            continue
        imported = imports_of(root, target.directory)
        if not imported and not has_swift(root, target.directory):
            continue  # a C target: its headers are not read
        declared = {name for name, _ in target.dependencies}
        for name, line in target.dependencies:
            if name in names and name not in imported and name not in target.excused:
                problems.append((target.name, f"Package.swift:{line}: {target.name} declares {name} but no file "
                                              f"under {target.directory} imports it; remove it from its dependencies"))
        for name, where in sorted(imported.items()):
            if name in names and name not in declared and name != target.name:
                problems.append((target.name, f"{where}: {target.name} imports {name} without declaring it in "
                                              "Package.swift; add it to the target's dependencies"))
    return problems


def has_swift(root, directory):
    for _, _, files in os.walk(os.path.join(root, directory)):
        if any(name.endswith(".swift") for name in files):
            return True
    return False
