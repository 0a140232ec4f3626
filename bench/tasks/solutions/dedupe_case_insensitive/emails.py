"""Mailing-list helpers."""


def unique_emails(emails):
    """Emails without duplicates, compared case-insensitively, first spelling kept, in order."""
    seen = set()
    out = []
    for email in emails:
        key = email.lower()
        if key not in seen:
            seen.add(key)
            out.append(email)
    return out
