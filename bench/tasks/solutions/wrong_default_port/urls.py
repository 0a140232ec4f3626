"""Build service URLs."""

DEFAULT_PORTS = {"http": 80, "https": 443}


def make_url(host, port=None, scheme="https", path="/"):
    """URL for `host`; the port defaults to the standard one for `scheme`."""
    if port is None:
        port = DEFAULT_PORTS[scheme]
    if not path.startswith("/"):
        path = "/" + path
    return f"{scheme}://{host}:{port}{path}"
