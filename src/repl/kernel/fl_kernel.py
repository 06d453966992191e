"""firstlight REPL kernel: a persistent Python namespace driven by the harness.

Standard library only. Channels (all JSON lines, each message with an id):
  fd 3  control: harness -> kernel requests, kernel -> harness replies
  fd 4  relay:   kernel -> harness capability calls, harness -> kernel answers
stdin is /dev/null; fd 1 and 2 stay plain output (a subprocess writing there cannot corrupt
the protocol): while a cell runs it is captured into the cell's capped stdout/stderr. Cells follow Jupyter: statements run, a trailing expression's value is returned
(None hidden), an execution counter, each cell in linecache under `<cell-N>`.
SIGINT raises KeyboardInterrupt only while user code runs; elsewhere it is ignored, so a late
interrupt can never tear a protocol message.
"""

import ast
import builtins
import inspect
import json
import linecache
import os
import re
import signal
import sys
import threading
import time
import traceback
import types
import weakref

import fl_capabilities
import fl_output
import fl_persist
import fl_wire

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
CONTROL_FD = 3
RELAY_FD = 4
# A one-line cell that does not match this is tried as an expression first (`1+1`,
# `fs.read_text_file("a")`): compiled from its text, with no syntax tree. A statement keyword, an
# assignment (`=` that is not part of `==`, `<=`, `>=`, `!=` or `:=`) or a `;` sends it to the
# tree at once; a wrong guess costs one failed compile, never a wrong result.
NOT_AN_EXPRESSION = re.compile(
    r"\s*(?:(?:import|from|def|class|if|for|while|with|try|del|pass|return|raise|global|nonlocal"
    r"|assert|break|continue|async|match)\b|@)|[^=]*[^=!<>:]=(?!=)|.*;"
)


class Kernel:
    def __init__(self, fd_capture=None, execution_count=0):
        # One pair of writers for every cell (reset each time): cheaper than new ones, and a
        # thread that kept a reference to sys.stdout prints into the current cell.
        self.stdout = fl_output.CappedWriter(20000)
        self.stderr = fl_output.CappedWriter(20000)
        self.fd_capture = fd_capture
        if fd_capture is not None:
            fd_capture.targets = (self.stdout, self.stderr)
        self.sent_names = []
        # The namespace's keys when the names were last sent; None when the injected names
        # changed (a capability installed or registered), so the names are listed again.
        self.seen_keys = None
        self.user_code_running = False
        self.execution_count = execution_count
        self.restore_count = 0
        self.current_cell = None
        self.history = []
        self.natives = {}
        self.class_files = weakref.WeakKeyDictionary()
        self.module = types.ModuleType("__main__", "the firstlight REPL namespace")
        self.ns = self.module.__dict__
        # pickle finds user classes as __main__.Name, so the namespace must BE __main__.
        sys.modules["__main__"] = self.module
        self._fresh_namespace()
        self._patch_inspect()

    def _fresh_namespace(self):
        keep = {"__name__": "__main__", "__builtins__": builtins, "__doc__": None}
        self.ns.clear()
        self.ns.update(keep)
        self.ns["register_capability"] = self.register_capability
        self.ns["CapabilityError"] = fl_capabilities.CapabilityError
        self.ns["RelayCapability"] = fl_capabilities.RelayCapability

    def _patch_inspect(self):
        # Python < 3.13 finds a class's source through its module's __file__, which a REPL
        # class does not have; point it at the cell instead (IPython has the same problem).
        original = inspect.getfile
        kernel = self

        def getfile(obj):
            if isinstance(obj, type) and obj.__module__ == "__main__":
                cell = kernel.class_files.get(obj)
                # A class defined in the running cell is not noted yet: it lives in that cell.
                if cell is None and kernel.current_cell is not None:
                    cell = kernel.current_cell
                if cell is not None:
                    return cell
            return original(obj)

        inspect.getfile = getfile

    # ---- names -------------------------------------------------------------------------

    def injected(self):
        names = {"register_capability", "CapabilityError", "RelayCapability"}
        names.update(fl_capabilities.relay_names())
        names.update(self.natives.keys())
        return names

    def user_names(self):
        skip = self.injected()
        return [n for n in self.ns if not n.startswith("_") and n not in skip]

    # ---- execute -----------------------------------------------------------------------

    def run_cell(self, code, filename, output_cap):
        """Runs one cell; returns (value, error) with stdout/stderr captured by the caller."""
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        tree = body = last = None
        if "\n" not in code and not NOT_AN_EXPRESSION.match(code):
            try:
                last = compile(code, filename, "eval")
            except SyntaxError:
                pass
        if last is None:
            tree = ast.parse(code, filename, "exec")
            if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr):
                # One expression over several lines: compiling the text is a third of the cost
                # of compiling the tree back (`1+1;` only compiles as a tree).
                try:
                    last = compile(code, filename, "eval")
                except SyntaxError:
                    last = compile(ast.Expression(tree.body[0].value), filename, "eval")
            else:
                if tree.body and isinstance(tree.body[-1], ast.Expr):
                    last = compile(ast.Expression(tree.body.pop().value), filename, "eval")
                body = compile(tree, filename, "exec")
        self.user_code_running = True
        self.current_cell = filename
        try:
            if body is not None:
                exec(body, self.ns)
            value = eval(last, self.ns) if last is not None else None
        finally:
            self.user_code_running = False
            self.current_cell = None
            if tree is not None:
                self._note_classes(tree, filename)
        return value

    def _note_classes(self, tree, filename):
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                value = self.ns.get(node.name)
                if isinstance(value, type) and value.__qualname__ == node.name:
                    self.class_files[value] = filename

    def execute(self, code, output_cap, store_history=True, with_repr=False):
        if store_history:
            self.execution_count += 1
            self.history.append(code)
        count = self.execution_count
        if store_history:
            filename = f"<cell-{count}>"
        else:
            self.restore_count += 1
            filename = f"<restore-{self.restore_count}>"
        stdout, stderr = self.stdout, self.stderr
        stdout.reset(output_cap)
        stderr.reset(output_cap)
        result = {"success": True, "return_value": None, "error_type": None, "error_message": None}
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = stdout, stderr
        if self.fd_capture is not None:
            self.fd_capture.start()
        try:
            value = self.run_cell(code, filename, output_cap)
            if value is not None:
                self.ns["_"] = value
                result["return_value"] = self.to_json(value, output_cap)
                if with_repr:  # for a person at a terminal: (1, 2) stays a tuple, as Jupyter shows it
                    result["repr"] = fl_output.cap_text(repr(value), output_cap)
        except BaseException as error:  # noqa: BLE001 - user code may raise anything, even SystemExit
            result["success"] = False
            result["error_type"] = type(error).__name__
            result["error_message"] = str(error)
            stderr.write(self._format_traceback(error))
        finally:
            sys.stdout, sys.stderr = saved
            if self.fd_capture is not None:
                self.fd_capture.stop()
        result["stdout"] = stdout.getvalue()
        result["stderr"] = stderr.getvalue()
        result["execution_count"] = count
        return result

    def _format_traceback(self, error):
        entries = traceback.format_exception(type(error), error, error.__traceback__)
        # Drop the kernel's own frames (one entry each): the model needs the frames of its cells.
        return "".join(entry for entry in entries if KERNEL_DIR not in entry)

    def to_json(self, value, cap):
        kind = type(value)
        if kind is bool or (kind is int and -(1 << 53) <= value <= 1 << 53):
            return value
        try:
            text = json.dumps(value, allow_nan=False)
            if len(text) <= cap:
                return value
        except (TypeError, ValueError):
            pass
        return fl_output.cap_text(repr(value), cap)

    # ---- capabilities ------------------------------------------------------------------

    def register_capability(self, obj):
        """Registers a native capability: an object with `name` and `describe()`."""
        name = fl_capabilities.validate_native(obj, fl_capabilities.relay_names())
        self.seen_keys = None
        self.natives[name] = obj
        self.ns[name] = obj

    def describe(self, name):
        obj = self.natives.get(name)
        if obj is None:
            try:
                obj = fl_capabilities.get_capability(name)
            except LookupError:
                return None
        return obj.describe()

    # ---- state -------------------------------------------------------------------------

    def state(self):
        functions, variables = [], {}
        for name in self.user_names():
            value = self.ns[name]
            # Decorated functions (lru_cache, wraps) count as functions too.
            if isinstance(value, types.FunctionType) or fl_persist.user_function(value, name) is not None:
                try:
                    signature = str(inspect.signature(value))
                except (TypeError, ValueError):
                    signature = "(...)"
                functions.append({"name": name, "signature": signature, "docstring": inspect.getdoc(value)})
            elif isinstance(value, type):
                variables[name] = "class"
            else:
                variables[name] = type(value).__name__
        return {
            "defined_functions": functions,
            "variables": variables,
            "capabilities": sorted(set(fl_capabilities.relay_names()) | set(self.natives)),
            "history_length": len(self.history),
            "execution_count": self.execution_count,
        }

    def reset(self):
        relays = {n: self.ns.get(n) for n in fl_capabilities.relay_names()}
        self._fresh_namespace()
        for name, obj in relays.items():
            if obj is not None:
                self.ns[name] = obj
        for name, obj in self.natives.items():
            self.ns[name] = obj
        self.history = []

    def export(self):
        return fl_persist.export_namespace(self.ns, self.user_names(), self.natives, self.history)

    def restore(self, state, output_cap, item_timeout):
        def on_alarm(signum, frame):
            if self.user_code_running:
                raise TimeoutError(f"still running after {item_timeout:g} s (a loop in a class body or decorator?)")

        def run_source(source, label):
            signal.setitimer(signal.ITIMER_REAL, item_timeout)
            try:
                result = self.execute(source, output_cap, store_history=False)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if not result["success"]:
                raise fl_persist.SourceFailed(f"{result['error_type']}: {result['error_message']}")

        previous = signal.signal(signal.SIGALRM, on_alarm)
        try:
            restored, failed = fl_persist.import_namespace(state, self.ns, run_source, self.register_capability)
        finally:
            signal.signal(signal.SIGALRM, previous)
        self.history.extend(state.get("history") or [])
        return {"restored": restored, "failed": failed}


class NoInterrupt:
    """Defers SIGINT while a relay line is written or read, so a line is never torn.

    A timeout still ends a waiting relay call: the harness answers it with an error at once,
    and the deferred KeyboardInterrupt is raised when the mask is lifted. (A class rather than
    a contextmanager: it is entered twice per relay call.)
    """

    SIGINT = {signal.SIGINT}

    def __call__(self):
        return self

    def __enter__(self):
        signal.pthread_sigmask(signal.SIG_BLOCK, self.SIGINT)

    def __exit__(self, *exc):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, self.SIGINT)


def end_group():
    """Kills the kernel's process group (itself and whatever its cells started), when it leads one."""
    sys.stdout.flush()
    if os.getpgrp() == os.getpid():
        os.killpg(os.getpid(), signal.SIGKILL)
    os._exit(0)


def watch_parent(interval=0.25):
    """
    The harness may die without a word (kill -9): then the kernel is re-parented, and it takes
    its whole process group along, so no cell's subprocess outlives the harness. Polling the
    parent pid works on Linux and macOS alike (PR_SET_PDEATHSIG is Linux-only).
    """
    parent = os.getppid()
    while True:
        time.sleep(interval)
        if os.getppid() != parent:
            end_group()


def main():
    threading.Thread(target=watch_parent, name="fl-parent-watch", daemon=True).start()
    control_in = os.fdopen(CONTROL_FD, "rb")
    relay_in = os.fdopen(RELAY_FD, "rb")
    relay_out = os.fdopen(os.dup(RELAY_FD), "wb")
    fl_capabilities.set_channel(fl_capabilities.RelayChannel(relay_in, relay_out, NoInterrupt()))
    # argv[1]: the number of the last cell of the kernel this one replaces (0 at first).
    kernel = Kernel(fl_output.FdCapture(), int(sys.argv[1]) if len(sys.argv) > 1 else 0)

    def on_sigint(signum, frame):
        if kernel.user_code_running:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)

    def reply(message):
        # One write system call, no buffer in between. No SIGINT mask here (two system calls
        # per message saved): replies are written between cells, where on_sigint returns
        # without raising, so the write just resumes. Relay requests are written from inside a
        # cell and keep the mask (RelayChannel).
        data = (fl_wire.encode(message) + "\n").encode("utf-8")
        while data:
            data = data[os.write(CONTROL_FD, data) :]

    reply({"id": 0, "ok": True, "result": {"ready": True, "pid": os.getpid(), "python": sys.version.split()[0]}})
    while True:
        try:
            raw = control_in.readline()
        except KeyboardInterrupt:
            continue
        if not raw:
            # The harness closed the channel (or died): nothing started here may linger.
            end_group()
        request = fl_wire.decode(raw)
        try:
            result = dispatch(kernel, request)
            reply({"id": request["id"], "ok": True, "result": result})
        except Exception as error:  # noqa: BLE001 - reported to the harness, the loop goes on
            reply({"id": request["id"], "ok": False, "error": f"{type(error).__name__}: {error}"})


def dispatch(kernel, request):
    op = request["op"]
    cap = int(request.get("output_cap") or 20000)
    if op == "ping":
        return {}
    if op == "execute":
        result = kernel.execute(request["code"], cap, with_repr=bool(request.get("repr")))
        # The harness keeps the user's names to say what a kernel death lost; they are sent
        # only when they changed. Most cells add no name: comparing the namespace's keys with
        # the last ones seen (in C) tells that without building the list.
        if kernel.ns.keys() != kernel.seen_keys:
            kernel.seen_keys = set(kernel.ns)
            names = kernel.user_names()
            if names != kernel.sent_names:
                result["names"] = kernel.sent_names = names
        return result
    if op == "state":
        return kernel.state()
    if op == "install":
        kernel.seen_keys = None
        fl_capabilities.install_relay(kernel.ns, request["name"], request["tools"])
        return {}
    if op == "uninstall":
        name = request["name"]
        kernel.seen_keys = None
        fl_capabilities.uninstall_relay(kernel.ns, name)
        if kernel.natives.pop(name, None) is not None:
            kernel.ns.pop(name, None)
        return {}
    if op == "describe":
        return {"text": kernel.describe(request["name"])}
    if op == "natives":
        return {"names": sorted(kernel.natives)}
    if op == "reset":
        kernel.reset()
        return {}
    if op == "export":
        return kernel.export()
    if op == "restore":
        return kernel.restore(request["state"], cap, float(request.get("item_timeout") or 10))
    raise ValueError(f"unknown op {op!r}")


if __name__ == "__main__":
    main()
