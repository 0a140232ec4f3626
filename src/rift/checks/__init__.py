"""The project's own checks: which test command judges a change, and what it said.

One owner for "how is this project tested", for the turn loop's judge and swarm's.
"""
