"""The CQL statements of issue 4 through the Python driver: literal forms and comments, named bind markers,
keyspace DDL (NetworkTopologyStrategy, durable_writes, ALTER KEYSPACE, schema_version), table DDL (WITH ID,
ALTER TABLE DROP / WITH / RENAME, DROP TABLE, TRUNCATE), DML with unset and null binds and clustering-range
deletes, SELECT restrictions (IN, slices, multi-column tuples, token ranges, LIMIT, PER PARTITION LIMIT),
native functions and CAST, batches and their timestamps, prepared ids and v5 result metadata ids, consistency
levels and Unavailable, and bound values the server must refuse. Each scenario returns plain data (values,
error type, code and message) for test/python-cql-statements.test.ts.

Usage: cql_statements.py host port [scenario ...]; prints one JSON object {scenario: result}. The scenarios
share one keyspace (made by the first session) but no tables, so any one of them can run alone.
"""
import datetime
import hashlib
import math
import struct
import time
import uuid

from cassandra import ConsistencyLevel
from cassandra.metadata import Murmur3Token
from cassandra.policies import FallthroughRetryPolicy
from cassandra.protocol import ResultMessage
from cassandra.query import UNSET_VALUE, BatchStatement, BatchType, SimpleStatement
from common import cluster, error_info, run, scenario

KS = 'pys'
REPLICATION = "{'class': 'SimpleStrategy', 'replication_factor': 1}"

_state = {}


def _session():
    """One connection for the whole run, in keyspace KS."""
    if 'session' not in _state:
        c = cluster()
        s = c.connect()
        for ks in (KS, 'pys_nts', 'pys_rf3'):
            s.execute(f'DROP KEYSPACE IF EXISTS {ks}')
        s.execute(f'CREATE KEYSPACE {KS} WITH replication = {REPLICATION}')
        s.set_keyspace(KS)
        _state['cluster'], _state['session'] = c, s
    return _state['session']


def _err(query, params=None, **kwargs):
    """The error a statement fails with, as {type, code, message}; None when it unexpectedly succeeds."""
    try:
        _session().execute(query, params, **kwargs)
    except Exception as e:  # noqa: BLE001 - the error is the result
        return error_info(e)
    return None


def _rows(query, params=None, **kwargs):
    return [[_plain(v) for v in r] for r in _session().execute(query, params, **kwargs)]


def _plain(v):
    """Driver values as JSON-able data: blobs as hex, dates and timestamps as ISO text, NaN/Infinity as text."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return repr(v) if math.isnan(v) or math.isinf(v) else v
    if isinstance(v, (bytes, bytearray)):
        return '0x' + bytes(v).hex()
    if isinstance(v, datetime.datetime):
        return v.isoformat()
    if isinstance(v, uuid.UUID):
        return str(v)
    if hasattr(v, '_asdict'):
        return {k: _plain(x) for k, x in v._asdict().items()}
    if hasattr(v, 'items'):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, set, frozenset)):
        return [_plain(x) for x in v]
    return str(v)


def _schema_version():
    return str(_session().execute('SELECT schema_version FROM system.local').one().schema_version)


@scenario
def literals():
    s = _session()
    s.execute('CREATE TABLE lit (k int PRIMARY KEY, t text, b blob, d double, f float)')
    s.execute("INSERT INTO lit (k, t, b, d, f) VALUES (1, 'it''s ''quoted''', 0xCAFEbabe, NaN, Infinity)")
    s.execute("INSERT INTO lit (k, t, b, d, f) VALUES (2, $$it's a $ \"dollar\"\nstring$$, 0x, -Infinity, -NaN)")
    s.execute("INSERT INTO lit (k, t, b, d, f) VALUES (3, '', 0X00ff, 1e3, -2.5E-1)")
    s.execute(
        "INSERT INTO lit (k, t) -- the key and a text\n"
        "  VALUES (4, /* inline\n block */ 'commented') // end of line\n"
    )
    rows = {
        r.k: [_plain(r.t), _plain(r.b), _plain(r.d), _plain(r.f)]
        for r in s.execute('SELECT k, t, b, d, f FROM lit')
    }
    commented = _rows(
        'SELECT t -- line comment\n'
        '  FROM lit // slash comment\n'
        '  WHERE /* block\n  comment */ k = 4; -- trailing\n'
    )
    ins = s.prepare('INSERT INTO lit (k, t, d) VALUES (:key, :txt, :dbl)')
    s.execute(ins, {'dbl': 2.5, 'txt': 'named', 'key': 5})
    sel = s.prepare('SELECT t, d FROM lit WHERE k = :key')
    in_list = s.prepare('SELECT k FROM lit WHERE k IN :keys LIMIT :lim')
    return {
        'rows': rows,
        'commented': commented,
        'named_insert_params': [c.name for c in ins.column_metadata],
        'named_select': [_plain(v) for v in s.execute(sel, {'key': 5}).one()],
        'named_in_params': [c.name for c in in_list.column_metadata],
        'named_in': sorted(r.k for r in s.execute(in_list, {'keys': [5, 1, 9], 'lim': 10})),
        'named_in_limited': len(list(s.execute(in_list, {'keys': [5, 1, 2], 'lim': 2}))),
    }


@scenario
def keyspaces():
    s = _session()
    dc = s.execute('SELECT data_center FROM system.local').one().data_center
    versions = [_schema_version()]
    s.execute(
        f"CREATE KEYSPACE pys_nts WITH replication = {{'class': 'NetworkTopologyStrategy', '{dc}': 1}} "
        'AND durable_writes = false'
    )
    versions.append(_schema_version())

    def ks_row():
        r = s.execute(
            "SELECT replication, durable_writes FROM system_schema.keyspaces WHERE keyspace_name = 'pys_nts'"
        ).one()
        return {'replication': _plain(r.replication), 'durable_writes': r.durable_writes}

    created = ks_row()
    s.execute('CREATE TABLE pys_nts.t (k int PRIMARY KEY, v int)')
    versions.append(_schema_version())
    s.execute(
        SimpleStatement('INSERT INTO pys_nts.t (k, v) VALUES (1, 1)', consistency_level=ConsistencyLevel.LOCAL_QUORUM)
    )
    read = s.execute(
        SimpleStatement('SELECT v FROM pys_nts.t WHERE k = 1', consistency_level=ConsistencyLevel.LOCAL_QUORUM)
    ).one().v
    s.execute(f"ALTER KEYSPACE pys_nts WITH replication = {{'class': 'NetworkTopologyStrategy', '{dc}': 2}}")
    versions.append(_schema_version())
    altered_rf = ks_row()
    s.execute(f'ALTER KEYSPACE pys_nts WITH replication = {REPLICATION} AND durable_writes = true')
    versions.append(_schema_version())
    altered = ks_row()
    s.execute('ALTER KEYSPACE IF EXISTS pys_nope WITH durable_writes = true')
    versions.append(_schema_version())
    s.execute('DROP KEYSPACE pys_nts')
    versions.append(_schema_version())
    return {
        'data_center': dc,
        'created': created,
        'read': read,
        'altered_rf': altered_rf,
        'altered': altered,
        'versions': versions,
        'errors': {
            'alter_unknown': _err('ALTER KEYSPACE pys_nope WITH durable_writes = true'),
            'drop_unknown': _err('DROP KEYSPACE pys_nope'),
        },
    }


@scenario
def tables():
    s = _session()
    table_id = uuid.UUID('5a1c395e-b41f-11e5-9f22-ba0be0483c18')
    s.execute(f'CREATE TABLE withid (k int PRIMARY KEY, v int) WITH ID = {table_id}')
    stored_id = s.execute(
        "SELECT id FROM system_schema.tables WHERE keyspace_name = 'pys' AND table_name = 'withid'"
    ).one().id

    s.execute('CREATE TABLE alt (k int, c int, v int, w text, PRIMARY KEY (k, c))')
    for c in range(3):
        s.execute('INSERT INTO alt (k, c, v, w) VALUES (1, %s, %s, %s)', (c, c * 10, f'w{c}'))
    s.execute('ALTER TABLE alt DROP w')
    after_drop = list(s.execute('SELECT * FROM alt WHERE k = 1').column_names)
    dropped = [
        [r.column_name, r.type, r.kind]
        for r in s.execute(
            "SELECT * FROM system_schema.dropped_columns WHERE keyspace_name = 'pys' AND table_name = 'alt'"
        )
    ]
    s.execute("ALTER TABLE alt WITH comment = 'altered' AND gc_grace_seconds = 3600 AND default_time_to_live = 50")
    opts = s.execute(
        'SELECT comment, gc_grace_seconds, default_time_to_live FROM system_schema.tables '
        "WHERE keyspace_name = 'pys' AND table_name = 'alt'"
    ).one()
    s.execute('ALTER TABLE alt RENAME c TO c2')
    renamed_columns = {
        r.column_name: [r.kind, r.position]
        for r in s.execute("SELECT * FROM system_schema.columns WHERE keyspace_name = 'pys' AND table_name = 'alt'")
    }
    renamed_rows = _rows('SELECT c2, v FROM alt WHERE k = 1 AND c2 >= 1')

    s.execute('CREATE TABLE tr (k int, c int, v int, PRIMARY KEY (k, c))')
    for k in range(3):
        for c in range(3):
            s.execute('INSERT INTO tr (k, c, v) VALUES (%s, %s, 0)', (k, c))
    before_truncate = s.execute('SELECT count(*) FROM tr').one()[0]
    s.execute('TRUNCATE tr')
    after_truncate = _rows('SELECT * FROM tr')
    s.execute('INSERT INTO tr (k, c, v) VALUES (9, 9, 9)')
    s.execute('TRUNCATE TABLE pys.tr')
    after_truncate_table = _rows('SELECT * FROM tr')

    s.execute('CREATE TABLE gone (k int PRIMARY KEY)')
    s.execute('DROP TABLE gone')
    gone_in_schema = _rows(
        "SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'pys' AND table_name = 'gone'"
    )
    s.execute('DROP TABLE IF EXISTS gone')
    return {
        'id': str(stored_id),
        'expected_id': str(table_id),
        'after_drop': after_drop,
        'dropped': dropped,
        'options': [opts.comment, opts.gc_grace_seconds, opts.default_time_to_live],
        'renamed_columns': renamed_columns,
        'renamed_rows': renamed_rows,
        'truncate': [before_truncate, after_truncate, after_truncate_table],
        'gone_in_schema': gone_in_schema,
        'errors': {
            'select_dropped_table': _err('SELECT * FROM gone'),
            'drop_unknown_table': _err('DROP TABLE gone'),
            'drop_pk_column': _err('ALTER TABLE alt DROP k'),
            'drop_unknown_column': _err('ALTER TABLE alt DROP nope'),
            'rename_regular_column': _err('ALTER TABLE alt RENAME v TO v2'),
            'rename_onto_existing': _err('ALTER TABLE alt RENAME c2 TO v'),
        },
    }


@scenario
def dml():
    s = _session()
    s.execute('CREATE TABLE dm (k int, c int, a int, b text, PRIMARY KEY (k, c))')
    s.execute("INSERT INTO dm (k, c, a, b) VALUES (1, 1, 10, 'x') USING TIMESTAMP 1000")
    upd = s.prepare('UPDATE dm USING TIMESTAMP ? SET a = ?, b = ? WHERE k = ? AND c = ?')
    ins = s.prepare('INSERT INTO dm (k, c, a, b) VALUES (?, ?, ?, ?)')
    sel = 'SELECT a, b, writetime(a), writetime(b) FROM dm WHERE k = %s AND c = %s'

    s.execute(upd, (2000, UNSET_VALUE, 'y', 1, 1))
    unset_update = _rows(sel, (1, 1))[0]
    s.execute(ins, (1, 2, 20, UNSET_VALUE))
    unset_insert = _rows(sel, (1, 2))[0]
    s.execute(upd, (3000, None, 'z', 1, 1))
    null_update = _rows(sel, (1, 1))[0]
    s.execute(ins, (1, 2, 21, 'b'))
    s.execute(ins, (1, 2, None, 'c'))
    null_insert = _rows(sel, (1, 2))[0]

    for c in range(7):
        s.execute(ins, (2, c, c, None))
    rng = s.prepare('DELETE FROM dm WHERE k = ? AND c >= ? AND c < ?')
    s.execute(rng, (2, 2, 5))
    after_range = [r.c for r in s.execute('SELECT c FROM dm WHERE k = 2')]
    s.execute('DELETE FROM dm WHERE k = 2 AND c > 5')
    after_open_range = [r.c for r in s.execute('SELECT c FROM dm WHERE k = 2')]
    s.execute('DELETE a FROM dm WHERE k = 2 AND c = 0')
    after_column_delete = _rows('SELECT c, a FROM dm WHERE k = 2')

    # (the driver itself refuses an unset partition key: it is part of the routing key)
    key_upd = s.prepare('UPDATE dm SET a = 0 WHERE k = ? AND c = ?')
    errors = {}
    cases = (('null_key', (None, 1)), ('unset_clustering', (1, UNSET_VALUE)), ('null_clustering', (1, None)))
    for name, values in cases:
        try:
            s.execute(key_upd, values)
            errors[name] = None
        except Exception as e:  # noqa: BLE001
            errors[name] = error_info(e)
    return {
        'unset_update': unset_update,
        'unset_insert': unset_insert,
        'null_update': null_update,
        'null_insert': null_insert,
        'after_range': after_range,
        'after_open_range': after_open_range,
        'after_column_delete': after_column_delete,
        'errors': errors,
    }


@scenario
def select():
    s = _session()
    s.execute('CREATE TABLE sel (k int, a int, b int, v text, PRIMARY KEY (k, a, b))')
    ins = s.prepare('INSERT INTO sel (k, a, b, v) VALUES (?, ?, ?, ?)')
    for k in range(1, 5):
        for a in range(3):
            for b in range(3):
                s.execute(ins, (k, a, b, f'{k}-{a}-{b}'))

    def ab(query, params=None):
        return [[r.a, r.b] for r in s.execute(query, params)]

    pk_in = sorted([r.k, r.v] for r in s.execute('SELECT k, v FROM sel WHERE k IN (3, 1) AND a = 0 AND b = 0'))
    pk_in_bound = s.prepare('SELECT k, a, b FROM sel WHERE k IN ? AND a = 2 AND b = 2')
    pk_in_prepared = sorted([r.k, r.a, r.b] for r in s.execute(pk_in_bound, ([4, 2],)))
    out = {
        'pk_in': pk_in,
        'pk_in_prepared': pk_in_prepared,
        'ck_in': ab('SELECT a, b FROM sel WHERE k = 1 AND a IN (2, 0) AND b = 1'),
        'ck_in_both': ab('SELECT a, b FROM sel WHERE k = 1 AND a IN (2, 0) AND b IN (1, 0)'),
        'ck_slice': ab('SELECT a, b FROM sel WHERE k = 1 AND a > 0 AND a <= 1'),
        'ck_prefix_slice': ab('SELECT a, b FROM sel WHERE k = 1 AND a = 1 AND b >= 1'),
        'ck_slice_desc': ab('SELECT a, b FROM sel WHERE k = 1 AND a >= 1 ORDER BY a DESC, b DESC LIMIT 4'),
        'tuple_gt': ab('SELECT a, b FROM sel WHERE k = 1 AND (a, b) > (1, 1)'),
        'tuple_range': ab('SELECT a, b FROM sel WHERE k = 1 AND (a, b) > (0, 1) AND (a, b) < (2, 1)'),
        'tuple_mixed': ab('SELECT a, b FROM sel WHERE k = 1 AND (a, b) >= (1, 1) AND (a) < (2)'),
        'tuple_eq': ab('SELECT a, b FROM sel WHERE k = 1 AND (a, b) = (1, 2)'),
        'tuple_in': ab('SELECT a, b FROM sel WHERE k = 1 AND (a, b) IN ((2, 2), (0, 1))'),
        'tuple_prepared': ab(s.prepare('SELECT a, b FROM sel WHERE k = ? AND (a, b) <= (?, ?)'), (1, 0, 2)),
        'tuple_desc': ab('SELECT a, b FROM sel WHERE k = 1 AND (a, b) < (1, 1) ORDER BY a DESC, b DESC'),
        'limit': ab('SELECT a, b FROM sel WHERE k = 2 LIMIT 4'),
        'limit_prepared': ab(s.prepare('SELECT a, b FROM sel WHERE k = ? LIMIT ?'), (2, 2)),
    }
    per_partition = {}
    for r in s.execute('SELECT k, a, b FROM sel PER PARTITION LIMIT 2'):
        per_partition.setdefault(str(r.k), []).append([r.a, r.b])
    out['per_partition'] = per_partition
    both = [[r.k, r.a, r.b] for r in s.execute('SELECT k, a, b FROM sel PER PARTITION LIMIT 1 LIMIT 3')]
    out['per_partition_and_limit'] = both
    bound = s.prepare('SELECT k, a, b FROM sel WHERE k IN (1, 2) PER PARTITION LIMIT ?')
    out['per_partition_prepared'] = sorted([r.k, r.a, r.b] for r in s.execute(bound, (1,)))

    s.execute('CREATE TABLE tk (k int PRIMARY KEY, v int)')
    for k in range(1, 11):
        s.execute('INSERT INTO tk (k, v) VALUES (%s, %s)', (k, k))
    token = {k: Murmur3Token.hash_fn(struct.pack('>i', k)) for k in range(1, 11)}
    by_token = sorted(token, key=lambda k: token[k])
    lo, hi = token[by_token[2]], token[by_token[7]]
    token_bound = s.prepare('SELECT k FROM tk WHERE token(k) > ? AND token(k) <= ?')
    out['token'] = {
        'expected_scan': [[k, token[k]] for k in by_token],
        'scan': [[r.k, r[1]] for r in s.execute('SELECT k, token(k) FROM tk')],
        'expected_range': by_token[3:8],
        'range': [r.k for r in s.execute('SELECT k FROM tk WHERE token(k) > %s AND token(k) <= %s', (lo, hi))],
        'range_prepared': [r.k for r in s.execute(token_bound, (lo, hi))],
        'expected_after': [k for k in by_token if token[k] > token[by_token[5]]],
        'after': [r.k for r in s.execute(f'SELECT k FROM tk WHERE token(k) > token({by_token[5]})')],
    }
    return out


@scenario
def functions():
    s = _session()
    s.execute(
        'CREATE TABLE fn (k int PRIMARY KEY, ts timestamp, d date, tu timeuuid, u uuid, i int, big bigint, '
        'dbl double, t text, b blob)'
    )
    s.execute(
        "INSERT INTO fn (k, ts, d, tu, u, i, big, dbl, t, b) VALUES (1, '2013-02-02 10:00:00+0000', '2013-02-02', "
        "now(), uuid(), 3, 7, 2.75, 'hi', textAsBlob('hey'))"
    )
    s.execute('INSERT INTO fn (k, i, b) VALUES (2, blobAsInt(0x0000002a), intAsBlob(-2))')
    before = time.time()
    row = s.execute('SELECT tu, u, toTimestamp(tu) AS tu_ts, toUnixTimestamp(tu) AS tu_ms FROM fn WHERE k = 1').one()
    generated = {
        'tu_version': row.tu.version,
        'u_version': row.u.version,
        # milliseconds between the timeuuid's time and this client's clock
        'tu_age_ms': abs(before * 1000 - (row.tu.time - 0x01B21DD213814000) / 10000),
        'tu_ts_matches': int(row.tu_ts.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000) == row.tu_ms,
    }
    now_row = s.execute('SELECT now() AS a, now() AS b FROM fn WHERE k = 1').one()
    generated['now_versions'] = [now_row.a.version, now_row.b.version]
    dates = s.execute(
        'SELECT toDate(ts) AS d1, toUnixTimestamp(ts) AS ms, toTimestamp(d) AS dts, toUnixTimestamp(d) AS dms, '
        'toDate(tu) AS tud, minTimeuuid(ts) AS mn, maxTimeuuid(ts) AS mx, '
        'toTimestamp(toDate(ts)) AS nested FROM fn WHERE k = 1'
    ).one()
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    s.execute('CREATE TABLE tl (k int, tu timeuuid, PRIMARY KEY (k, tu))')
    s.execute('INSERT INTO tl (k, tu) VALUES (1, now())')
    s.execute('INSERT INTO tl (k, tu) VALUES (1, now())')
    s.execute("INSERT INTO tl (k, tu) VALUES (1, minTimeuuid('2013-02-02 10:00:00+0000'))")
    recent = s.execute(
        "SELECT count(*) FROM tl WHERE k = 1 AND tu > maxTimeuuid('2013-02-02 10:00:00+0000') "
        "AND tu < minTimeuuid('2099-01-01 00:00:00+0000')"
    ).one()[0]
    old = _rows("SELECT tu FROM tl WHERE k = 1 AND tu <= maxTimeuuid('2013-02-02 10:00:00+0000')")
    blobs = s.execute(
        'SELECT intAsBlob(i) AS ib, bigintAsBlob(big) AS bb, textAsBlob(t) AS tb, varcharAsBlob(t) AS vb, '
        'doubleAsBlob(dbl) AS db, blobAsText(b) AS bt, blobAsBigint(bigintAsBlob(big)) AS round, '
        'timestampAsBlob(ts) AS tsb FROM fn WHERE k = 1'
    ).one()
    second = s.execute('SELECT i, b, blobAsInt(b) AS bi FROM fn WHERE k = 2').one()
    casts = s.execute(
        'SELECT CAST(i AS text), CAST(i AS double), CAST(dbl AS int), CAST(dbl AS text), CAST(big AS varint), '
        'CAST(ts AS date), CAST(i AS bigint) FROM fn WHERE k = 1'
    )
    cast_row = casts.one()
    over_aggregates = s.execute(
        'SELECT max(i) + 1 AS a, sum(i) / count(*) AS b, -min(i) AS c, CAST(max(i) AS text) AS d FROM fn'
    ).one()
    return {
        'errors': {
            'blob_wrong_size': _err('SELECT blobAsBigint(intAsBlob(i)) FROM fn WHERE k = 1'),
            'nested_aggregate': _err('SELECT max(max(i)) FROM fn'),
        },
        'over_aggregates': [_plain(v) for v in over_aggregates],
        'generated': generated,
        'dates': {k: _plain(v) for k, v in dates._asdict().items()},
        'tud_is_today': _plain(dates.tud) == today,
        'recent': recent,
        'old': old,
        'blobs': {k: _plain(v) for k, v in blobs._asdict().items()},
        'second': [_plain(v) for v in second],
        'cast_columns': list(casts.column_names),
        'casts': [_plain(v) for v in cast_row],
        'cast_types': [type(v).__name__ for v in cast_row],
    }


@scenario
def batches():
    s = _session()
    s.execute('CREATE TABLE bt (k int, c int, v text, PRIMARY KEY (k, c))')
    s.execute(
        'BEGIN UNLOGGED BATCH USING TIMESTAMP 1000 '
        "INSERT INTO bt (k, c, v) VALUES (1, 1, 'a'); "
        "INSERT INTO bt (k, c, v) VALUES (2, 1, 'b') "
        'APPLY BATCH'
    )
    s.execute(
        'BEGIN BATCH '
        "INSERT INTO bt (k, c, v) VALUES (1, 2, 'c') USING TIMESTAMP 2000 "
        "UPDATE bt USING TIMESTAMP 3000 SET v = 'd' WHERE k = 1 AND c = 3 "
        'APPLY BATCH'
    )
    # an older write loses against the batch's timestamp
    s.execute("INSERT INTO bt (k, c, v) VALUES (1, 1, 'old') USING TIMESTAMP 500")

    ins = s.prepare('INSERT INTO bt (k, c, v) VALUES (?, ?, ?)')
    ins_ts = s.prepare('INSERT INTO bt (k, c, v) VALUES (?, ?, ?) USING TIMESTAMP ?')
    b = BatchStatement(batch_type=BatchType.UNLOGGED)
    b.add(ins, (3, 1, 'e'))
    b.add(ins_ts, (3, 2, 'f', 4000))
    b.add(SimpleStatement("UPDATE bt USING TIMESTAMP 5000 SET v = 'g' WHERE k = 4 AND c = 1"))
    before_us = int(time.time() * 1_000_000)
    s.execute(b)
    s.execute('BEGIN BATCH USING TIMESTAMP 6000 DELETE FROM bt WHERE k = 2 AND c = 1; APPLY BATCH')

    rows = {}
    for r in s.execute('SELECT k, c, v, writetime(v) AS wt FROM bt'):
        rows[f'{r.k}/{r.c}'] = [r.v, r.wt]
    client_ts = rows.get('3/1', [None, 0])[1]
    rows['3/1'] = [rows.get('3/1', [None])[0], 'client']
    return {
        'rows': rows,
        'client_timestamp_ok': before_us - 60_000_000 <= client_ts <= before_us + 60_000_000,
        'errors': {
            'both_timestamps': _err(
                'BEGIN BATCH USING TIMESTAMP 10 '
                "INSERT INTO bt (k, c, v) VALUES (9, 1, 'x') USING TIMESTAMP 5; "
                "INSERT INTO bt (k, c, v) VALUES (9, 2, 'y') "
                'APPLY BATCH'
            ),
        },
    }


@scenario
def prepared_ids():
    s = _session()
    s.execute('CREATE TABLE grow (k int PRIMARY KEY, a int)')
    s.execute('INSERT INTO grow (k, a) VALUES (1, 1)')
    c5 = cluster(protocol_version=5)
    seen = []
    original = ResultMessage.recv_results_metadata

    def recording(self, f, user_type_map):
        original(self, f, user_type_map)
        seen.append(getattr(self, 'result_metadata_id', None))  # absent without METADATA_CHANGED

    try:
        ks_session = c5.connect(KS)
        bare_session = c5.connect()
        query = 'SELECT * FROM grow WHERE k = ?'
        qualified = f'SELECT * FROM {KS}.grow WHERE k = ?'
        p = ks_session.prepare(query)
        q = bare_session.prepare(qualified)
        flagged = bare_session.prepare(query, keyspace=KS)
        ids = {
            'in_keyspace': p.query_id.hex(),
            'md5_keyspace_query': hashlib.md5((KS + query).encode()).hexdigest(),
            'qualified': q.query_id.hex(),
            'md5_query': hashlib.md5(qualified.encode()).hexdigest(),
            'keyspace_flag': flagged.query_id.hex(),
        }
        before_id = p.result_metadata_id
        before = ks_session.execute(p, [1]).one()._asdict()
        ks_session.execute('ALTER TABLE grow ADD extra text')
        ks_session.execute("UPDATE grow SET extra = 'new' WHERE k = 1")
        ResultMessage.recv_results_metadata = recording
        try:
            rs = ks_session.execute(p, [1])
            after = rs.one()._asdict()
            after_columns = list(rs.column_names)
            again = ks_session.execute(p, [1]).one()._asdict()
        finally:
            ResultMessage.recv_results_metadata = original
        reprepared = ks_session.prepare(query)
        new_id = reprepared.result_metadata_id
        return {
            'protocol_version': c5.protocol_version,
            'ids': ids,
            'metadata_id_length': len(before_id or b''),
            'metadata_id_changed': new_id is not None and new_id != before_id,
            'same_query_id': reprepared.query_id == p.query_id,
            # METADATA_CHANGED carries the new id in the ROWS response; a re-prepare (after UNPREPARED) puts it into p
            'new_id_reached_driver': new_id in seen or p.result_metadata_id == new_id,
            'metadata_changed_in_rows': new_id in seen,
            'before': before,
            'after': after,
            'after_columns': after_columns,
            'again': again,
        }
    finally:
        c5.shutdown()


def _cl_outcome(query, cl, params=None):
    st = SimpleStatement(query, consistency_level=cl, retry_policy=FallthroughRetryPolicy())
    try:
        rs = _session().execute(st, params)
        return {'ok': True, 'rows': [list(r) for r in rs]} if rs.column_names else {'ok': True}
    except Exception as e:  # noqa: BLE001
        info = error_info(e)
        for attr in ('consistency', 'required_replicas', 'alive_replicas'):
            if hasattr(e, attr):
                v = getattr(e, attr)
                info[attr] = ConsistencyLevel.value_to_name.get(v, v) if attr == 'consistency' else v
        return info


@scenario
def consistency():
    s = _session()
    s.execute('CREATE TABLE cl (k int PRIMARY KEY, v int)')
    levels = ['ONE', 'QUORUM', 'ALL', 'LOCAL_QUORUM', 'LOCAL_ONE', 'TWO']
    rf1 = {}
    for name in levels:
        cl = getattr(ConsistencyLevel, name)
        rf1[name] = {
            'write': _cl_outcome('INSERT INTO cl (k, v) VALUES (1, %s)', cl, (levels.index(name),)),
            'read': _cl_outcome('SELECT v FROM cl WHERE k = 1', cl),
        }
    rf1['ANY'] = {
        'write': _cl_outcome('INSERT INTO cl (k, v) VALUES (2, 2)', ConsistencyLevel.ANY),
        'read': _cl_outcome('SELECT v FROM cl WHERE k = 1', ConsistencyLevel.ANY),
    }
    s.execute("CREATE KEYSPACE pys_rf3 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}")
    s.execute('CREATE TABLE pys_rf3.t (k int PRIMARY KEY, v int)')
    rf3 = {}
    for name in ['ONE', 'QUORUM', 'ALL', 'LOCAL_QUORUM', 'LOCAL_ONE']:
        cl = getattr(ConsistencyLevel, name)
        rf3[name] = {
            'write': _cl_outcome('INSERT INTO pys_rf3.t (k, v) VALUES (1, 1)', cl),
            'read': _cl_outcome('SELECT v FROM pys_rf3.t WHERE k = 1', cl),
        }
    # the default retry policy retries Unavailable on the next host; with one host the driver gives up
    try:
        s.execute(SimpleStatement('SELECT v FROM pys_rf3.t WHERE k = 1', consistency_level=ConsistencyLevel.QUORUM))
        default_policy = None
    except Exception as e:  # noqa: BLE001
        inner = [type(x).__name__ for x in getattr(e, 'errors', {}).values()]
        default_policy = {'type': type(e).__name__, 'inner': inner}
    return {'rf1': rf1, 'rf3': rf3, 'default_policy': default_policy}


@scenario
def bad_values():
    s = _session()
    s.execute('CREATE TABLE bv (k int PRIMARY KEY, i int, big bigint, u uuid, t text, ts timestamp)')

    def with_raw(query, values, position, raw):
        """Binds through the driver, then replaces one serialized value with raw bytes (as a buggy codec would)."""
        bound = s.prepare(query).bind(values)
        bound.values[position] = raw
        try:
            s.execute(bound)
        except Exception as e:  # noqa: BLE001
            return error_info(e)
        return None

    ins = 'INSERT INTO bv (k, {0}) VALUES (?, ?)'
    errors = {
        'int_3_bytes': with_raw(ins.format('i'), (1, 1), 1, b'\x00\x00\x01'),
        'bigint_4_bytes': with_raw(ins.format('big'), (1, 1), 1, b'\x00\x00\x00\x01'),
        'uuid_3_bytes': with_raw(ins.format('u'), (1, uuid.uuid4()), 1, b'\x01\x02\x03'),
        'text_bad_utf8': with_raw(ins.format('t'), (1, 'x'), 1, b'\xff\xfe'),
        'timestamp_4_bytes': with_raw(ins.format('ts'), (1, datetime.datetime(2020, 1, 1)), 1, b'\x00\x00\x00\x01'),
        'key_2_bytes': with_raw('SELECT i FROM bv WHERE k = ?', (1,), 0, b'\x00\x01'),
        # the driver interpolates simple-statement parameters into the query text: wrong literals reach the server
        'string_for_int': _err('INSERT INTO bv (k, i) VALUES (%s, %s)', (1, 'abc')),
        'float_for_int': _err('INSERT INTO bv (k, i) VALUES (%s, %s)', (1, 1.5)),
        'int_overflow': _err('INSERT INTO bv (k, i) VALUES (%s, %s)', (1, 2147483648)),
        'string_for_uuid': _err('INSERT INTO bv (k, u) VALUES (%s, %s)', (1, 'abc')),
        'int_for_text': _err('INSERT INTO bv (k, t) VALUES (%s, %s)', (1, 5)),
    }
    # an empty value is valid for int (Cassandra's "empty" int) and reads back as None in the driver
    empty = with_raw(ins.format('i'), (2, 1), 1, b'')
    return {
        'errors': errors,
        'empty_int': [empty, _rows('SELECT i FROM bv WHERE k = 2')],
        'nothing_written': _rows('SELECT k FROM bv WHERE k = 1'),
    }


if __name__ == '__main__':
    try:
        run()
    finally:
        if 'cluster' in _state:
            _state['cluster'].shutdown()
