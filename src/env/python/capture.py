# Output capture, the harness's first part (src/env/harness_source.ts): sys.stdout and sys.stderr
# become writers that append, in the order printed, to tails capped while the output is produced (a
# flood costs memory in proportion to the cap). sys.stdin is always at end of file.
# Defines _Tail, _capture, _Output, _Input.

import io


class _Tail:
    """Everything written in order, keeping only the last cap characters while it is produced."""
    __slots__ = ('cap', 'parts', 'size', 'total')

    def __init__(self, cap):
        self.cap = cap
        self.clear()

    def clear(self):
        self.parts = []
        self.size = 0
        self.total = 0

    def add(self, text):
        n = len(text)
        self.total += n
        if n >= self.cap:
            self.parts = [text[-self.cap:]]
            self.size = self.cap
            return
        self.parts.append(text)
        self.size += n
        if self.size > 2 * self.cap:
            kept = ''.join(self.parts)[-self.cap:]
            self.parts = [kept]
            self.size = len(kept)

    def text(self):
        return ''.join(self.parts)[-self.cap:]


_combined = _Tail(500)
_tails = {'stdout': _Tail(10000), 'stderr': _Tail(10000)}


# One {'stdout': _Tail, 'stderr': _Tail} per judged call under way (judge.py): what a call prints
# goes back with its reply, to the tests' stdout.
_call_output = []


def _capture(which, text):
    _combined.add(text)
    _tails[which].add(text)
    if _call_output:
        _call_output[-1][which].add(text)


class _BytesOutput(io.RawIOBase):
    """sys.stdout.buffer: bytes written are decoded and captured like text."""

    def __init__(self, which):
        self._which = which

    def writable(self):
        return True

    def write(self, data):
        data = bytes(data)
        _capture(self._which, data.decode('utf-8', 'replace'))
        return len(data)

    def close(self):
        pass


class _Output(io.TextIOBase):
    """sys.stdout / sys.stderr for one program: writes go straight into the capture, in order."""
    encoding = 'utf-8'
    errors = 'strict'

    def __init__(self, which, fd):
        self._which = which
        self._fd = fd
        self._buffer = _BytesOutput(which)

    @property
    def buffer(self):
        return self._buffer

    @property
    def name(self):
        return '<' + self._which + '>'

    def writable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        return self._fd

    def flush(self):
        pass

    def close(self):
        pass

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError('write() argument must be str, not ' + type(text).__name__)
        _capture(self._which, text)
        return len(text)


class _Input(io.TextIOBase):
    """sys.stdin: always at end of file, so input() raises EOFError as with an empty pipe."""
    encoding = 'utf-8'
    name = '<stdin>'

    def readable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        return 0

    def read(self, size=-1):
        return ''

    def readline(self, size=-1):
        return ''

    def close(self):
        pass
