"""CQL scenarios through the Python driver: prepared statements with many types, paging with fetch_size
(within a partition, across partitions, reversed) at protocol v5, v4 and v3 (lz4-compressed), batches, and
server error codes.

Usage: cql_checks.py host port [scenario ...]; prints one JSON object {scenario: result}.
"""
import datetime
import decimal
import uuid

from cassandra import AlreadyExists, InvalidRequest
from cassandra.protocol import SyntaxException
from cassandra.query import BatchStatement, SimpleStatement
from common import cluster, error_info, run, scenario

REPLICATION = "{'class': 'SimpleStrategy', 'replication_factor': 1}"
VERSIONS = (5, 4, 3)

_setup_done = False


def _session(version=None, **kwargs):
    if version is not None:
        # compression stays on (the driver picks lz4): v5 compresses segments, v3/v4 frame bodies
        kwargs['protocol_version'] = version
    c = cluster(**kwargs)
    return c, c.connect()


def _setup(s):
    global _setup_done
    if _setup_done:
        return
    s.execute(f'CREATE KEYSPACE IF NOT EXISTS pyc WITH replication = {REPLICATION}')
    s.execute('CREATE TABLE IF NOT EXISTS pyc.p (k int, c int, v text, PRIMARY KEY (k, c))')
    s.execute(
        'CREATE TABLE IF NOT EXISTS pyc.r (k int, c int, v text, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)'
    )
    ins = s.prepare('INSERT INTO pyc.p (k, c, v) VALUES (?, ?, ?)')
    ins_r = s.prepare('INSERT INTO pyc.r (k, c, v) VALUES (?, ?, ?)')
    for c in range(25):
        s.execute(ins, (1, c, f'v{c}'))
        s.execute(ins_r, (1, c, f'v{c}'))
    for k in range(10, 17):
        for c in range(6):
            s.execute(ins, (k, c, 'x'))
    _setup_done = True


def _pages(s, query, params=None, fetch_size=7, prepared=False):
    stmt = s.prepare(query) if prepared else SimpleStatement(query, fetch_size=fetch_size)
    if prepared:
        stmt.fetch_size = fetch_size
    pages = []
    paging_state = None
    for _ in range(100):
        rs = s.execute(stmt, params, paging_state=paging_state)
        pages.append([[r.k, r.c] for r in rs.current_rows])
        paging_state = rs.paging_state
        if not rs.has_more_pages:
            break
    return pages


@scenario
def prepared_types():
    c, s = _session()
    try:
        s.execute(f'CREATE KEYSPACE IF NOT EXISTS pyc WITH replication = {REPLICATION}')
        s.execute(
            'CREATE TABLE IF NOT EXISTS pyc.types (k int PRIMARY KEY, a ascii, bi bigint, bl blob, bo boolean, '
            'da date, de decimal, do double, fl float, ine inet, si smallint, te text, ti time, ts timestamp, '
            'tu timeuuid, tiny tinyint, u uuid, vi varint, st set<int>, li list<text>, ma map<text, int>, '
            'fr frozen<list<int>>, tup tuple<int, text>)'
        )
        values = {
            'a': 'ascii',
            'bi': -(2**63),
            'bl': b'\x00\x01\xff',
            'bo': False,
            'da': datetime.date(2024, 2, 29),
            'de': decimal.Decimal('-123456789.987654321'),
            'do': 2.5e-300,
            'fl': 0.25,
            'ine': '10.1.2.3',
            'si': 32767,
            'te': 'tëxt ✓',
            'ti': datetime.time(23, 59, 59, 999999),
            'ts': datetime.datetime(2024, 1, 2, 3, 4, 5, 678000),
            'tu': uuid.UUID('e7e1a200-4b1f-11ee-8000-000000000001'),
            'tiny': -1,
            'u': uuid.UUID('123e4567-e89b-42d3-a456-426614174000'),
            'vi': -(10**30),
            'st': {3, 1, 2},
            'li': ['b', 'a'],
            'ma': {'x': 1, 'y': 2},
            'fr': [1, 1],
            'tup': (1, 'one'),
        }
        cols = list(values)
        insert = s.prepare(f'INSERT INTO pyc.types (k, {", ".join(cols)}) VALUES (?, {", ".join("?" for _ in cols)})')
        s.execute(insert, [1] + [values[col] for col in cols])
        select = s.prepare(f'SELECT {", ".join(cols)} FROM pyc.types WHERE k = ?')
        row = s.execute(select, [1]).one()
        got = {col: getattr(row, col) for col in cols}
        mismatches = {}
        for col in cols:
            expected, actual = values[col], got[col]
            if col == 'da':
                actual = actual.date() if hasattr(actual, 'date') else actual
            if col == 'ti':
                actual = actual.time() if hasattr(actual, 'time') else actual
            if col == 'st':
                actual = set(actual)
            if col == 'ma':
                actual = dict(actual)
            if col == 'li' or col == 'fr':
                actual = list(actual)
            if col == 'tup':
                actual = tuple(actual)
            if expected != actual:
                mismatches[col] = {'expected': repr(expected), 'actual': repr(actual)}
        bound = insert.bind([2] + [values[col] for col in cols])
        return {
            'mismatches': mismatches,
            'protocol_version': c.protocol_version,
            'routing_key_indexes': list(insert.routing_key_indexes or []),
            'routing_key': bound.routing_key.hex() if bound.routing_key else None,
            'select_result_columns': [col[2] for col in select.result_metadata] if select.result_metadata else None,
            'insert_bind_columns': [col.name for col in insert.column_metadata],
        }
    finally:
        c.shutdown()


@scenario
def decimal_forms():
    """Decimals with exponents and trailing zeros keep their scale, bound and as literals."""
    c, s = _session()
    try:
        s.execute(f'CREATE KEYSPACE IF NOT EXISTS pyc WITH replication = {REPLICATION}')
        s.execute('CREATE TABLE IF NOT EXISTS pyc.dec (k int PRIMARY KEY, de decimal)')
        ins = s.prepare('INSERT INTO pyc.dec (k, de) VALUES (?, ?)')
        out = {}
        for v in ['1E+10', '1E-20', '123.4500', '-99999999999999999999.99', '0']:
            s.execute(ins, (1, decimal.Decimal(v)))
            bound = s.execute('SELECT de FROM pyc.dec WHERE k = 1').one().de
            s.execute(f'INSERT INTO pyc.dec (k, de) VALUES (2, {v})')
            literal = s.execute('SELECT de FROM pyc.dec WHERE k = 2').one().de
            out[v] = [str(bound), str(literal)]
        return {'values': out}
    finally:
        c.shutdown()


@scenario
def composite_routing_key():
    c, s = _session()
    try:
        s.execute(f'CREATE KEYSPACE IF NOT EXISTS pyc WITH replication = {REPLICATION}')
        s.execute('CREATE TABLE IF NOT EXISTS pyc.comp (a int, b text, c int, v int, PRIMARY KEY ((b, a), c))')
        insert = s.prepare('INSERT INTO pyc.comp (v, c, a, b) VALUES (?, ?, ?, ?)')
        bound = insert.bind([0, 1, 7, 'bee'])
        s.execute(bound)
        token = s.execute("SELECT token(b, a) AS t FROM pyc.comp WHERE b = 'bee' AND a = 7").one()
        driver_token = c.metadata.token_map.token_class.from_key(bound.routing_key).value
        return {
            'routing_key_indexes': list(insert.routing_key_indexes or []),
            'routing_key': bound.routing_key.hex(),
            'server_token': token.t if token else None,
            'driver_token': driver_token,
        }
    finally:
        c.shutdown()


@scenario
def paging():
    out = {}
    for version in VERSIONS:
        # no schema metadata needed here: connecting is faster without it
        c, s = _session(version, schema_metadata_enabled=False)
        try:
            _setup(s)
            unpaged = [[r.k, r.c] for r in s.execute(SimpleStatement('SELECT k, c FROM pyc.p', fetch_size=None))]
            out[f'v{version}'] = {
                'protocol_version': c.protocol_version,
                'within': _pages(s, 'SELECT k, c FROM pyc.p WHERE k = 1', fetch_size=7),
                'within_prepared': _pages(s, 'SELECT k, c FROM pyc.p WHERE k = ?', [1], fetch_size=7, prepared=True),
                'across': _pages(s, 'SELECT k, c FROM pyc.p', fetch_size=4),
                'unpaged': unpaged,
                'reversed': _pages(s, 'SELECT k, c FROM pyc.p WHERE k = 1 ORDER BY c DESC', fetch_size=6),
                'desc_table': _pages(s, 'SELECT k, c FROM pyc.r WHERE k = 1', fetch_size=6),
                'iterated': [r.c for r in s.execute(SimpleStatement('SELECT c FROM pyc.p WHERE k = 1', fetch_size=4))],
            }
        finally:
            c.shutdown()
    return out


@scenario
def concurrent():
    """Hundreds of requests in flight on v5 (many envelopes per segment, lz4), then every row reads back."""
    from cassandra.concurrent import execute_concurrent_with_args

    out = {}
    for version in (5, 4):
        c, s = _session(version, schema_metadata_enabled=False)
        try:
            s.execute(f'CREATE KEYSPACE IF NOT EXISTS pyc WITH replication = {REPLICATION}')
            table = f'pyc.conc{version}'
            s.execute(f'CREATE TABLE IF NOT EXISTS {table} (k int, c int, v text, PRIMARY KEY (k, c))')
            ins = s.prepare(f'INSERT INTO {table} (k, c, v) VALUES (?, ?, ?)')
            results = execute_concurrent_with_args(
                s, ins, [(i % 20, i, f'v{i}') for i in range(2000)], concurrency=300, raise_on_first_error=False
            )
            failures = [str(r.result_or_exc) for r in results if not r.success]
            sel = s.prepare(f'SELECT v FROM {table} WHERE k = ? AND c = ?')
            reads = execute_concurrent_with_args(s, sel, [(i % 20, i) for i in range(0, 2000, 7)], concurrency=300)
            wrong = [i for (ok, rs), i in zip(reads, range(0, 2000, 7)) if not ok or [r.v for r in rs] != [f'v{i}']]
            count = s.execute(f'SELECT count(*) FROM {table}').one()[0]
            out[f'v{version}'] = {
                'protocol_version': c.protocol_version,
                'failures': failures[:5],
                'wrong_reads': wrong[:5],
                'count': count,
            }
        finally:
            c.shutdown()
    return out


@scenario
def tracing():
    """A traced request (what cqlsh TRACING ON does) gets a session id and its session / events can be read."""
    c, s = _session()
    try:
        rs = s.execute("SELECT release_version FROM system.local WHERE key = 'local'", trace=True)
        trace = rs.get_query_trace(max_wait_sec=5)
        return {
            'trace_id': str(trace.trace_id) if trace else None,
            'request_type': trace.request_type if trace else None,
            'coordinator': str(trace.coordinator) if trace else None,
            'has_duration': bool(trace and trace.duration is not None),
            'events': len(trace.events) if trace else 0,
        }
    finally:
        c.shutdown()


@scenario
def batch():
    c, s = _session()
    try:
        s.execute(f'CREATE KEYSPACE IF NOT EXISTS pyc WITH replication = {REPLICATION}')
        s.execute('CREATE TABLE IF NOT EXISTS pyc.b (k int, c int, v text, PRIMARY KEY (k, c))')
        ins = s.prepare('INSERT INTO pyc.b (k, c, v) VALUES (?, ?, ?)')
        b = BatchStatement()
        for i in range(5):
            b.add(ins, (1, i, f'b{i}'))
        b.add(SimpleStatement('UPDATE pyc.b SET v = %s WHERE k = %s AND c = %s'), ('upd', 1, 0))
        s.execute(b)
        rows = [[r.c, r.v] for r in s.execute('SELECT c, v FROM pyc.b WHERE k = 1')]
        return {'rows': rows}
    finally:
        c.shutdown()


class Point:
    def __init__(self, x=None, y=None, label=None):
        self.x = x
        self.y = y
        self.label = label

    def as_dict(self):
        return {'x': self.x, 'y': self.y, 'label': self.label}


@scenario
def udt():
    c, s = _session()
    try:
        s.execute(f'CREATE KEYSPACE IF NOT EXISTS pyu WITH replication = {REPLICATION}')
        s.execute('CREATE TYPE IF NOT EXISTS pyu.point (x int, y int, label text)')
        s.execute('CREATE TABLE IF NOT EXISTS pyu.shapes (k int PRIMARY KEY, p frozen<point>, ps list<frozen<point>>)')
        c.register_user_type('pyu', 'point', Point)
        ins = s.prepare('INSERT INTO pyu.shapes (k, p, ps) VALUES (?, ?, ?)')
        s.execute(ins, (1, Point(1, 2, 'a'), [Point(3, 4, 'b'), Point(5, 6, None)]))
        s.execute("INSERT INTO pyu.shapes (k, p) VALUES (2, {x: 7, y: 8, label: 'lit'})")
        rows = {r.k: r for r in s.execute('SELECT k, p, ps FROM pyu.shapes')}
        ks = c.metadata.keyspaces['pyu']
        return {
            'row1': {'p': rows[1].p.as_dict(), 'ps': [pt.as_dict() for pt in rows[1].ps]},
            'row2': {'p': rows[2].p.as_dict(), 'ps': rows[2].ps},
            'user_types': sorted(ks.user_types.keys()),
            'field_names': ks.user_types['point'].field_names if 'point' in ks.user_types else None,
            'field_types': ks.user_types['point'].field_types if 'point' in ks.user_types else None,
            'export': ks.export_as_string(),
        }
    finally:
        c.shutdown()


@scenario
def prepared_after_alter():
    out = {}
    for version in (5, 4):
        c, s = _session(version)
        try:
            s.execute(f'CREATE KEYSPACE IF NOT EXISTS pyc WITH replication = {REPLICATION}')
            table = f'pyc.grow{version}'
            s.execute(f'CREATE TABLE {table} (k int PRIMARY KEY, a int)')
            s.execute(f'INSERT INTO {table} (k, a) VALUES (1, 1)')
            sel = s.prepare(f'SELECT * FROM {table} WHERE k = ?')
            before = s.execute(sel, [1]).one()._asdict()
            s.execute(f'ALTER TABLE {table} ADD b int')
            s.execute(f'UPDATE {table} SET b = 2 WHERE k = 1')
            after = s.execute(sel, [1]).one()._asdict()
            out[f'v{version}'] = {
                'protocol_version': c.protocol_version,
                'before': before,
                'after': after,
                'result_columns': [col[2] for col in sel.result_metadata or []],
            }
        finally:
            c.shutdown()
    return out


def _error_of(fn):
    try:
        fn()
        return None
    except Exception as e:  # noqa: BLE001
        return error_info(e)


@scenario
def errors():
    c, s = _session()
    try:
        s.execute(f'CREATE KEYSPACE IF NOT EXISTS pyc WITH replication = {REPLICATION}')
        s.execute('CREATE TABLE IF NOT EXISTS pyc.e (k int, c int, v int, PRIMARY KEY (k, c))')
        out = {
            'unknown_table': _error_of(lambda: s.execute('SELECT * FROM pyc.nope')),
            'syntax': _error_of(lambda: s.execute('SELEC * FROM pyc.e')),
            'filtering': _error_of(lambda: s.execute('SELECT * FROM pyc.e WHERE v = 1')),
            'prepare_unknown_column': _error_of(lambda: s.prepare('SELECT nope FROM pyc.e')),
            'use_unknown_keyspace': _error_of(lambda: s.execute('USE pyc_nope')),
            'missing_clustering_key': _error_of(lambda: s.execute('INSERT INTO pyc.e (k, v) VALUES (1, 1)')),
        }
        try:
            s.execute('CREATE TABLE pyc.e (k int PRIMARY KEY)')
            out['already_exists'] = None
        except AlreadyExists as e:
            out['already_exists'] = {**error_info(e), 'keyspace': e.keyspace, 'table': e.table}
        except Exception as e:  # noqa: BLE001
            out['already_exists'] = error_info(e)
        out['classes'] = {
            'invalid': InvalidRequest.error_code if hasattr(InvalidRequest, 'error_code') else None,
            'syntax': SyntaxException.error_code,
        }
        return out
    finally:
        c.shutdown()


if __name__ == '__main__':
    run()
