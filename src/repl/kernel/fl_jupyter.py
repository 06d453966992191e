"""firstlight REPL bridge to a Jupyter kernel: the stdlib kernel's protocol, IPython's semantics.

Speaks exactly what fl_kernel.py speaks to the harness (fd 3: control requests and replies,
one JSON object per line), and drives a real IPython kernel (ipykernel) through jupyter_client:
`execute` is a Jupyter execute_request, every other operation a silent execute evaluating
`__fl__.op(...)` in the kernel (fl_ipython.py). The kernel inherits fd 4, the relay channel, so
capability calls go straight from the cell to the harness. The kernel runs in the bridge's
process group: the harness's SIGINT interrupts the cell as Ctrl-C in Jupyter does, and its kill
takes the kernel along. Needs jupyter_client and ipykernel; dill is used where installed.
"""

import ast
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import zmq
from jupyter_client.connect import write_connection_file
from jupyter_client.session import Session

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
CONTROL_FD = 3
RELAY_FD = 4
POLL_MS = 500
START_S = 60

import fl_output  # noqa: E402 - from KERNEL_DIR, on sys.path as the script's directory


class KernelDied(Exception):
    """The IPython kernel process exited."""


class Bridge:
    """One IPython kernel, spoken to over its shell and iopub sockets with jupyter_client's
    Session (signing, serialization). Plain pyzmq sockets and one poller: a round trip costs
    what the messages cost, with no event loop in between."""

    def __init__(self, execution_count):
        self.dir = tempfile.mkdtemp(prefix="firstlight-jupyter-")
        connection = os.path.join(self.dir, "kernel.json")
        key = uuid.uuid4().hex.encode("ascii")
        _, info = write_connection_file(connection, ip="127.0.0.1", key=key)
        env = dict(os.environ)
        env["PYTHONPATH"] = KERNEL_DIR + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        env["JPY_PARENT_PID"] = str(os.getpid())  # the kernel exits when the bridge is gone
        env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # ipykernel's debugger, unused here
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-X",
                "utf8",
                "-m",
                "ipykernel_launcher",
                "-f",
                connection,
                "--quiet",
                # The bridge keeps the session's history itself; IPython's would go to one
                # history.sqlite shared by every kernel of the user, locked on each write.
                "--HistoryManager.enabled=False",
            ],
            stdin=subprocess.DEVNULL,
            env=env,
            pass_fds=(RELAY_FD,),
        )
        os.close(RELAY_FD)  # the kernel holds the relay channel now
        self.closing = False
        threading.Thread(target=self._follow_kernel, daemon=True).start()
        self.session = Session(key=key, signature_scheme=info.get("signature_scheme", "hmac-sha256"))
        self.context = zmq.Context()
        self.shell = self.context.socket(zmq.DEALER)
        self.shell.linger = 0
        self.shell.connect(f"tcp://127.0.0.1:{info['shell_port']}")
        self.iopub = self.context.socket(zmq.SUB)
        self.iopub.linger = 0
        self.iopub.setsockopt(zmq.SUBSCRIBE, b"")
        self.iopub.connect(f"tcp://127.0.0.1:{info['iopub_port']}")
        self.poller = zmq.Poller()
        self.poller.register(self.shell, zmq.POLLIN)
        self.poller.register(self.iopub, zmq.POLLIN)
        self._wait_ready()
        self.evaluate(f"__import__('fl_ipython').start(get_ipython(), {int(execution_count)}, {RELAY_FD}) and 'null'")

    def _follow_kernel(self):
        """Ends the bridge as the kernel ended (the same signal, or exit code), so the harness
        sees a kernel death as it would with the stdlib kernel, even while idle."""
        code = self.proc.wait()
        if self.closing:
            return
        sys.stderr.write(f"[firstlight-repl] the IPython kernel exited ({code})\n")
        sys.stderr.flush()
        if code < 0 and -code not in (signal.SIGINT,):
            os.kill(os.getpid(), -code)
        os._exit(128 - code if code < 0 else code or 70)

    # ---- messages -----------------------------------------------------------------------

    def _wait_ready(self):
        """kernel_info requests until one is answered on shell AND seen on iopub (a SUB socket
        misses what is published before it has joined)."""
        deadline = time.monotonic() + START_S
        while time.monotonic() < deadline:
            msg_id = self.session.send(self.shell, "kernel_info_request", {})["header"]["msg_id"]
            try:
                self.info = self._exchange(msg_id, timeout_s=1.0)
                return
            except TimeoutError:
                continue
        raise RuntimeError(f"the IPython kernel did not answer within {START_S} s")

    def _exchange(self, msg_id, on_message=None, timeout_s=None):
        """Reads both sockets until the shell reply to `msg_id` is in and the kernel is idle
        again for it; returns the reply's content."""
        reply = None
        idle = False
        waited = 0.0
        while reply is None or not idle:
            events = dict(self.poller.poll(POLL_MS))
            if not events:
                waited += POLL_MS / 1000
                if self.proc.poll() is not None:
                    raise KernelDied(f"exit code {self.proc.returncode}")
                if timeout_s is not None and waited >= timeout_s:
                    raise TimeoutError
                continue
            if self.shell in events:
                while True:
                    _, msg = self.session.recv(self.shell, mode=zmq.NOBLOCK)
                    if msg is None:
                        break
                    if msg["parent_header"].get("msg_id") == msg_id:
                        reply = msg["content"]
            if self.iopub in events:
                while True:
                    _, msg = self.session.recv(self.iopub, mode=zmq.NOBLOCK)
                    if msg is None:
                        break
                    if msg["parent_header"].get("msg_id") != msg_id:
                        continue
                    kind = msg["msg_type"]
                    if kind == "status":
                        if msg["content"].get("execution_state") == "idle":
                            idle = True
                    elif on_message is not None:
                        on_message(kind, msg["content"])
        return reply

    def _execute_request(self, code, silent, user_expressions):
        content = {
            "code": code,
            "silent": silent,
            "store_history": not silent,
            "user_expressions": user_expressions,
            "allow_stdin": False,
            "stop_on_error": False,
        }
        return self.session.send(self.shell, "execute_request", content)["header"]["msg_id"]

    def evaluate(self, expression):
        """Evaluates `expression` (which returns JSON text) in the kernel, silently."""
        content = self._exchange(self._execute_request("", True, {"r": expression}))
        value = content.get("user_expressions", {}).get("r") or {}
        if value.get("status") != "ok":
            raise RuntimeError(f"{value.get('ename', 'Error')}: {value.get('evalue', content.get('evalue', ''))}")
        return json.loads(ast.literal_eval(value["data"]["text/plain"]))

    # ---- operations ---------------------------------------------------------------------

    def execute(self, code, cap, with_repr=False):
        stdout = fl_output.CappedWriter(cap)
        stderr = fl_output.CappedWriter(cap)

        def on_message(kind, content):
            if kind == "stream":
                (stderr if content.get("name") == "stderr" else stdout).write(content.get("text", ""))
            elif kind == "display_data":
                # Rich output (plots, HTML) reaches a text-only client as its plain-text form.
                text = content.get("data", {}).get("text/plain")
                if text:
                    stdout.write(text + "\n")
            elif kind == "error":
                stderr.write("\n".join(content.get("traceback") or []) + "\n")

        msg_id = self._execute_request(code, False, {"r": f"__fl__.after_cell({int(cap)}, {bool(with_repr)})"})
        reply = self._exchange(msg_id, on_message)
        ok = reply.get("status") == "ok"
        result = {
            "success": ok,
            "return_value": None,
            "error_type": None if ok else reply.get("ename"),
            "error_message": None if ok else reply.get("evalue"),
            "execution_count": reply.get("execution_count"),
        }
        after = (reply.get("user_expressions") or {}).get("r") or {}
        if after.get("status") == "ok":
            extra = json.loads(ast.literal_eval(after["data"]["text/plain"]))
            result["return_value"] = extra.get("value")
            if "repr" in extra:
                result["repr"] = extra["repr"]
            if "names" in extra:
                result["names"] = extra["names"]
        result["stdout"] = stdout.getvalue()
        result["stderr"] = stderr.getvalue()
        return result

    def dispatch(self, request):
        op = request["op"]
        if op == "ping":
            return {}
        if op == "execute":
            return self.execute(
                request["code"], int(request.get("output_cap") or 20000), bool(request.get("repr"))
            )
        reply = self.evaluate(f"__fl__.op({json.dumps(request)!r})")
        if not reply.get("ok"):
            raise RuntimeError(reply.get("error") or "the kernel failed the request")
        return reply.get("result")

    def close(self):
        self.closing = True
        try:
            self.context.destroy(linger=0)
        finally:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(2)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
            shutil.rmtree(self.dir, ignore_errors=True)


def main():
    # The harness interrupts a cell with SIGINT to the whole process group: it is for the
    # kernel. The bridge takes no action (a handler, not SIG_IGN, so the kernel starts with
    # the default disposition).
    signal.signal(signal.SIGINT, lambda signum, frame: None)
    control_in = os.fdopen(CONTROL_FD, "rb")
    control_out = os.fdopen(os.dup(CONTROL_FD), "wb")
    encoder = json.JSONEncoder(default=repr)

    def reply(message):
        control_out.write(encoder.encode(message).encode("utf-8") + b"\n")
        control_out.flush()

    bridge = Bridge(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    try:
        version = f"{sys.version.split()[0]}, IPython {bridge.info.get('implementation_version', '?')}"
        reply({"id": 0, "ok": True, "result": {"ready": True, "pid": os.getpid(), "python": version}})
        while True:
            raw = control_in.readline()
            if not raw:
                return
            request = json.loads(raw)
            try:
                reply({"id": request["id"], "ok": True, "result": bridge.dispatch(request)})
            except KernelDied as error:
                sys.stderr.write(f"[firstlight-repl] the IPython kernel died ({error})\n")
                sys.exit(70)
            except Exception as error:  # noqa: BLE001 - reported to the harness, the loop goes on
                reply({"id": request["id"], "ok": False, "error": f"{type(error).__name__}: {error}"})
    finally:
        bridge.close()


if __name__ == "__main__":
    main()
