"""The swarm's slash commands in the terminal: /swarm races (each candidate a sub-agent
card), /candidates opens a tab per candidate. The core's registry commands run them
(core/commands/swarm.py); this module shows the race around them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rift.frontends.tui.session_commands import run

if TYPE_CHECKING:
    from rift.frontends.tui.host import CommandHost


async def swarm(app: CommandHost, arg: str) -> None:
    """Race candidates in worktrees; each shows as a sub-agent card, the verdict as info."""
    if run(app, "swarm", arg):
        app.say(
            "swarm: racing in .rift/worktrees/ (Esc cancels and removes them;"
            " /candidates follows each one)",
            "info",
        )
        await app.driver.wait()
        if app.driver.swarm.stop():  # cancelled: what still ran was stopped
            from rift.frontends.tui.screens.swarm import SwarmScreen

            SwarmScreen.refresh_open(list(app.screen_stack))


async def candidates(app: CommandHost, arg: str) -> None:
    """A tab per candidate of the latest race; `m` there merges the selected one."""
    from rift.core import merge as merge_candidate
    from rift.core import swarm_patch
    from rift.frontends.tui.screens.swarm import SwarmScreen

    def patch(name: str) -> str:
        return swarm_patch(app.require_conversation(), name)

    def merge_one(name: str) -> object:
        return merge_candidate(app.require_conversation(), name)  # as /merge <name>

    app.push_screen(SwarmScreen(app.driver.swarm, patch, merge_one))
