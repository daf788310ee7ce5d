"""Written with Windows line endings."""

CRLF = 1


class Windows:
    def method(self):
        return CRLF


def after_windows():
    """Ends
    on CRLF."""
    return 2
