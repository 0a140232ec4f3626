"""Swarm: race candidates on one task in git worktrees, judge them, merge the winner."""
