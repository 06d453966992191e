"""The control channel's JSON lines, read and written with the json module's C accelerators.

`json.loads` and `JSONEncoder.encode` wrap the C scanner and encoder in Python: a detection of
the bytes' encoding, two regular expression matches, a new C encoder per message. For the small
messages of every cell that wrapping costs more than the JSON itself, and a kernel woken for one
cell runs it with cold caches. Here the C objects are made once and called directly; where the
C accelerators are missing (or do not behave as expected) the plain json functions are used.
"""

import json
from json import encoder as _encoder
from json import scanner as _scanner

_scan = _scanner.make_scanner(json.JSONDecoder())


def decode(raw):
    """One request line (UTF-8 bytes holding one JSON object, then a newline) as a dict."""
    try:
        value, _end = _scan(raw.decode("utf-8"), 0)
    except StopIteration as error:
        raise ValueError(f"not a JSON request line: {raw[:200]!r}") from error
    return value


def _plain_encoder():
    return json.JSONEncoder(default=repr).encode


def _c_encoder():
    """`JSONEncoder(default=repr).encode` without building a C encoder per message, or None."""
    make = getattr(_encoder, "c_make_encoder", None)
    if make is None:
        return None
    markers = {}  # circular-reference check, as JSONEncoder's default; emptied after a failure
    try:
        encode_c = make(markers, repr, _encoder.encode_basestring_ascii, None, ": ", ", ", False, False, True)
    except TypeError:  # another Python's private signature
        return None

    def encode(message):
        try:
            return "".join(encode_c(message, 0))
        except BaseException:
            markers.clear()
            raise

    return encode


def _choose_encoder():
    fast = _c_encoder()
    sample = {"id": 1, "ok": True, "result": {"a": [1, 2.5, None, "é\n"], "b": False, "c": object}}
    try:
        if fast is not None and fast(sample) == _plain_encoder()(sample):
            return fast
    except Exception:  # noqa: BLE001 - any surprise means: use the plain encoder
        pass
    return _plain_encoder()


encode = _choose_encoder()
