NOT_FOUND = "File not found"
DENIED = "Permission denied"


def message(code):
    return {404: NOT_FOUND, 403: DENIED}.get(code, "Unknown error")
