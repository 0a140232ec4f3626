"""How the permission rules read a shell command: its segments and every spelling of each.

`split_bash_segments` cuts a command where the shell would start another
command (`; & | \\n ( ) \\` $`, after `${IFS}` tricks are folded). Allow rules
match those plain segments; deny and ask rules match `command_forms`: the
segments of the command as written, with its line continuations joined, and
with `$'\\x72m'` ANSI-C strings decoded, plus for each segment:

* quotes and backslashes removed, the program name lowercased;
* leading `NAME=value` assignments, program paths (`/usr/bin/x` → `x`), shell
  keywords and grouping (`{ ! if then else elif do while until`, `function f`)
  and wrapper programs with their options (`env -u NAME`, `timeout -s KILL 5`,
  `xargs -I {}`, `flock FILE`, ...) dropped: after a wrapper every later word
  may start the command it runs, so each of those suffixes is a form too;
* `{rm,-rf,/}` brace lists expanded;
* redirections before the program (`>/dev/null rm x`, `2>&1 rm x`) dropped, and
  `2>&1`, `>&2`, `&>file` kept whole (their `&` separates nothing);
* an `alias NAME=VALUE` defined anywhere in the command: later uses of NAME read
  as VALUE;
* what `eval ...`, `sh -c '...'` (also `-c --`), `sh <<< '...'`, `trap '...'`
  and `find ... -exec ... ;` would run, and what `echo/printf ... | sh` feeds a
  shell, split and read recursively, a few levels deep.

A simple command whose program word is not a plain literal (`r$()m`, `$0`,
`/bin/r[m]`, `$(printf rm)`: core/permissions/bash_words.py finds them) adds an OPAQUE form
with its arguments: core/permissions/rules.py lets it match every deny and ask rule.

A false positive here costs a refusal or a prompt; a false negative can cost a
disk, so every doubt resolves toward more forms. Computed strings whose program
is still a plain word (`base64 -d | sh`, scripts and interpreters) are out of
reach: that is what the sandbox is for.
"""

from __future__ import annotations

import re
import shlex

from rift.core.permissions.bash_words import read_commands

_MAX_DEPTH = 4
_MAX_SUFFIXES = 8
_INNER_BUDGET = 256
"""Inner commands read per segment; past that the segment is TOO_COMPLEX."""
TOO_COMPLEX = "\x00too complex"
"""A form no rule matches, standing for "nested past the budget": callers must refuse."""
OPAQUE = "\x00opaque "
"""Prefix of a form standing for a command whose program name is computed; the rest is
its arguments (quotes removed). Matches every deny and ask rule (core/permissions/rules.py)."""
_IFS = re.compile(r"\$\{IFS[^}]*\}|\$IFS|\$\{[@*]\}|\$[@*]")
_CONTINUATION = re.compile(r"\\\r?\n")
_SEPARATORS = re.compile(r"[;|\n()`$]|(?<![<>])&(?!>)")
_REDIRECTION = re.compile(r"(?:\d*(?:>>|>&|<&|&>>|&>|<>|>\||>|<))(.*)", re.DOTALL)
_ALIAS = re.compile(r"([^\s=/$`'\"]+)=(.*)", re.DOTALL)
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_WRAPPER_ARG = re.compile(r"-.*|\d+(?:\.\d+)?[smhd]?")
# fmt: off
_WRAPPERS = frozenset({
    "command", "exec", "env", "nohup", "time", "builtin", "nice", "xargs", "stdbuf",
    "setsid", "timeout", "ionice", "taskset", "flock", "chrt", "watch", "strace", "ltrace",
    "chroot", "unbuffer", "doas", "coproc", "nsenter", "unshare", "firejail", "proxychains",
    "proxychains4", "torsocks", "valgrind", "faketime", "caffeinate", "busybox",
})
# fmt: on
_KEYWORDS = frozenset({"{", "}", "!", "if", "then", "else", "elif", "do", "while", "until"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish"})
_SHELL_C = re.compile(r"-[A-Za-z]*c[A-Za-z]*")
_BRACE_LIST = re.compile(r"\{[^{}]*,[^{}]*\}")
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_PIPED_TO_SHELL = re.compile(
    r"\b(?:echo|printf)\b([^|;&\n]*)\|\s*(?:\S*/)?(?:sh|bash|zsh|dash|ksh|ash|mksh)\b"
)
_ANSI_C = re.compile(r"\$'((?:[^'\\]|\\.)*)'", re.DOTALL)
_ANSI_ESCAPE = re.compile(
    r"\\(?:x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|([0-7]{1,3})|c(.)|(.))",
    re.DOTALL,
)
_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}


def split_bash_segments(command: str) -> list[str]:
    """Split a command into whitespace-normalised segments on `; & | \\n ( ) \\` $`
    (not on the `&` of a redirection: `2>&1`, `>&2`, `&>file`)."""
    parts = _SEPARATORS.split(_IFS.sub(" ", command))
    return [segment for segment in (" ".join(part.split()) for part in parts) if segment]


def command_forms(command: str) -> set[str]:
    """Every spelling of every segment of `command` that deny and ask rules must see."""
    forms: set[str] = set()
    joined = _CONTINUATION.sub("", command)
    for variant in dict.fromkeys([command, joined, _decode_ansi_c(joined)]):
        for segment in split_bash_segments(variant):
            forms |= _segment_forms(segment, [_INNER_BUDGET])
        for fed in _PIPED_TO_SHELL.finditer(variant):
            fed_words = _words(fed.group(1))
            forms |= _inner_forms(_suffixes(fed_words, start=0), 1, [_INNER_BUDGET])
        opaque, whole = read_commands(variant, _WRAPPERS, _SHELLS)
        forms |= _opaque_forms(opaque) | _alias_forms(variant)
        forms |= _inner_forms(whole, 1, [_INNER_BUDGET])
    return forms


def _opaque_forms(commands: list[list[str]]) -> set[str]:
    """OPAQUE + arguments for each simple command whose program name is computed."""
    return {OPAQUE + " ".join(_words(" ".join(words[1:]))) for words in commands}


def _alias_forms(command: str) -> set[str]:
    """What the segments that use an alias defined in `command` run, read as commands."""
    if "alias" not in command:
        return set()
    segments = [_strip_prefixes(_words(s))[0] for s in split_bash_segments(command)]
    aliases = {
        m.group(1): m.group(2)
        for words in segments
        if words and words[0] == "alias"
        for word in words[1:]
        if (m := _ALIAS.fullmatch(word))
    }
    if not aliases:
        return set()
    used = [
        " ".join([aliases[words[0]], *words[1:]])
        for words in segments
        if words and words[0] in aliases
    ]
    return _inner_forms(used, 1, [_INNER_BUDGET])


def _words(segment: str) -> list[str]:
    """Shell words with quotes and escapes removed; a crude strip when shlex gives up."""
    try:
        return shlex.split(segment)
    except ValueError:  # an unbalanced quote, often left by the separator split
        return re.sub(r"\\(.)", r"\1", segment).replace('"', "").replace("'", "").split()


def _strip_prefixes(words: list[str]) -> tuple[list[str], bool]:
    """Drop assignments, keywords, wrappers (with their options) and program paths until
    none are left; also says whether a wrapper was dropped."""
    words = list(words)
    wrapped = False
    changed = True
    while words and changed:
        changed = False
        while words and (_ASSIGNMENT.match(words[0]) or words[0] in _KEYWORDS):
            words.pop(0)
            changed = True
        while words and (redirection := _REDIRECTION.fullmatch(words[0])):
            del words[: 1 if redirection.group(1) else 2]
            changed = True
        if words and words[0] == "function":
            del words[:2]  # `function NAME { ...`
            changed = True
        if words and "/" in words[0].rstrip("/"):
            words[0] = words[0].rstrip("/").rsplit("/", 1)[1]
            changed = True
        if words and words[0].lower() in _WRAPPERS:
            words.pop(0)
            while words and (_WRAPPER_ARG.fullmatch(words[0]) or _ASSIGNMENT.match(words[0])):
                words.pop(0)
            wrapped = changed = True
    return words, wrapped


def _suffixes(words: list[str], start: int = 1) -> list[str]:
    """`words[k:]` joined, for the first few k: where a wrapper's own arguments may end."""
    last = min(len(words), start + _MAX_SUFFIXES)
    return [" ".join(words[k:]) for k in range(start, last)]


def _inner_commands(words: list[str], wrapped: bool) -> list[str]:
    """The command strings a segment would run in turn (eval, sh -c, find -exec, ...)."""
    if not words:
        return []
    program = words[0].lower()
    inner: list[str] = _suffixes(words) if wrapped else []
    if program == "eval":
        inner.append(" ".join(words[1:]))
    elif program == "trap" and len(words) > 1:
        inner.append(words[1])
    elif program in _SHELLS:
        inner += _shell_strings(words)
    elif program == "find":
        inner += _find_exec(words)
    if _BRACE_LIST.fullmatch(words[0]):
        inner.append(" ".join([*words[0][1:-1].split(","), *words[1:]]))
    return inner


def _shell_strings(words: list[str]) -> list[str]:
    """`sh [options] -c [--] STRING ...` and `sh <<< STRING`."""
    found: list[str] = []
    for i, word in enumerate(words[1:], start=1):
        if word.startswith("<<<"):
            rest = word[3:] or (words[i + 1] if i + 1 < len(words) else "")
            found.append(rest)
    for i, word in enumerate(words[1:-1], start=1):
        if _SHELL_C.fullmatch(word):  # anywhere: `bash -o pipefail -c ...` too
            j = i + 2 if words[i + 1] == "--" and i + 2 < len(words) else i + 1
            found += [words[j], " ".join(words[j:])]
            break
    return found


def _find_exec(words: list[str]) -> list[str]:
    """The commands `find ... -exec CMD ... ;` (and -execdir, -ok, -okdir) would run."""
    found: list[str] = []
    for i, word in enumerate(words):
        if word in _FIND_EXEC:
            tail = words[i + 1 :]
            end = next((k for k, w in enumerate(tail) if w in (";", "+", "\\;")), len(tail))
            found.append(" ".join(tail[:end]))
    return found


def _segment_forms(segment: str, budget: list[int], depth: int = 0) -> set[str]:
    """Every spelling of one segment that deny and ask rules are matched against. `budget`
    counts the inner commands still to be read for this top-level segment (wrapper suffixes
    and `-exec` chains multiply); when it runs out the forms hold TOO_COMPLEX instead of an
    answer that might be incomplete."""
    if depth:
        budget[0] -= 1
        if budget[0] < 0:
            return {TOO_COMPLEX}
    forms = {segment}
    words = _words(segment)
    stripped, wrapped = _strip_prefixes(words)
    for variant in (words, stripped):
        if variant:
            forms.add(" ".join(variant))
            forms.add(" ".join([variant[0].lower(), *variant[1:]]))
    if depth < _MAX_DEPTH:
        forms |= _inner_forms(_inner_commands(stripped, wrapped), depth + 1, budget)
    return forms


def _inner_forms(commands: list[str], depth: int, budget: list[int]) -> set[str]:
    forms: set[str] = set()
    for command in dict.fromkeys(commands):
        forms |= _opaque_forms(read_commands(command, _WRAPPERS, _SHELLS)[0])
        forms |= _alias_forms(command)
        for part in split_bash_segments(command):
            forms |= _segment_forms(part, budget, depth)
            if TOO_COMPLEX in forms:
                return forms
    return forms


def _decode_ansi_c(command: str) -> str:
    """`$'\\x72m'` → `'rm'` (bash's ANSI-C quoting), re-quoted so the words stay words."""
    if "$'" not in command:
        return command

    def escape(match: re.Match[str]) -> str:
        hex2, hex4, hex8, octal, control, other = match.groups()
        number = hex2 or hex4 or hex8
        if number:
            code = int(number, 16)
            return chr(code) if code < 0x110000 else ""
        if octal:
            return chr(int(octal, 8) & 0xFF)
        if control:
            return chr(ord(control) & 0x1F)
        return _SIMPLE_ESCAPES.get(other, other)

    return _ANSI_C.sub(lambda m: shlex.quote(_ANSI_ESCAPE.sub(escape, m.group(1))), command)


def removes_root(form: str) -> bool:
    """`rm` with a recursive flag in any spelling (-r -f, -Rf, --recursive) aimed at /."""
    words = form.split()
    if not words or words[0] != "rm":
        return False
    flags = [w for w in words[1:] if w.startswith("-")]
    recursive = "--recursive" in flags or any(
        not f.startswith("--") and ("r" in f or "R" in f) for f in flags
    )
    targets = {re.sub("/+", "/", w) for w in words[1:] if not w.startswith("-")}
    return recursive and bool(targets & {"/", "/*", "/.", "/./", "/*/"})
