"""Capped text capture for a cell's stdout and stderr.

A cell that prints 50 MB must not turn into a 50 MB tool result (or a 50 MB pipe message), so
the writer keeps the head and the tail of what was written and counts the rest. The note that
replaces the middle says how much was dropped, so the model knows the output is incomplete.
What reaches file descriptors 1 and 2 (subprocesses, C code, os.write) goes into the same
writers (FdCapture), so a cell has one budget per stream whoever wrote.
"""

import codecs
import io
import os
import select
import sys
import threading

HEAD_SHARE = 0.8


class CappedWriter(io.TextIOBase):
    """A text stream keeping at most `cap` characters: the first 80% and the last 20%."""

    def __init__(self, cap):
        super().__init__()
        self.lock = threading.Lock()  # print() and FdCapture may write at once
        self.total = -1
        # Set by `buffer` while it holds an incomplete character: read here, the usual empty
        # cell touches the writer only.
        self.bytes_pending = False
        self.buffer = CappedBuffer(self)  # sys.stdout.buffer.write(b"...") works in a cell
        self.reset(cap)

    def reset(self, cap):
        """Empties the writer for a new cell with cap `cap`."""
        if self.total == 0 and self.cap == cap:  # most cells print nothing
            return
        with self.lock:
            self.cap = max(int(cap), 100)
            self.head_cap = int(self.cap * HEAD_SHARE)
            self.tail_cap = self.cap - self.head_cap
            self.head = []
            self.head_len = 0
            self.tail = []
            self.tail_len = 0
            self.total = 0

    @property
    def encoding(self):
        return "utf-8"

    def writable(self):
        return True

    def isatty(self):
        return False

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        with self.lock:
            return self._write(text)

    def _write(self, text):
        n = len(text)
        self.total += n
        room = self.head_cap - self.head_len
        if room > 0:
            piece = text[:room]
            self.head.append(piece)
            self.head_len += len(piece)
            text = text[room:]
        if text:
            self.tail.append(text)
            self.tail_len += len(text)
            if self.tail_len > self.tail_cap * 4:
                self._trim_tail()
        return n

    def _trim_tail(self):
        joined = "".join(self.tail)[-self.tail_cap :]
        self.tail = [joined]
        self.tail_len = len(joined)

    def getvalue(self):
        if self.total == 0 and not self.bytes_pending:  # the usual case: most cells print nothing
            return ""
        if self.bytes_pending:
            self.buffer.finish()
        head = "".join(self.head)
        self._trim_tail()
        dropped = self.total - len(head) - self.tail_len
        if dropped <= 0:
            return head + "".join(self.tail)
        note = (
            f"\n[... output truncated: {self.total:,} characters written, "
            f"{dropped:,} dropped from the middle; the first {len(head):,} and the last "
            f"{self.tail_len:,} are shown ...]\n"
        )
        return head + note + "".join(self.tail)


class CappedBuffer(io.BufferedIOBase):
    """The binary side of a CappedWriter (its `buffer`, as `sys.stdout.buffer` is for a real
    stream): bytes are decoded as UTF-8, invalid ones replaced, into the writer and its cap.
    A character split across writes is joined; one left incomplete at the end of the cell
    becomes U+FFFD.
    """

    def __init__(self, text):
        super().__init__()
        self.text = text
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def writable(self):
        return True

    def isatty(self):
        return False

    def write(self, data):
        size = memoryview(data).nbytes  # TypeError for a str, as on a real binary stream
        with self.text.lock:
            text = self.decoder.decode(data)
            self.text.bytes_pending = bool(self.decoder.getstate()[0])
            if text:
                self.text._write(text)
        return size

    def finish(self):
        """Writes out what an incomplete character left (called when the cell's text is read)."""
        with self.text.lock:
            text = self.decoder.decode(b"", final=True)
            self.text.bytes_pending = False
            if text:
                self.text._write(text)


def cap_text(text, cap):
    """Caps one string the same way (used for long reprs of return values)."""
    writer = CappedWriter(cap)
    writer.write(text)
    return writer.getvalue()


class FdCapture:
    """Sends what is written to file descriptors 1 and 2 into the running cell's writers.

    Each descriptor becomes the write end of a pipe; a thread waits on the read ends. While a
    cell runs, the text goes to the cell's CappedWriter for that stream; between cells it passes
    through to the original descriptors (the harness logs it).
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.targets = None  # the cell's (stdout, stderr) writers, set by the kernel
        self.capturing = False
        self.streams = []  # (read end, original descriptor, decoder)
        for fd in (1, 2):
            read_end, write_end = os.pipe()
            original = os.dup(fd)
            os.dup2(write_end, fd)
            os.close(write_end)
            os.set_blocking(read_end, False)
            self.streams.append((read_end, original, codecs.getincrementaldecoder("utf-8")("replace")))
        self.read_ends = [stream[0] for stream in self.streams]
        # For the check at each cell's end: one object made here, no lists per cell.
        self.waiting = select.poll()
        for read_end in self.read_ends:
            self.waiting.register(read_end, select.POLLIN)
        # The kernel's own messages between cells (a traceback if it crashes) go straight to the
        # harness, not through the pump thread, which may not outlive them.
        sys.stdout = open(self.streams[0][1], "w", buffering=1, encoding="utf-8", closefd=False)
        sys.stderr = open(self.streams[1][1], "w", buffering=1, encoding="utf-8", closefd=False)
        threading.Thread(target=self._pump, name="fl-fd-capture", daemon=True).start()

    def _pump(self):
        while True:
            select.select(self.read_ends, [], [])
            self._drain()

    def _drain(self):
        with self.lock:
            for index, (read_end, original, decoder) in enumerate(self.streams):
                while True:
                    try:
                        data = os.read(read_end, 65536)
                    except BlockingIOError:
                        break
                    if not data:
                        break
                    if not self.capturing:
                        os.write(original, data)
                    else:
                        self.targets[index].write(decoder.decode(data))

    def start(self):
        self.capturing = True

    def stop(self):
        """Takes in what the cell's subprocesses wrote before it ended, then passes through."""
        if self.waiting.poll(0):
            self._drain()
        with self.lock:
            self.capturing = False
