"""Timestamps for log lines."""

from datetime import datetime


def stamp(moment=None):
    """'YYYY-MM-DD HH:MM' for `moment` (default: now)."""
    moment = moment or datetime.now()
    return moment.strftime("%Y-%m-%d %H:%M")
