"""Capability objects: relay capabilities backed by MCP servers, and native ones written in Python.

A relay call leaves the kernel on its own channel (file descriptor 4, never stdout) as one line,
`<id> <capability> <params>`, params being the `tools/call` params as JSON; the harness sends them
to the backend as they are and answers `<id> <the backend's JSON-RPC response line>` (or
`<id> !<error message as a JSON string>`), so the call's arguments and its result are encoded
and decoded once each, here. Calls may come from several threads at once; each gets the answer
with its own id (RelayChannel).
"""

import inspect
import itertools
import json
import keyword
import re
import threading


class CapabilityError(RuntimeError):
    """A backend tool answered with an error (or could not be reached)."""

    def __init__(self, capability, method, message):
        super().__init__(f"{capability}.{method} failed: {message}")
        self.capability = capability
        self.method = method


class RelayChannel:
    """Relay calls over one duplex descriptor, one JSON object per line, from any thread.

    Requests are written whole under a lock. Answers are routed by id: a waiting thread that
    finds nobody reading becomes the reader, files answers meant for other threads in their
    slots (waking them) and hands the role on once its own answer is in. A cell calling from
    one thread thus reads its answer itself, with no thread switch. An answer whose caller
    stopped waiting (interrupted) finds no slot and is dropped.
    """

    def __init__(self, reader, writer, guard):
        self.reader = reader
        self.writer = writer
        self.guard = guard  # defers SIGINT in the main thread, so a line is never torn
        self.ids = itertools.count(1)
        self._write_lock = threading.Lock()
        self._cond = threading.Condition()
        self._slots = {}  # id -> answer, or _WAITING
        self._reading = False
        self._closed = False

    def call(self, capability, tool, arguments, method=None):
        method = method or tool
        request_id = next(self.ids)
        # Strict JSON (no NaN): the backend could not read anything else.
        params = _encode_params({"name": tool, "arguments": arguments})
        line = b"%d %s %s\n" % (request_id, capability.encode("utf-8"), params.encode("ascii"))
        with self._cond:
            self._slots[request_id] = _WAITING
            reader = not self._reading  # the usual case: no other thread is waiting
            self._reading = True
        try:
            if reader:
                # One SIGINT mask for the write and the read (two system calls, not four).
                with self.guard():
                    self._write(line)
                    answer = self._read(request_id)
            else:
                with self.guard():
                    self._write(line)
                answer = self._wait(request_id)
        finally:
            with self._cond:
                self._slots.pop(request_id, None)
                if reader:
                    self._reading = False
                    self._cond.notify_all()
        if answer is None:
            raise CapabilityError(capability, method, "the harness closed the relay channel")
        return unwrap_answer(answer, capability, method)

    def _write(self, line):
        with self._write_lock:
            self.writer.write(line)
            self.writer.flush()

    def _read(self, request_id):
        """Reads answers until the one for `request_id`, filing the others in their slots."""
        while True:
            raw = self.reader.readline()
            if not raw:
                with self._cond:
                    self._closed = True
                    self._cond.notify_all()
                return None
            head, _, answer = raw.partition(b" ")
            answer_id = int(head)
            if answer_id == request_id:
                return answer
            with self._cond:
                if answer_id in self._slots:
                    self._slots[answer_id] = answer
                    self._cond.notify_all()

    def _wait(self, request_id):
        """Waits while another thread reads; reads in its place when it is done."""
        with self._cond:
            while True:
                answer = self._slots.get(request_id)
                if answer is not _WAITING:
                    return answer
                if self._closed:
                    return None
                if not self._reading:
                    self._reading = True
                    break
                self._cond.wait()
        try:
            with self.guard():
                return self._read(request_id)
        finally:
            with self._cond:
                self._reading = False
                self._cond.notify_all()


_WAITING = object()
_encode_params = json.JSONEncoder(allow_nan=False, separators=(",", ":")).encode
_JSON_STARTS = frozenset('[{"-0123456789tfn')
_MAYBE_JSON = re.compile(r'[\[{"]|-?[0-9]|(?:true|false|null)\Z')


def _forbid_constant(name):
    raise ValueError(f"{name} is not JSON")


def _maybe_json(text):
    """A text block's value: JSON when it is JSON (as JavaScript's JSON.parse reads it), else the text."""
    trimmed = text.strip()
    if trimmed[:1] not in _JSON_STARTS or not _MAYBE_JSON.match(trimmed):
        return text
    try:
        return json.loads(trimmed, parse_constant=_forbid_constant)
    except ValueError:
        return text


def unwrap_answer(answer, capability, method):
    """The value a program wants from a relay answer (the bytes after `<id> `).

    A harness error or a JSON-RPC error raises CapabilityError, and so does a result with
    `isError` (its text is the message); else the text, as it is, when `structuredContent` only
    wraps it (one string field equal to the one text block, as server-filesystem answers);
    else `structuredContent`; else the text blocks as JSON
    when they parse (one block: the value, several: a list); else the content blocks as they are
    (images, resources); no content: None.
    """
    if answer[:1] == b"!":
        raise CapabilityError(capability, method, json.loads(answer[1:]))
    message = json.loads(answer)
    error = message.get("error")
    if isinstance(error, dict):
        raise CapabilityError(capability, method, f"MCP error {error.get('code')}: {error.get('message')}")
    result = message.get("result")
    if not isinstance(result, dict):
        raise CapabilityError(capability, method, "the backend answered without a result")
    content = result.get("content") or []
    if result.get("isError"):
        text = "\n".join(b.get("text") or "" for b in content if isinstance(b, dict) and b.get("type") == "text")
        raise CapabilityError(capability, method, text or "the tool reported an error without text")
    structured = result.get("structuredContent")
    if isinstance(structured, dict) and len(structured) == 1 and len(content) == 1:
        block = content[0]
        text = block.get("text") if isinstance(block, dict) and block.get("type") == "text" else None
        if isinstance(text, str) and next(iter(structured.values())) == text:
            return text
    if structured is not None:
        return structured
    if not content:
        return None
    if len(content) == 1:  # the usual answer: one block
        block = content[0]
        if isinstance(block, dict) and block.get("type") == "text":
            return _maybe_json(block.get("text") or "")
        return content
    if all(isinstance(b, dict) and b.get("type") == "text" for b in content):
        values = [_maybe_json(b.get("text") or "") for b in content]
        return values[0] if len(values) == 1 else values
    return content


class _Unset:
    def __repr__(self):
        return "<optional>"


UNSET = _Unset()
_registry = {}  # name -> RelayCapability, for aliases restored by pickle
_channel = None


def set_channel(channel):
    global _channel
    _channel = channel


def get_capability(name):
    """Looks up an installed relay capability; pickled aliases (`c = fs`) resolve through here."""
    if name not in _registry:
        raise LookupError(f"capability '{name}' is not installed")
    return _registry[name]


def _schema_type(schema):
    kind = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array":
        return f"list[{_schema_type(schema.get('items') or {})}]"
    return {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "object": "dict"}.get(
        kind, kind or "any"
    )


class RelayCapability:
    """A capability whose methods are the tools of an MCP server."""

    def __init__(self, name, tools):
        self.name = name
        # tools: [{name (original), pyname, description, input_schema}]
        self._tools = {t["pyname"]: t for t in tools}
        # Built on first use and kept: a loop of relay calls would otherwise rebuild the
        # closure and its inspect.Signature on every attribute access.
        self._methods = {}
        self._installed = True

    def __getattr__(self, method):
        if method.startswith("_"):
            raise AttributeError(method)
        call = self._methods.get(method)
        if call is not None:
            return call
        tool = self._tools.get(method)
        if tool is None:
            raise AttributeError(f"'{self.name}' has no method '{method}'. Available: {', '.join(self._tools)}")
        call = self._methods[method] = self._method(tool)
        return call

    def _method(self, tool):
        schema = tool.get("input_schema") or {}
        required = set(schema.get("required") or [])
        # Positional arguments follow the signature: required parameters first, each group in
        # schema order, so `fs.read_text_file("a.txt")` means `path="a.txt"`.
        declared = list((schema.get("properties") or {}).keys())
        props = [p for p in declared if p in required] + [p for p in declared if p not in required]
        # A backend drops a keyword its schema does not declare and answers as if it was never
        # given (issue 38): refuse it here, naming the parameters, unless the schema takes extras.
        open_schema = bool(schema.get("additionalProperties"))
        capability = self

        def call(*args, **kwargs):
            if not capability._installed:
                raise CapabilityError(capability.name, tool["pyname"], "the capability was uninstalled")
            if len(args) > len(props):
                raise TypeError(f"{tool['pyname']}() takes {len(props)} positional arguments but {len(args)} were given")
            arguments = {}
            for key, value in zip(props, args):
                arguments[key] = value
            for key, value in kwargs.items():
                if key not in declared and not open_schema:
                    takes = f"its parameters: {', '.join(props)}" if props else "it takes no parameters"
                    raise TypeError(f"{tool['pyname']}() got an unexpected keyword argument '{key}' ({takes})")
                if key in arguments:
                    raise TypeError(f"{tool['pyname']}() got multiple values for argument '{key}'")
                if value is not UNSET:
                    arguments[key] = value
            missing = [p for p in props if p in required and p not in arguments]
            if missing:
                raise TypeError(f"{tool['pyname']}() missing required argument(s): {', '.join(missing)}")
            if _channel is None:
                raise CapabilityError(capability.name, tool["pyname"], "no relay channel")
            return _channel.call(capability.name, tool["name"], arguments, tool["pyname"])

        call.__name__ = tool["pyname"]
        call.__qualname__ = f"{self.name}.{tool['pyname']}"
        call.__doc__ = tool.get("description") or ""
        params = []
        for key in props:
            if key.isidentifier() and not keyword.iskeyword(key):
                default = inspect.Parameter.empty if key in required else UNSET
                params.append(inspect.Parameter(key, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default))
        try:
            call.__signature__ = inspect.Signature(params)
        except ValueError:
            pass
        return call

    def __dir__(self):
        return list(self._tools.keys()) + ["name", "describe"]

    def __repr__(self):
        return f"<Capability '{self.name}' with {len(self._tools)} methods>"

    def __reduce__(self):
        return (get_capability, (self.name,))

    def describe(self):
        """Documentation for this capability, from its tool specs."""
        lines = [f"{self.name} capability:", ""]
        for pyname, tool in self._tools.items():
            schema = tool.get("input_schema") or {}
            required = set(schema.get("required") or [])
            params = []
            for key, prop in (schema.get("properties") or {}).items():
                optional = "" if key in required else "?"
                params.append(f"{key}{optional}: {_schema_type(prop)}")
            lines.append(f"  {pyname}({', '.join(params)})")
            if tool["name"] != pyname:
                lines.append(f"      (MCP tool '{tool['name']}')")
            description = (tool.get("description") or "").strip()
            if description:
                for text in description.splitlines():
                    lines.append(f"      {text}")
            lines.append("")
        return "\n".join(lines)


def install_relay(namespace, name, tools):
    old = _registry.get(name)
    if old is not None:
        old._installed = False
    capability = RelayCapability(name, tools)
    _registry[name] = capability
    namespace[name] = capability
    return capability


def uninstall_relay(namespace, name):
    capability = _registry.pop(name, None)
    if capability is not None:
        capability._installed = False
        if namespace.get(name) is capability:
            del namespace[name]


def relay_names():
    return list(_registry.keys())


def validate_native(obj, relay_taken):
    """Checks the native capability protocol: a `name` identifier and a `describe()` returning str."""
    name = getattr(obj, "name", None)
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
        raise TypeError(
            "register_capability: the object needs a `name` attribute that is a Python identifier "
            f"(not starting with '_'), got {name!r}"
        )
    describe = getattr(obj, "describe", None)
    if not callable(describe):
        raise TypeError(f"register_capability: '{name}' needs a describe() method returning a string")
    text = describe()
    if not isinstance(text, str):
        raise TypeError(f"register_capability: {name}.describe() returned {type(text).__name__}, not str")
    if name in relay_taken:
        raise ValueError(f"register_capability: '{name}' is already an installed MCP capability; uninstall it first")
    return name
