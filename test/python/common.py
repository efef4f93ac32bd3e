"""Shared helpers for the Python-driver test scripts: argv parsing, scenario registry, JSON output."""
import json
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
    return {
        'type': type(e).__name__,
        'code': getattr(e, 'code', None),
        'message': str(e),
    }


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
