"""Swift source read as code: which characters are comments or strings, brace depth, declarations,
and the `// limits: <reason>` marker every check honours."""

import re

MARKER = re.compile(r"//\s*limits:\s*\S"
                    # The phrase the tree used before the marker existed ("More than 15 stored properties on purpose:
                    # <why>", "Over 80 lines on purpose: <why>"), still recognised.
                    r"|//.*\b(?:[Mm]ore than|[Oo]ver)\s+\d+\b[^.]*\bon purpose\b")
STRING_START = re.compile(r'(#*)("""|")')

MODIFIERS = (r"(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|open|final|static|class|"
             r"override|mutating|nonmutating|convenience|required|dynamic|nonisolated|lazy|weak|unowned|indirect|"
             r"consuming|borrowing|isolated|distributed)(?:\([^)]*\))?\s+)*")
FUNCTION = re.compile(r"^\s*" + MODIFIERS + r"(?:func\s|init\s*[?!]?\s*[(<]|deinit\b|subscript\s*[(<])")
TYPE = re.compile(r"^\s*" + MODIFIERS + r"(struct|class|actor|enum|protocol|extension)\s+([A-Za-z_][\w.]*)")
PROPERTY = re.compile(r"^\s*" + r"(?P<mods>(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|"
                      r"package|open|final|static|class|override|lazy|weak|unowned|nonisolated|dynamic)"
                      r"(?:\([^)]*\))?\s+)*)(?P<kind>var|let)\s")



def code_mask(text):
    """For each character of `text`, whether it is code (not inside a comment or a string literal).

    Handles // and nested /* */ comments, "..." and \"\"\"...\"\"\" strings, raw strings (#"..."#) and
    interpolation (\\( ... ), whose contents are code again)."""
    mask = [True] * len(text)
    i, n = 0, len(text)
    # Stack of contexts: ("code", paren depth) inside interpolation, or ("string", hashes, multiline).
    stack = [("code", 0)]
    while i < n:
        top = stack[-1]
        c = text[i]
        if top[0] == "code":
            if text.startswith("//", i):
                j = text.find("\n", i)
                j = n if j < 0 else j
                for k in range(i, j):
                    mask[k] = False
                i = j
                continue
            if text.startswith("/*", i):
                depth, j = 1, i + 2
                while j < n and depth:
                    if text.startswith("/*", j):
                        depth, j = depth + 1, j + 2
                    elif text.startswith("*/", j):
                        depth, j = depth - 1, j + 2
                    else:
                        j += 1
                for k in range(i, j):
                    mask[k] = False
                i = j
                continue
            m = STRING_START.match(text, i) if c in "#\"" else None
            if m:
                for k in range(i, m.end()):
                    mask[k] = False
                stack.append(("string", len(m.group(1)), m.group(2) == '"""'))
                i = m.end()
                continue
            if c == "(":
                stack[-1] = ("code", top[1] + 1)
            elif c == ")":
                if top[1] == 0 and len(stack) > 1:
                    mask[i] = False
                    stack.pop()
                    i += 1
                    continue
                stack[-1] = ("code", top[1] - 1)
            i += 1
            continue
        _, hashes, multiline = top
        mask[i] = False
        escape = "\\" + "#" * hashes
        if text.startswith(escape, i):
            after = i + len(escape)
            if after < n and text[after] == "(":
                for k in range(i, after + 1):
                    mask[k] = False
                stack.append(("code", 0))
                i = after + 1
                continue
            for k in range(i, min(n, after + 1)):
                mask[k] = False
            i = after + 1
            continue
        closing = ('"""' if multiline else '"') + "#" * hashes
        if text.startswith(closing, i):
            for k in range(i, i + len(closing)):
                mask[k] = False
            stack.pop()
            i += len(closing)
            continue
        if c == "\n" and not multiline:
            stack.pop()  # an unterminated string ends at the line (a lexer error Swift would report)
        i += 1
    return mask


class SwiftFile:
    def __init__(self, path, text):
        self.path = path
        self.text = text
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        mask = code_mask(text)
        self.code = []
        pos = 0
        for line in text.split("\n"):
            self.code.append("".join(ch if mask[pos + k] else " " for k, ch in enumerate(line)))
            pos += len(line) + 1
        self.code = self.code[:len(self.lines)]
        # Brace depth at the start of each line.
        self.depth_before = []
        depth = 0
        for line in self.code:
            self.depth_before.append(depth)
            depth += line.count("{") - line.count("}")

    def marked(self, index, marker=MARKER):
        """Whether line `index` (0-based), or the comment/attribute lines directly above it, carry the marker."""
        if marker.search(self.lines[index]):
            return True
        j = index - 1
        while j >= 0:
            stripped = self.lines[j].strip()
            if not (stripped.startswith("//") or stripped.startswith("@") or stripped.startswith("*")
                    or stripped.startswith("/*")):
                return False
            if marker.search(stripped):
                return True
            j -= 1
        return False

    def file_marked(self):
        for index, line in enumerate(self.lines):
            stripped = line.strip()
            if MARKER.search(line):
                return True
            if stripped and not (stripped.startswith("//") or stripped.startswith("import ")
                                 or stripped.startswith("@") or stripped.startswith("/*")
                                 or stripped.startswith("*")):
                return False
        return False

    def body_end(self, index):
        """The 0-based line where the braces opened at or after line `index` close, or None (no body)."""
        depth = None
        for j in range(index, len(self.code)):
            line = self.code[j]
            if depth is None and j > index:
                stripped = line.strip()
                if (stripped == "" or stripped.startswith("}") or FUNCTION.match(line) or TYPE.match(line)
                        or PROPERTY.match(line) or stripped.startswith("case ")):
                    return None  # a requirement in a protocol, or a declaration with no body
            for ch in line:
                if ch == "{":
                    depth = 1 if depth is None else depth + 1
                elif ch == "}" and depth is not None:
                    depth -= 1
                    if depth == 0:
                        return j
        return None
