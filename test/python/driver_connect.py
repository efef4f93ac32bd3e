"""Connect scenarios for the Python driver: version negotiation, compression, metadata, DDL + DML round trip.

Usage: driver_connect.py host port [scenario ...]; prints one JSON object {scenario: result}.
"""
from cassandra import ProtocolVersion
from common import cluster, run, scenario

REPLICATION = "{'class': 'SimpleStrategy', 'replication_factor': 1}"
BIG = 'x' * 300_000  # more than two v5 segments (128 KiB payload each)


def _connected(c):
    conn = c.control_connection._connection
    return {
        'protocol_version': c.protocol_version,
        'compressor': getattr(conn.compressor, '__name__', None) if conn.compressor else None,
    }


def _big_round_trip(session, ks):
    session.execute(f'CREATE KEYSPACE IF NOT EXISTS {ks} WITH replication = {REPLICATION}')
    session.execute(f'CREATE TABLE IF NOT EXISTS {ks}.big (k int PRIMARY KEY, v text)')
    session.execute(f'INSERT INTO {ks}.big (k, v) VALUES (%s, %s)', (1, BIG))
    row = session.execute(f'SELECT v FROM {ks}.big WHERE k = 1').one()
    return row is not None and row.v == BIG


@scenario
def negotiate_default():
    # compression defaults to True: the driver picks lz4 when the server offers it
    c = cluster()
    try:
        s = c.connect()
        release = s.execute("SELECT release_version FROM system.local WHERE key = 'local'").one().release_version
        return {**_connected(c), 'release_version': release, 'max_supported': ProtocolVersion.MAX_SUPPORTED}
    finally:
        c.shutdown()


@scenario
def negotiate_uncompressed():
    c = cluster(compression=False)
    try:
        s = c.connect()
        count = len(list(s.execute('SELECT * FROM system_schema.columns')))
        return {**_connected(c), 'schema_columns': count}
    finally:
        c.shutdown()


@scenario
def lz4_default_version():
    c = cluster(compression='lz4')
    try:
        s = c.connect()
        return {**_connected(c), 'big_round_trip': _big_round_trip(s, 'py_lz4')}
    finally:
        c.shutdown()


@scenario
def lz4_v4():
    c = cluster(compression='lz4', protocol_version=4)
    try:
        s = c.connect()
        return {**_connected(c), 'big_round_trip': _big_round_trip(s, 'py_lz4_v4')}
    finally:
        c.shutdown()


@scenario
def snappy_v4():
    c = cluster(compression='snappy', protocol_version=4)
    try:
        s = c.connect()
        return {**_connected(c), 'big_round_trip': _big_round_trip(s, 'py_snappy')}
    finally:
        c.shutdown()


@scenario
def v3():
    c = cluster(protocol_version=3, compression=False)
    try:
        s = c.connect()
        rows = list(s.execute('SELECT keyspace_name FROM system_schema.keyspaces'))
        return {**_connected(c), 'keyspaces': sorted(r.keyspace_name for r in rows)}
    finally:
        c.shutdown()


@scenario
def lz4_v3():
    c = cluster(compression='lz4', protocol_version=3)
    try:
        s = c.connect()
        return {**_connected(c), 'big_round_trip': _big_round_trip(s, 'py_lz4_v3')}
    finally:
        c.shutdown()


@scenario
def snappy_v3():
    c = cluster(compression='snappy', protocol_version=3)
    try:
        s = c.connect()
        return {**_connected(c), 'big_round_trip': _big_round_trip(s, 'py_snappy_v3')}
    finally:
        c.shutdown()


@scenario
def v5_uncompressed_big():
    c = cluster(protocol_version=5, compression=False)
    try:
        s = c.connect()
        return {**_connected(c), 'big_round_trip': _big_round_trip(s, 'py_v5')}
    finally:
        c.shutdown()


@scenario
def schema_events():
    """A second client's DDL reaches this client's metadata through SCHEMA_CHANGE events (v5 segments)."""
    import time

    watcher = cluster(schema_event_refresh_window=0.05)
    writer = cluster(schema_metadata_enabled=False)
    try:
        watcher.connect()
        ws = writer.connect()

        def wait(check, timeout=10.0):
            t0 = time.time()
            while not check() and time.time() - t0 < timeout:
                time.sleep(0.05)
            return check()

        ws.execute(f'CREATE KEYSPACE py_evt WITH replication = {REPLICATION}')
        keyspace_seen = wait(lambda: 'py_evt' in watcher.metadata.keyspaces)
        ws.execute('CREATE TABLE py_evt.t (k int PRIMARY KEY, v text)')
        table_seen = wait(lambda: 'py_evt' in watcher.metadata.keyspaces and 't' in watcher.metadata.keyspaces['py_evt'].tables)
        ws.execute('ALTER TABLE py_evt.t ADD w int')
        column_seen = wait(
            lambda: 'w' in getattr(watcher.metadata.keyspaces['py_evt'].tables.get('t'), 'columns', {})
        )
        ws.execute('DROP KEYSPACE py_evt')
        keyspace_gone = wait(lambda: 'py_evt' not in watcher.metadata.keyspaces)
        return {
            'protocol_version': watcher.protocol_version,
            'keyspace_seen': keyspace_seen,
            'table_seen': table_seen,
            'column_seen': column_seen,
            'keyspace_gone': keyspace_gone,
        }
    finally:
        writer.shutdown()
        watcher.shutdown()


@scenario
def metadata_and_round_trip():
    c = cluster()
    try:
        s = c.connect()
        system_keyspaces = sorted(c.metadata.keyspaces.keys())
        local_host = [
            {
                'address': h.address,
                'datacenter': h.datacenter,
                'rack': h.rack,
                'release_version': h.release_version,
                'host_id': str(h.host_id),
            }
            for h in c.metadata.all_hosts()
        ]
        token_map = c.metadata.token_map
        ring_size = len(token_map.ring) if token_map else 0
        s.execute(f'CREATE KEYSPACE py_rt WITH replication = {REPLICATION}')
        s.execute(
            'CREATE TABLE py_rt.events (tenant text, day date, at timeuuid, kind text, payload map<text, int>, '
            'PRIMARY KEY ((tenant, day), at, kind)) WITH CLUSTERING ORDER BY (at DESC, kind ASC)'
        )
        keyspace_listed = 'py_rt' in c.metadata.keyspaces
        table_listed = 'events' in c.metadata.keyspaces['py_rt'].tables if keyspace_listed else False
        from uuid import UUID

        at = UUID('e7e1a200-4b1f-11ee-8000-000000000001')
        s.execute(
            'INSERT INTO py_rt.events (tenant, day, at, kind, payload) VALUES (%s, %s, %s, %s, %s)',
            ('acme', '2024-02-29', at, 'click', {'x': 1, 'y': 2}),
        )
        row = s.execute(
            "SELECT tenant, day, at, kind, payload FROM py_rt.events WHERE tenant = 'acme' AND day = '2024-02-29'"
        ).one()
        table = c.metadata.keyspaces['py_rt'].tables['events']
        replicas = [h.address for h in c.metadata.get_replicas('py_rt', b'\x00\x00\x00\x01')]
        return {
            'keyspaces': system_keyspaces,
            'hosts': local_host,
            'ring_size': ring_size,
            'keyspace_listed': keyspace_listed,
            'table_listed': table_listed,
            'row': {
                'tenant': row.tenant,
                'day': str(row.day),
                'at': str(row.at),
                'kind': row.kind,
                'payload': dict(row.payload),
            }
            if row
            else None,
            'partition_key': [col.name for col in table.partition_key],
            'clustering_key': [col.name for col in table.clustering_key],
            'export': table.export_as_string(),
            'keyspace_export': c.metadata.keyspaces['py_rt'].export_as_string(),
            'replicas': replicas,
        }
    finally:
        c.shutdown()


if __name__ == '__main__':
    run()
