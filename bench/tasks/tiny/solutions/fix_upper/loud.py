def shout(text):
    """text in upper case."""
    return text.upper()


def whisper(text):
    """text in lower case."""
    return text.lower()
