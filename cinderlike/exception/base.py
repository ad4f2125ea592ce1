"""CinderlikeException, the root every cinderlike error derives from, and its message formatting."""


class CinderlikeException(Exception):
    """Base: `msg_fmt % kwargs` is the message; `code` is the HTTP status the API answers."""

    msg_fmt = 'An unknown exception occurred.'
    code = 500
    safe = False

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError):
                message = self.msg_fmt
        self.msg = str(message)
        super().__init__(self.msg)
