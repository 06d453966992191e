"""The firstlight side of an IPython kernel: loaded into a Jupyter kernel by fl_jupyter.py.

IPython runs the cells (magics, `!` shell, rich display); this module gives the same namespace
the capability objects, the relay channel (fd 4, inherited from the bridge), and the operations
the stdlib kernel answers (state, install, export, restore...), reusing its code on IPython's
namespace. The bridge calls them as silent executes of `__fl__.op(...)`.
"""

import ast
import json
import os
import sys
import threading
import uuid
import weakref

import fl_capabilities
import fl_kernel
import fl_output
import fl_persist

HANDLE = "__fl__"
# How long the end of a cell waits for ipykernel's fd thread to pass on what reached fd 1/2.
FD_SYNC_S = 5.0


class FdSync:
    """Lets the end of a cell wait until ipykernel has taken in everything written to fd 1/2.

    ipykernel reads fd 1 and 2 (subprocess output) in a thread and writes what it reads into
    its stream object; a cell can end, and its output be sent, before that thread caught up,
    and on a loaded machine the tail of a subprocess's output then missed its cell. At the end
    of each cell a marker is written to each descriptor; the thread passes it on in order, after
    everything written before it, and the stream's write (wrapped here) takes it out and says
    it came. A marker split across two of the thread's reads is put back together.
    """

    def __init__(self):
        self.streams = []
        for stream, fd in ((sys.stdout, 1), (sys.stderr, 2)):
            thread = getattr(stream, "watch_fd_thread", None)
            if thread is not None and thread.is_alive():
                self.streams.append(_MarkedStream(stream, fd))

    def wait(self):
        # Both markers first, then both waits: the two threads pass theirs on at once.
        sent = [marked for marked in self.streams if marked.send()]
        for marked in sent:
            marked.seen.wait(FD_SYNC_S)


class _MarkedStream:
    def __init__(self, stream, fd):
        self.stream = stream
        self.fd = fd
        self.marker = f"\x00fl-sync-{uuid.uuid4().hex}\x00"
        self.seen = threading.Event()
        self.held = ""  # what may be the start of a marker, until the next write says
        self.write = stream.write
        stream.write = self._write  # the fd thread calls self.write(...)

    def _write(self, text):
        if threading.current_thread() is not self.stream.watch_fd_thread:
            return self.write(text)  # print() and the like: no marker there
        size = len(text)
        text = self.held + text
        self.held = ""
        if self.marker in text:
            text = text.replace(self.marker, "")
            self.seen.set()
        else:
            for size in range(min(len(text), len(self.marker) - 1), 0, -1):
                if self.marker.startswith(text[-size:]):
                    self.held, text = text[-size:], text[:-size]
                    break
        if text:
            self.write(text)
        return size

    def send(self):
        """Writes the marker; False when there is nothing to wait for."""
        if not self.stream.watch_fd_thread.is_alive():
            return False
        self.seen.clear()
        try:
            os.write(self.fd, self.marker.encode("ascii"))
        except OSError:
            return False  # the cell closed or moved the descriptor
        return True


class IPythonKernel(fl_kernel.Kernel):
    """fl_kernel.Kernel over IPython's user namespace instead of a module of its own."""

    def __init__(self, ip, execution_count=0):  # noqa: D107 - the parent's fields, IPython's namespace
        self.ip = ip
        self.stdout = fl_output.CappedWriter(20000)
        self.stderr = fl_output.CappedWriter(20000)
        self.fd_capture = None
        self.sent_names = []
        self.user_code_running = False
        self.execution_count = execution_count
        self.restore_count = 0
        self.current_cell = None
        self.history = []
        self.natives = {}
        self.class_files = weakref.WeakKeyDictionary()
        self.module = ip.user_module
        self.ns = ip.user_ns
        self.cell_file = None
        # A restarted kernel counts on from the cell its predecessor ended at.
        ip.execution_count = execution_count + 1
        self._inject()
        self._patch_inspect()
        self.fd_sync = FdSync()
        self._follow_cells()

    def _inject(self):
        for name, value in (
            ("register_capability", self.register_capability),
            ("CapabilityError", fl_capabilities.CapabilityError),
            ("RelayCapability", fl_capabilities.RelayCapability),
            (HANDLE, self),
        ):
            self.ns[name] = value
            self.ip.user_ns_hidden[name] = value

    def _fresh_namespace(self):
        for name in self.user_names():
            self.ns.pop(name, None)
        self._inject()

    def user_names(self):
        skip = self.injected()
        hidden = self.ip.user_ns_hidden
        return [n for n in self.ns if not n.startswith("_") and n not in skip and n not in hidden]

    def _follow_cells(self):
        """Notes each cell's file (IPython names them itself) for inspect, order and history."""
        compiler = self.ip.compile
        original = compiler.cache
        kernel = self

        def cache(transformed_code, number=0, raw_code=None):
            name = original(transformed_code, number, raw_code)
            if number:
                fl_persist.CELL_NUMBERS[name] = number
                kernel.current_cell = name
                kernel.cell_file = (name, transformed_code)
            return name

        compiler.cache = cache
        self.ip.events.register("post_run_cell", self._after_cell)

    def _after_cell(self, result):
        # Before ipykernel flushes the cell's output: what its subprocesses wrote is in it.
        self.fd_sync.wait()
        self.current_cell = None
        info = getattr(result, "info", None)
        if info is not None and getattr(info, "store_history", False):
            self.execution_count = result.execution_count or self.execution_count
            self.history.append(info.raw_cell)
        if self.cell_file is None:
            return
        name, code = self.cell_file
        self.cell_file = None
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return
        self._note_classes(tree, name)

    # ---- the bridge's calls --------------------------------------------------------------

    def after_cell(self, cap, with_repr=False):
        """The last cell's value as JSON (or its capped repr), its repr when asked, and the user's names if changed."""
        value = self.ip.last_execution_result.result if self.ip.last_execution_result else None
        out = {"value": None if value is None else self.to_json(value, cap)}
        if with_repr and value is not None:
            out["repr"] = fl_output.cap_text(repr(value), cap)
        names = self.user_names()
        if names != self.sent_names:
            out["names"] = self.sent_names = names
        return json.dumps(out, default=repr)

    def op(self, request_json):
        """One control operation; returns the reply as JSON text."""
        request = json.loads(request_json)
        try:
            result = fl_kernel.dispatch(self, request)
            return json.dumps({"ok": True, "result": result}, default=repr)
        except Exception as error:  # noqa: BLE001 - reported to the harness
            return json.dumps({"ok": False, "error": f"{type(error).__name__}: {error}"})


def start(ip, execution_count, relay_fd):
    """Sets up the relay channel and the kernel handle in IPython's namespace."""
    reader = os.fdopen(relay_fd, "rb")
    writer = os.fdopen(os.dup(relay_fd), "wb")
    fl_capabilities.set_channel(fl_capabilities.RelayChannel(reader, writer, fl_kernel.NoInterrupt()))
    # Plain tracebacks: the client is a model reading text, not a terminal.
    ip.run_line_magic("colors", "NoColor")
    return IPythonKernel(ip, execution_count)
