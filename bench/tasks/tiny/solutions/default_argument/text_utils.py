def join_words(words, sep=" "):
    return sep.join(words)


def count_words(text):
    return len(text.split())
