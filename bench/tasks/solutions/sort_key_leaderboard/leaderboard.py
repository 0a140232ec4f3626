"""Rank players."""


def rank(players):
    """(name, score) pairs ordered by score, highest first; equal scores by name A-Z."""
    return sorted(players, key=lambda p: (-p[1], p[0]))
