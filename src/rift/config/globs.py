"""Permission-rule globs as regular expressions.

Path patterns (`Read(src/**)`) and flat ones (`Bash(git *)`) share one
translator: in path mode `*` and `?` stop at "/" and `**` crosses it; flat, all
of them cross. `[...]` classes and `{a,b}` alternatives work as in a shell.
"""

from __future__ import annotations

import re


def glob_regex(pattern: str, *, path: bool) -> str:
    """Glob to regex. Path mode: `*`/`?` stop at "/", `**` crosses it. Flat: all cross."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        step = 1
        if char == "*" and path and pattern.startswith("**", i):
            slash = pattern.startswith("**/", i)
            out.append("(?:.*/)?" if slash else ".*")
            step = 3 if slash else 2
        elif char in "*?":
            out.append(("[^/]" if path else ".") + ("*" if char == "*" else ""))
        elif char == "[" and (end := _class_end(pattern, i)) > 0:
            body = re.sub(r"([\\\[\]&~|])", r"\\\1", pattern[i + 1 : end])
            if body[0] in "!^":
                body = "^" + ("/" if path else "") + body[1:]
            out.append(f"[{body}]")
            step = end + 1 - i
        elif char == "{" and (end := pattern.find("}", i)) > 0 and "," in pattern[i:end]:
            alternatives = pattern[i + 1 : end].split(",")
            out.append("(?:" + "|".join(glob_regex(alt, path=path) for alt in alternatives) + ")")
            step = end + 1 - i
        else:
            out.append(re.escape(char))
        i += step
    return "".join(out)


def _class_end(pattern: str, start: int) -> int:
    """Index of the `]` closing the class opened at `start`, or -1 (then `[` is literal)."""
    j = start + 1
    if j < len(pattern) and pattern[j] in "!^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    return pattern.find("]", j)
