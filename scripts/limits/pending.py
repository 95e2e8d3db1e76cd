"""scripts/limits-pending.txt: places an open issue is already changing, printed as pending, not failed."""

import os

# file, function, type, metric and sleep entries name a Swift file; a dependency entry names a target of
# Package.swift, a duplicate entry a type name.
KINDS = ("file", "function", "type", "metric", "sleep", "dependency", "duplicate")


def load_pending(root):
    """{(path, kind): reason} from scripts/limits-pending.txt; lines starting with # are comments."""
    pending = {}
    path = os.path.join(root, "scripts", "limits-pending.txt")
    if not os.path.exists(path):
        return pending
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3 or parts[1] not in KINDS:
                raise SystemExit(f"scripts/limits-pending.txt:{number}: expected PATH KIND REASON "
                                 f"(KIND one of {', '.join(KINDS)}), got: {line}")
            pending[(parts[0], parts[1])] = parts[2]
    return pending


def kind_of(message):
    first = message.split(" ")[0]
    if first in KINDS:
        return first
    if first == "test":
        return "sleep"
    return "type" if " stored properties" in message else "metric"
