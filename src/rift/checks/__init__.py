"""The project's own checks: which test command judges a change, and what it said.

One owner for "how is this project tested": the turn loop's judge
(core/loop/parts/checks.py) and swarm's tests judge (swarm/testjudge.py) both ask
`discover`, and both read a run's counts with `results`.
"""
