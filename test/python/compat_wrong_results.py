"""Results Apache Cassandra 5.0 gives where pmemcql used to answer differently, read through the Python driver
(unpaged, or page by page with fetch_size): GROUP BY paging and PER PARTITION LIMIT, partition-key IN order, list prepend,
a failed condition on a static column, USING TIMESTAMP -2^63+1, a view row under the empty key and the view
build status, and the paging of an index query. Each scenario returns plain data for
test/python-compat-wrong-results.test.ts.

Usage: compat_wrong_results.py host port [scenario ...]; prints one JSON object {scenario: result}. The
scenarios share one keyspace (made by the first session) but no tables, so any one of them can run alone.
"""
from cassandra.query import SimpleStatement
from common import cluster, run, scenario

KS = 'pyr'
REPLICATION = "{'class': 'SimpleStrategy', 'replication_factor': 1}"

_state = {}


def _session():
    """One connection for the whole run, in keyspace KS."""
    if 'session' not in _state:
        c = cluster()
        s = c.connect()
        s.execute(f'DROP KEYSPACE IF EXISTS {KS}')
        s.execute(f'CREATE KEYSPACE {KS} WITH replication = {REPLICATION}')
        s.set_keyspace(KS)
        _state['cluster'], _state['session'] = c, s
    return _state['session']


def _x(query, params=None):
    return _session().execute(query, params)


def _rows(query, params=None, fetch_size=None):
    """All rows, unpaged unless `fetch_size` is given."""
    return [list(r) for r in _session().execute(SimpleStatement(query, fetch_size=fetch_size), params)]


def _pages(query, fetch_size):
    """The rows of each page, passing each paging state on until none comes back."""
    out = []
    state = None
    while True:
        rs = _session().execute(SimpleStatement(query, fetch_size=fetch_size), paging_state=state)
        out.append([list(r) for r in rs.current_rows])
        state = rs.paging_state
        if state is None or len(out) > 20:
            return out


@scenario
def group_by():
    _x('CREATE TABLE g1 (a int, b int, c int, v int, PRIMARY KEY (a, b, c))')
    for a, b, c, v in ((1, 1, 1, 10), (1, 1, 2, 20), (1, 2, 1, 30)):
        _x('INSERT INTO g1 (a, b, c, v) VALUES (%s, %s, %s, %s)', (a, b, c, v))
    _x('CREATE TABLE g2 (p int, c1 int, c2 int, v int, PRIMARY KEY (p, c1, c2))')
    for c1, c2, v in ((0, 0, 1), (0, 1, 2), (1, 0, 3), (1, 1, 4)):
        _x('INSERT INTO g2 (p, c1, c2, v) VALUES (0, %s, %s, %s)', (c1, c2, v))
    _x('CREATE TABLE g3 (a int, b int, c int, PRIMARY KEY (a, b))')
    for a, b in ((1, 1), (1, 3), (2, 2)):
        _x('INSERT INTO g3 (a, b, c) VALUES (%s, %s, 1)', (a, b))
    return {
        'per_partition': _rows('SELECT a, b, count(*), max(v) FROM g1 GROUP BY a, b PER PARTITION LIMIT 1'),
        'per_partition_rows': _rows('SELECT a, b, c FROM g1 WHERE a = 1 GROUP BY a, b PER PARTITION LIMIT 2'),
        'paged': _pages('SELECT p, c1, c2, v FROM g2 GROUP BY p, c1', 1),
        'paged_limit': _pages('SELECT p, c1, c2, v FROM g2 GROUP BY p, c1 LIMIT 2', 1),
        'in_order_by': _rows('SELECT a, b, count(*) FROM g3 WHERE a IN (1, 2) GROUP BY a, b ORDER BY b DESC'),
    }


@scenario
def in_key_order():
    _x('CREATE TABLE k (a int, b int, s int static, PRIMARY KEY (a, b))')
    for a in (1, 2, 3, 4):
        _x('INSERT INTO k (a, b) VALUES (%s, 1)', (a,))
    _x('UPDATE k SET s = 5 WHERE a = 5')
    _x('CREATE TABLE d (k1 int, k2 int, v int, PRIMARY KEY (k1, k2))')
    _x('INSERT INTO d (k1, k2, v) VALUES (1, 1, 1)')
    return {
        'scan': _rows('SELECT a FROM k'),
        'in': _rows('SELECT a FROM k WHERE a IN (4, 3, 2, 1)'),
        'in_static': _rows('SELECT a, b, s FROM k WHERE a IN (1, 2, 3, 4, 5)'),
        'duplicates': _rows('SELECT * FROM d WHERE k1 IN (1, 1) AND k2 IN (1, 1)'),
    }


@scenario
def prepend_and_static_condition():
    _x('CREATE TABLE l (k int PRIMARY KEY, l list<text>)')
    _x("INSERT INTO l (k, l) VALUES (0, ['a'])")
    _x("UPDATE l SET l = ['m', 'n'] + l WHERE k = 0")
    _x('CREATE TABLE st (k text, s text static, i int, v text, PRIMARY KEY (k, i))')
    _x("INSERT INTO st (k, s, i, v) VALUES ('k', 's', 0, 'v')")
    _x("DELETE FROM st WHERE k = 'k' AND i = 0")
    return {
        'list': _rows('SELECT l FROM l WHERE k = 0'),
        'delete_if': _rows("DELETE v FROM st WHERE k = 'k' AND i = 0 IF s = 'z'"),
        'update_if': _rows("UPDATE st SET v = 'w' WHERE k = 'k' AND i = 0 IF s = 'z'"),
    }


@scenario
def timestamp_min():
    _x('CREATE TABLE ts (k int PRIMARY KEY, v int)')
    _x('INSERT INTO ts (k, v) VALUES (1, 1) USING TIMESTAMP -9223372036854775807')
    # As text: JSON numbers lose such integers.
    return {'writetime': [[str(v) for v in r] for r in _rows('SELECT writetime(v) FROM ts WHERE k = 1')]}


@scenario
def views():
    _x('CREATE TABLE vt (p int PRIMARY KEY, v text)')
    _x('CREATE MATERIALIZED VIEW vmv AS SELECT * FROM vt WHERE v IS NOT NULL AND p IS NOT NULL PRIMARY KEY (v, p)')
    _x("INSERT INTO vt (p, v) VALUES (123, '')")
    _x("INSERT INTO vt (p, v) VALUES (1, 'dog')")
    status = (f"SELECT keyspace_name, view_name, status FROM system_distributed.view_build_status "
              f"WHERE keyspace_name = '{KS}' ALLOW FILTERING")
    # Tools poll until the build is recorded; so does this (bounded).
    rows = []
    for _ in range(200):
        rows = _rows(status)
        if rows and all(r[2] == 'SUCCESS' for r in rows):
            break
    return {
        'view': _rows('SELECT * FROM vmv'),
        'status': rows,
        'built': _rows(f"SELECT keyspace_name, view_name FROM system.built_views WHERE keyspace_name = '{KS}'"),
    }


@scenario
def index_paging():
    _x('CREATE TABLE ix (k int, c int, x int, PRIMARY KEY (k, c))')
    _x('CREATE INDEX ON ix (x)')
    for k in (1, 2):
        _x('INSERT INTO ix (k, c, x) VALUES (%s, 1, 3)', (k,))
    pages = _pages('SELECT k FROM ix WHERE x = 3', 1)
    return {'page_sizes': [len(p) for p in pages], 'keys': sorted(r[0] for p in pages for r in p)}


if __name__ == '__main__':
    run()
