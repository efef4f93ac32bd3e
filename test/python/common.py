"""Shared helpers for the Python-driver test scripts: argv parsing, scenario registry, JSON output."""
import json
import re
import sys
import traceback

from cassandra.cluster import Cluster

HOST = sys.argv[1] if len(sys.argv) > 1 else '127.0.0.1'
PORT = int(sys.argv[2]) if len(sys.argv) > 2 else 9042
SELECTED = sys.argv[3:]

_SCENARIOS = []


def scenario(fn):
    _SCENARIOS.append(fn)
    return fn


def cluster(**kwargs):
    kwargs.setdefault('connect_timeout', 10)
    kwargs.setdefault('control_connection_timeout', 10)
    return Cluster([HOST], port=PORT, **kwargs)


def error_info(e):
    """Type name, server error code (if any) and message of a driver exception."""
    message = str(e)
    code = getattr(e, 'code', None)
    if code is None:
        # cassandra.InvalidRequest and friends keep the server code only in their text: "code=2200 [...]"
        m = re.search(r'code=([0-9a-fA-F]{4})', message)
        code = int(m.group(1), 16) if m else None
    return {'type': type(e).__name__, 'code': code, 'message': message}


def run():
    results = {}
    for fn in _SCENARIOS:
        if SELECTED and fn.__name__ not in SELECTED:
            continue
        try:
            out = fn()
            results[fn.__name__] = {'ok': True, **(out or {})}
        except Exception as e:  # noqa: BLE001 - reported to the test as data
            results[fn.__name__] = {'ok': False, 'error': error_info(e), 'trace': traceback.format_exc()}
    sys.stdout.write(json.dumps(results, default=str) + '\n')
    sys.stdout.flush()
