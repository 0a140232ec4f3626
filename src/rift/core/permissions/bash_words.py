"""Which program each simple command of a shell line runs, and whether that name is plain.

The deny rules match spellings of the command text (core/permissions/bash_forms.py), so a
program name the shell computes cannot be matched: `r$()m x`, ``r``m x``,
`r${u}m x`, `r"$u"m x` (an empty expansion spliced into a word), `/bin/r[m] x`
(a glob), `$0 -c ...`, `$(printf rm) x`. Here a small lexer walks the line the
way the shell splits it — quotes, `$(...)`, backticks, `${...}`, process
substitutions, heredoc bodies and comments kept intact — and reports every
simple command (also those inside substitutions) whose program word is not a
plain literal after quote removal. core/permissions/rules.py then treats such a
command as matching every deny and ask rule for bash.

Leading `NAME=value` assignments, redirections (`>/dev/null`, `2>&1`, `< in`),
keywords (`if`, `!`, `{`, ...) and wrapper programs are skipped before the
program word is looked at. `case` patterns (`*)`) are not commands. Anything the
lexer cannot balance (a missing quote or parenthesis) simply runs to the end of
the line: a false "opaque" costs a refusal, a missed one a bypass.
"""

from __future__ import annotations

import re
import shlex

_KEYWORDS = frozenset(
    {"{", "}", "!", "if", "then", "else", "elif", "do", "while", "until", "fi", "done", "esac"}
)
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_REDIRECT = re.compile(r"(?:\{[A-Za-z_]\w*\}|\d*)(?:>>|>&|<&|&>>|&>|<>|>\||<<-?|>|<)(.*)", re.S)
_WRAPPER_ARG = re.compile(r"-.*|\d+(?:\.\d+)?[smhd]?")
_BRACE = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
_MAX_DEPTH = 6
_PLAIN = re.compile(r"[^\s\\'\"$`<>&;|()#]+")


def _closing_quote(text: str, start: int, quote: str) -> int:
    """Index of the quote closing the one at `start` (backslash escapes honoured for `"`
    and `$'`); the last index when it never closes."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\" and quote != "'":
            i += 2
            continue
        if text[i] == quote:
            return i
        i += 1
    return len(text) - 1


def _closing_paren(text: str, start: int) -> int:
    """Index of the `)` matching the `(` at `start`, skipping quotes; the last index if none."""
    depth, i = 0, start
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char in "'\"`":
            i = _closing_quote(text, i, char) + 1
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(text) - 1


class _Lexer:
    """One pass over a command line, collecting simple commands as lists of raw words."""

    def __init__(self, text: str, depth: int) -> None:
        self.text, self.depth = text, depth
        self.commands: list[list[str]] = []
        self.words: list[str] = []
        self.word: list[str] = []
        self.heredocs: list[tuple[str, bool]] = []
        self.parens = 0

    def nested(self, inner: str) -> None:
        if self.depth < _MAX_DEPTH:
            self.commands += simple_commands(inner, self.depth + 1)

    def end_word(self) -> None:
        if self.word:
            self.words.append("".join(self.word))
            self.word = []

    def end_command(self, keep: bool = True) -> None:
        self.end_word()
        if self.words and keep:
            self.commands.append(self.words)
        self.words = []

    def run(self) -> list[list[str]]:
        text, i = self.text, 0
        while i < len(text):
            i = self.step(i)
        self.end_command()
        return self.commands

    def step(self, i: int) -> int:  # noqa: C901 - one branch per shell token kind
        plain = _PLAIN.match(self.text, i)
        if plain:  # the common case, a run of ordinary word characters, in one step
            self.word.append(plain.group())
            return plain.end()
        text, char = self.text, self.text[i]
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if char == "\\":
            self.word.append(text[i : i + 2])
            return i + 2
        if char == "'" or (char == "$" and nxt and nxt in "'\""):
            start = i + 1 if char == "$" else i
            end = _closing_quote(text, start, text[start])
            if text[start] == '"':
                self.substitutions(text[start + 1 : end])
            self.word.append(text[i : end + 1])
            return end + 1
        if char == '"':
            end = _closing_quote(text, i, '"')
            self.substitutions(text[i + 1 : end])
            self.word.append(text[i : end + 1])
            return end + 1
        if (char == "$" or char in "<>") and nxt == "(":
            end = _closing_paren(text, i + 1)
            self.nested(text[i + 2 : end].removeprefix("("))
            self.word.append(text[i : end + 1])
            return end + 1
        if char == "$" and nxt == "{":
            end = text.find("}", i)
            end = len(text) - 1 if end < 0 else end
            self.word.append(text[i : end + 1])
            return end + 1
        if char == "`":
            end = _closing_quote(text, i, "`")
            self.nested(text[i + 1 : end])
            self.word.append(text[i : end + 1])
            return end + 1
        if char == "#" and not self.word:
            end = text.find("\n", i)
            return len(text) if end < 0 else end
        if char in " \t":
            self.end_word()
            return i + 1
        if char == "\n":
            self.end_command()
            return self.skip_heredocs(i + 1)
        if char == "&" and (nxt == ">" or "".join(self.word)[-1:] in ("<", ">")):
            self.word.append(char)  # `&>file`, `2>&1`: a redirection, not a separator
            return i + 1
        if char in ";|&":
            self.end_command()
            return i + 1
        if char == "(" and "".join(self.word).endswith("="):
            end = _closing_paren(text, i)  # `files=(*.txt)`: an array value, not a command
            self.substitutions(text[i + 1 : end])
            self.word.append(text[i : end + 1])
            return end + 1
        if char == "(":
            self.end_command()
            self.parens += 1
            return i + 1
        if char == ")":
            self.end_command(keep=self.parens > 0)  # unbalanced: a `case` pattern
            self.parens = max(0, self.parens - 1)
            return i + 1
        if char == "<" and text.startswith("<<", i) and not text.startswith("<<<", i):
            return self.heredoc(i)
        self.word.append(char)
        return i + 1

    def heredoc(self, i: int) -> int:
        """`<<[-]DELIM`: remember the delimiter; its body is skipped at the next newline."""
        text = self.text
        j = i + 2 + (text.startswith("-", i + 2))
        while j < len(text) and text[j] in " \t":
            j += 1
        k = j
        while k < len(text) and text[k] not in " \t\n;&|<>()":
            k = _closing_quote(text, k, text[k]) + 1 if text[k] in "'\"" else k + 1
        raw = text[j:k]
        quoted = any(q in raw for q in "'\"\\")
        self.heredocs.append((re.sub(r"['\"\\]", "", raw), quoted))
        self.word.append(text[i:k])
        return k

    def skip_heredocs(self, i: int) -> int:
        """Past the bodies of the heredocs opened on the line just ended; what an unquoted
        body would run (`$(...)`, backticks) is still read."""
        text = self.text
        for delimiter, quoted in self.heredocs:
            while i < len(text):
                end = text.find("\n", i)
                end = len(text) if end < 0 else end
                line = text[i:end]
                i = end + 1
                if line.lstrip("\t") == delimiter:
                    break
                if not quoted:
                    self.substitutions(line)
        self.heredocs = []
        return min(i, len(text))

    def substitutions(self, text: str) -> None:
        """Read the `$(...)` and backtick commands inside a double-quoted string or body."""
        i = 0
        while i < len(text):
            if text[i] == "\\":
                i += 2
                continue
            if text.startswith("$(", i):
                end = _closing_paren(text, i + 1)
                self.nested(text[i + 2 : end])
                i = end + 1
                continue
            if text[i] == "`":
                end = _closing_quote(text, i, "`")
                self.nested(text[i + 1 : end])
                i = end + 1
                continue
            i += 1


def simple_commands(text: str, depth: int = 0) -> list[list[str]]:
    """Every simple command in `text` (substitutions included) as its raw words."""
    return _Lexer(text, depth).run()


def is_literal(raw: str) -> bool:
    """Whether a raw shell word is the same string whatever the environment: no
    expansion, substitution, glob or brace list outside single quotes."""
    i = 0
    while i < len(raw):
        char = raw[i]
        if char == "\\":
            i += 2
            continue
        if char == "'" or (char == "$" and raw[i + 1 : i + 2] == "'"):
            start = i + 1 if char == "$" else i
            i = _closing_quote(raw, start, "'") + 1
            continue
        if char == '"':
            end = _closing_quote(raw, i, '"')
            if re.search(r"(?<!\\)[$`]", raw[i + 1 : end]):
                return False
            i = end + 1
            continue
        if char in "$`*?" or (char == "[" and "]" in raw[i + 1 :]):
            return False
        if char == "{" and _BRACE.match(raw, i):
            return False
        i += 1
    return True


def program_words(words: list[str], wrappers: frozenset[str]) -> list[str]:
    """`words` from the program word on: assignments, redirections, keywords and
    wrappers (with their options) skipped."""
    i = 0
    while i < len(words):
        word = words[i]
        redirect = _REDIRECT.fullmatch(word)
        if redirect:
            i += 1 if redirect.group(1) else 2
        elif _ASSIGNMENT.match(word) or word in _KEYWORDS:
            i += 1
        elif word == "function":
            i += 2
        elif is_literal(word) and _unquote(word).rsplit("/", 1)[-1].lower() in wrappers:
            i += 1
            while i < len(words) and (
                _WRAPPER_ARG.fullmatch(words[i]) or _ASSIGNMENT.match(words[i])
            ):
                i += 1
        else:
            return words[i:]
    return []


def _unquote(raw: str) -> str:
    if not any(char in raw for char in "'\"\\"):
        return raw
    try:
        parts = shlex.split(raw)
    except ValueError:
        return raw
    return parts[0] if parts else ""


def read_commands(
    text: str, wrappers: frozenset[str], shells: frozenset[str], depth: int = 0
) -> tuple[list[list[str]], list[str]]:
    """One pass over `text`: the simple commands whose program word is not a plain literal
    (each from its program word on, raw words; also inside the strings `eval` and `sh -c`
    run), and those strings themselves, whole (the segment split cuts a string that holds
    a newline or `;`)."""
    opaque: list[list[str]] = []
    strings: list[str] = []
    for words in simple_commands(text):
        rest = program_words(words, wrappers)
        if not rest:
            continue
        if not is_literal(rest[0]):
            opaque.append(rest)
            continue
        inner = _run_strings(rest, shells)
        strings += inner
        if depth < _MAX_DEPTH:
            for string in inner:
                opaque += read_commands(string, wrappers, shells, depth + 1)[0]
    return opaque, strings


def _run_strings(words: list[str], shells: frozenset[str]) -> list[str]:
    """What `eval ARGS` or `sh [options] -c STRING` would run, quotes removed."""
    program = _unquote(words[0]).rsplit("/", 1)[-1].lower()
    if program == "eval":
        return [" ".join(_unquote(w) for w in words[1:])]
    if program not in shells:
        return []
    for i, word in enumerate(words[1:-1], start=1):
        if re.fullmatch(r"-[A-Za-z]*c[A-Za-z]*", word):
            j = i + 2 if words[i + 1] == "--" and i + 2 < len(words) else i + 1
            return [_unquote(words[j])]
    return []
