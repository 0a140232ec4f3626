"""Each ask choice's meaning, said by the code that wrote the choice: faces that show the
gate's choices differently (the TUI's labels, ACP's option kinds) must not parse the words,
so the `ask` event carries these `options` beside `choices`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rift.events import AskOption

_PLAIN = {
    "allow": "allow_once",
    "allow once": "allow_once",
    "deny": "deny",
    "trust": "trust",
    "skip": "skip",
}


def ask_options(
    choices: Sequence[str],
    *,
    session: str | None = None,
    always: tuple[str, str] | None = None,
    rule: str = "",
) -> list[AskOption]:
    """One option per choice: `session` is the "for this session" choice, `always` the
    (this project, everywhere) pair that saves `rule`; the gate's plain words are
    known; anything else (an ask_user choice) is kind "choice"."""
    out = []
    for choice in choices:
        if choice == session:
            out.append(AskOption(choice, "allow_session"))
        elif always is not None and choice == always[0]:
            out.append(AskOption(choice, "allow_project", rule))
        elif always is not None and choice == always[1]:
            out.append(AskOption(choice, "allow_everywhere", rule))
        else:
            out.append(AskOption(choice, _PLAIN.get(choice, "choice")))
    return out


def option_label(option: AskOption) -> str:
    """How a choice reads in a picker: an answer that saves a rule names it exactly as it
    will be saved (`Bash(git status *)`, a valid rule) and says where it applies."""
    if option.kind not in ("allow_project", "allow_everywhere"):
        return option.id
    scope = "in this project" if option.kind == "allow_project" else "everywhere"
    return f"always allow {option.rule} {scope} · saved to your config"
