"""One name, one type: a struct, class, enum, protocol, actor or typealias declared at file scope under Sources is
named in one module only.

Two public `FaultWindow`s in two modules compile until a file imports both, and then every use needs a module
prefix; two internal ones send a reader (and grep) to the wrong file. Nested types are their owner's business and
file-private ones cannot meet, so neither counts. A name another branch is already renaming is listed in
scripts/limits-pending.txt as `NAME duplicate <reason>` and printed as pending until it is gone.
"""

import os
import re

from swift_text import SwiftFile

DECLARATION = re.compile(r"^\s*(?P<mods>(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|"
                         r"open|final|indirect|nonisolated|distributed)(?:\([^)]*\))?\s+)*)"
                         r"(?P<kind>struct|class|enum|protocol|actor|typealias)\s+(?P<name>[A-Za-z_]\w*)")


def file_scope_types(text):
    """[(line, kind, name)] of the types `text` declares at file scope, not private or fileprivate."""
    f = SwiftFile("", text)
    found = []
    for index, line in enumerate(f.code):
        if f.depth_before[index] != 0:
            continue
        hit = DECLARATION.match(line)
        if hit and not re.search(r"\b(?:private|fileprivate)\b", hit.group("mods")):
            found.append((index + 1, hit.group("kind"), hit.group("name")))
    return found


def module_of(relative, directories):
    """The target whose directory holds `relative` (the longest match), else the folder under Sources."""
    best = None
    for name, directory in directories.items():
        prefix = directory.rstrip("/") + "/"
        if relative.startswith(prefix) and (best is None or len(prefix) > len(directories[best]) + 1):
            best = name
    return best or relative.split(os.sep)[1]


def check_type_names(root, directories):
    """[(name, message)] for every type name declared in more than one module under ROOT/Sources.

    `directories`: {target: directory relative to root} from Package.swift, to name each file's module."""
    places = {}  # name -> {module: "path:line"}
    for folder, subdirs, files in os.walk(os.path.join(root, "Sources")):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for file in sorted(files):
            if not file.endswith(".swift"):
                continue
            path = os.path.join(folder, file)
            relative = os.path.relpath(path, root)
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
            module = module_of(relative, directories)
            for line, _, name in file_scope_types(text):
                places.setdefault(name, {}).setdefault(module, f"{relative}:{line}")
    problems = []
    for name in sorted(places):
        modules = places[name]
        if len(modules) > 1:
            where = ", ".join(f"{module} ({modules[module]})" for module in sorted(modules))
            problems.append((name, f"type {name} is declared in {len(modules)} modules: {where}; rename all but one "
                                   "(or nest it in the type that owns it)"))
    return problems
