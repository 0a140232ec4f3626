HOST = "localhost"
PORT = 8080
TIMEOUT = 30
RETRIES = 3


def url():
    return f"http://{HOST}:{PORT}/"
