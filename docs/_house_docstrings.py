"""The house's docstring forms that numpydoc does not read, rewritten before numpydoc sees them.

Used by ``docs/conf.py`` (an ``autodoc-process-docstring`` handler that runs before numpydoc's).
Many estimator classes list their fitted attributes as prose in the ``Attributes`` section,
as scikit-learn's own docs do not, but as reads well in a terminal::

    Attributes
    ----------
    classes_, coef_ (1, d) or (C, d), n_iter_ (epochs), n_features_in_,
    params_ (:class:`~jaxclassic.linear.LogisticParams`)

numpydoc would take each line for one attribute's name and print its markup raw. Here such a
run becomes one entry per attribute (``coef_`` with description ``(1, d) or (C, d)``), and a
paragraph of free text after the entries (``A path of fits ... carries leading batch axes``)
moves to the ``Notes`` section. Well-formed entries (``name : type`` and an indented
description) are left as they are.
"""

from __future__ import annotations

import re

_ENTRY = re.compile(r"^[\w*]+(\s*,\s*[\w*]+)*\s*:\s*\S.*$|^[\w*]+$")
_NAMES = re.compile(r"^[\w*]+(\s*,\s*[\w*]+)*$")
_ATTRIBUTE_ITEM = re.compile(r"^([A-Za-z]\w*_)(?:\s+(.*))?$", re.S)


def _is_heading(lines, i):
    return (i + 1 < len(lines) and lines[i].strip() and lines[i + 1].strip()
            and set(lines[i + 1].strip()) == {"-"} and len(lines[i + 1].strip()) >= len(lines[i].strip()))


def _split_top_level(text):
    """Split ``text`` at commas and semicolons outside brackets and inline literals."""
    items, depth, start, in_literal = [], 0, 0, False
    i = 0
    while i < len(text):
        if text.startswith("``", i):
            in_literal = not in_literal
            i += 2
            continue
        c = text[i]
        if not in_literal:
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth = max(depth - 1, 0)
            elif c in ",;" and depth == 0:
                items.append(text[start:i])
                start = i + 1
        i += 1
    items.append(text[start:])
    return [item.strip() for item in items if item.strip()]


def _enclosed(text):
    """Whether ``text`` is one bracketed group: ``(...)`` whose first bracket closes at the end."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for i, c in enumerate(text):
        depth += (c == "(") - (c == ")")
        if depth == 0:
            return i == len(text) - 1
    return False


def _as_entries(text):
    """A prose list ``a_, b_ (what b_ is), ...`` as numpydoc entries (name, indented description)."""
    entries = []
    for item in _split_top_level(text):
        match = _ATTRIBUTE_ITEM.match(item.rstrip("."))
        if match is None:
            if not entries:
                return None
            entries[-1][1].append(("; " if entries[-1][1] else "") + item)
            continue
        name, rest = match.group(1), (match.group(2) or "").strip()
        if _enclosed(rest) and re.search(r"\b[A-Za-z]{3,}\b", rest):
            rest = rest[1:-1]  # "(what it is)" -> what it is; a shape such as "(1,)" keeps its brackets
        entries.append((name, [rest] if rest else []))
    return entries


def fix_attributes(lines):
    """Rewrite an ``Attributes`` section written as prose into numpydoc entries (in place)."""
    starts = [i for i in range(len(lines)) if lines[i].strip() == "Attributes" and _is_heading(lines, i)]
    if not starts:
        return
    head = starts[0]
    indent = lines[head][: len(lines[head]) - len(lines[head].lstrip())]
    end = head + 2
    while end < len(lines) and not _is_heading(lines, end):
        end += 1
    body = lines[head + 2: end]
    out, notes, i = [], [], 0
    while i < len(body):
        line = body[i]
        stripped = line[len(indent):] if line.startswith(indent) else line.lstrip()
        base = line.strip() and not stripped.startswith(" ")
        nxt = body[i + 1] if i + 1 < len(body) else ""
        described = nxt.strip() and nxt[len(indent):].startswith(" ")
        if not base or _ENTRY.match(stripped) or (_NAMES.match(stripped) and described):
            out.append(line)
            i += 1
            continue
        run = []  # a run of prose: up to a blank line or a "name : type" entry
        while i < len(body) and body[i].strip() and not _ENTRY.match(body[i][len(indent):]):
            run.append(body[i].strip())
            i += 1
        text = " ".join(run)
        entries = _as_entries(text) if _ATTRIBUTE_ITEM.match(_split_top_level(text)[0]) else None
        if entries is None:
            notes += [indent + r for r in run] + [""]
        else:
            for name, desc in entries:
                out.append(indent + name)
                if desc:
                    out.append(indent + "    " + "".join(desc))
    lines[head + 2: end] = out + ([""] if out and out[-1].strip() else [])
    if notes:
        note_heads = [j for j in range(len(lines)) if lines[j].strip() == "Notes" and _is_heading(lines, j)]
        if note_heads:
            lines[note_heads[0] + 2: note_heads[0] + 2] = notes
        else:
            while lines and not lines[-1].strip():
                lines.pop()
            lines += ["", indent + "Notes", indent + "-----"] + notes
