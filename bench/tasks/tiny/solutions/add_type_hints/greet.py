def greet(name: str) -> str:
    return "Hello, " + name + "!"


def shout(text):
    return text.upper()
