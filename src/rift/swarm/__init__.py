"""Swarm: race candidates on one task in git worktrees, judge them, merge the winner.

Read `race.py` first (the order of a race and its cleanup promises), then
`candidates.py` (one candidate = one headless agent in its worktree),
`testjudge.py` and `judge.py` (the two judges), `merge.py` (applying a patch
through the undo journal), `worktrees.py` and `gitrepo.py` (the git side),
`report.py` (headless output) and `cli.py` (`rift swarm`, `rift merge`).
"""
