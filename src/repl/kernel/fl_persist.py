"""Export and import of the user namespace (the kernel half of save_state / restore_state).

Functions and classes are saved by source (the cells live in linecache, so inspect.getsource
works), variables as JSON when they survive a JSON round trip unchanged, else as pickle, else
with dill where it is installed (it pickles lambdas, closures and more), else as their repr,
which is kept for the record but cannot be restored. Modules and imported names are saved by
reference. Whatever cannot be saved or restored is reported item by item with the reason, never
dropped silently.
"""

import base64
import builtins
import importlib
import inspect
import json
import pickle
import textwrap
import types

MAX_PICKLE_BYTES = 16 * 1024 * 1024
MAX_REPR_CHARS = 2000

try:  # Optional: the standard library's pickle covers plain data and instances of saved classes.
    import dill
except ImportError:  # pragma: no cover - depends on the interpreter
    dill = None


class SourceFailed(Exception):
    """Running a saved source raised; the message is the cell's own `Type: message`."""


def _is_user_defined(obj):
    return getattr(obj, "__module__", None) == "__main__"


def _source(obj):
    return textwrap.dedent(inspect.getsource(obj))


def _order_key(obj):
    code = getattr(obj, "__code__", None)
    if code is not None:
        return (_cell_number(code.co_filename), code.co_firstlineno)
    try:
        return (_cell_number(inspect.getsourcefile(obj) or ""), inspect.findsource(obj)[1])
    except (OSError, TypeError):
        return (1 << 30, 0)


# Cell numbers of files named otherwise than `<cell-N>` (an IPython kernel names its own).
CELL_NUMBERS = {}


def _cell_number(filename):
    number = CELL_NUMBERS.get(filename)
    if number is not None:
        return number
    # Restored definitions (`<restore-N>`) sort before every cell: they were defined earlier.
    for prefix, base in (("<cell-", 0), ("<restore-", -(1 << 20))):
        if filename.startswith(prefix) and filename.endswith(">"):
            try:
                return base + int(filename[len(prefix) : -1])
            except ValueError:
                pass
    return 1 << 30


def _json_roundtrips(value):
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    try:
        back = json.loads(text)
    except ValueError:
        return False
    return type(back) is type(value) and back == value


def user_function(value, name):
    """The function to save by source for `value` bound to `name`, or None.

    A plain `def` gives itself; a decorated one (`@functools.lru_cache`, anything built with
    functools.wraps) gives the function it wraps, whose source starts at the decorators, so
    running that source again rebuilds the decorated object.
    """
    if isinstance(value, types.FunctionType):
        function = value
    elif hasattr(value, "__wrapped__") and callable(value):
        try:
            function = inspect.unwrap(value)
        except ValueError:
            return None
        if not isinstance(function, types.FunctionType):
            return None
    else:
        return None
    if not _is_user_defined(function) or function.__name__ != name:
        return None
    if "<locals>" in function.__qualname__ or function.__name__ == "<lambda>":
        return None
    return function


def export_namespace(namespace, user_names, natives, history):
    functions, classes, variables, native_out, unsaved = {}, {}, {}, {}, []
    for name in user_names:
        value = namespace[name]
        try:
            function = user_function(value, name)
            if isinstance(value, types.ModuleType):
                variables[name] = {"type": "module", "value": value.__name__}
            elif function is not None:
                entry = {"source": _source(function), "order": list(_order_key(function))}
                try:
                    entry["signature"] = str(inspect.signature(value))
                except (TypeError, ValueError):
                    entry["signature"] = "(...)"
                functions[name] = entry
            elif isinstance(value, type) and _is_user_defined(value) and value.__name__ == name:
                if "<locals>" in value.__qualname__:
                    _save_value(name, value, variables, unsaved)
                    continue
                classes[name] = {"source": _source(value), "order": list(_order_key(value))}
            elif callable(value) and getattr(value, "__module__", None) not in (None, "__main__") and hasattr(
                value, "__qualname__"
            ):
                variables[name] = {"type": "import", "module": value.__module__, "value": value.__qualname__}
            else:
                _save_value(name, value, variables, unsaved)
        except Exception as error:  # noqa: BLE001 - every failure is reported, none stops the save
            unsaved.append({"name": name, "kind": "value", "reason": f"{type(error).__name__}: {error}"})
    for name, obj in natives.items():
        try:
            cls = type(obj)
            entry = {"class_name": cls.__name__, "source": _source(cls), "state": None}
            try:
                entry["state"] = base64.b64encode(pickle.dumps(obj, protocol=4)).decode("ascii")
            except Exception:  # noqa: BLE001 - the instance is rebuilt with cls() instead
                entry["state"] = None
            native_out[name] = entry
        except Exception as error:  # noqa: BLE001
            unsaved.append({"name": name, "kind": "native_capability", "reason": f"{type(error).__name__}: {error}"})
    return {
        "functions": functions,
        "classes": classes,
        "variables": variables,
        "native_capabilities": native_out,
        "history": list(history),
        "unsaved": unsaved,
    }


def _save_value(name, value, variables, unsaved):
    if _json_roundtrips(value):
        variables[name] = {"type": "json", "value": value}
        return
    why = None
    for kind, module in (("pickle", pickle), ("dill", dill)):
        if module is None:
            continue
        try:
            data = module.dumps(value, protocol=4)
        except Exception as error:  # noqa: BLE001 - the next way is tried
            why = f"not JSON and not picklable ({error})"
            continue
        if len(data) > MAX_PICKLE_BYTES:
            unsaved.append({"name": name, "kind": "variable", "reason": f"{kind} is {len(data):,} bytes (limit {MAX_PICKLE_BYTES:,})"})
            return
        variables[name] = {"type": kind, "value": base64.b64encode(data).decode("ascii")}
        return
    try:
        text = repr(value)
    except Exception as error:  # noqa: BLE001
        unsaved.append({"name": name, "kind": "variable", "reason": f"{why}; repr failed too ({error})"})
        return
    if len(text) > MAX_REPR_CHARS:
        text = text[:MAX_REPR_CHARS] + "..."
    # The last resort: what the value looked like, for the record. It cannot be rebuilt, so it is
    # listed as unsaved now, when the one who saved can still act on it (issue 38).
    variables[name] = {"type": "repr", "value": text}
    unsaved.append({"name": name, "kind": "variable", "reason": f"kept only as its repr, which cannot be rebuilt: {why}"})


# Variables by when they can be restored: modules and imports before the definitions (a
# decorator or a base class may name them), plain JSON data too (a default argument may), and
# pickles after them (an instance needs its class).
_BEFORE_DEFINITIONS = ("module", "import", "json")


def import_namespace(state, namespace, run_source, register_native):
    """Restores modules, imports and JSON values; then definitions in their original order;
    then pickled values; then native capabilities.

    `run_source(source, label)` executes a definition as a new cell so it lands in linecache
    again (and can be saved again). Returns (restored names, failures).
    """
    restored, failed = [], []
    variables = state.get("variables") or {}

    def load_variables(early):
        for name, entry in variables.items():
            if (entry.get("type") in _BEFORE_DEFINITIONS) != early:
                continue
            try:
                namespace[name] = _load_value(entry)
                restored.append(name)
            except Exception as error:  # noqa: BLE001
                failed.append({"name": name, "kind": "variable", "reason": _why(error)})

    load_variables(early=True)
    definitions = []
    for kind in ("classes", "functions"):
        for name, entry in (state.get(kind) or {}).items():
            definitions.append((tuple(entry.get("order") or (1 << 30, 0)), kind, name, entry))
    definitions.sort(key=lambda item: item[0])
    for _, kind, name, entry in definitions:
        try:
            run_source(entry["source"], name)
            if name not in namespace:
                raise NameError(f"the saved source did not define '{name}'")
            restored.append(name)
        except BaseException as error:  # noqa: BLE001 - KeyboardInterrupt included: report, go on
            failed.append({"name": name, "kind": kind[:-1] if kind == "functions" else "class", "reason": _why(error)})
    load_variables(early=False)
    for name, entry in (state.get("native_capabilities") or {}).items():
        try:
            cls = namespace.get(entry["class_name"])
            if not isinstance(cls, type):
                run_source(entry["source"], entry["class_name"])
                cls = namespace[entry["class_name"]]
            obj = pickle.loads(base64.b64decode(entry["state"])) if entry.get("state") else cls()
            register_native(obj)
            restored.append(name)
        except Exception as error:  # noqa: BLE001
            failed.append({"name": name, "kind": "native_capability", "reason": _why(error)})
    return restored, failed


def _load_value(entry):
    kind = entry.get("type")
    if kind == "json":
        return entry["value"]
    if kind == "pickle":
        return pickle.loads(base64.b64decode(entry["value"]))
    if kind == "dill":
        # Without dill, a dill pickle of plain data is still a standard pickle; anything else
        # fails here, reported for this variable only.
        try:
            return (dill or pickle).loads(base64.b64decode(entry["value"], validate=True))
        except Exception as error:  # noqa: BLE001
            how = "dill" if dill is not None else "the standard pickle module (dill is not installed)"
            raise ValueError(f"a dill pickle {how} cannot load ({_why(error)})") from None
    if kind == "repr":
        raise ValueError(f"saved as its repr only, which cannot be rebuilt: {str(entry.get('value'))[:200]}")
    if kind == "module":
        return importlib.import_module(entry["value"])
    if kind == "import":
        obj = importlib.import_module(entry["module"]) if entry["module"] != "builtins" else builtins
        for part in entry["value"].split("."):
            obj = getattr(obj, part)
        return obj
    raise ValueError(f"unknown variable type {kind!r}")


def _why(error):
    return str(error) if isinstance(error, SourceFailed) else f"{type(error).__name__}: {error}"

