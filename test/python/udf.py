"""User-defined functions and aggregates through the Python driver: the Cassandra documentation's Java examples,
the driver's function and aggregate metadata, failures and timeouts, sandbox escapes, and the switches.
Run by test/python-udf.test.ts: `udf.py host port [scenario ...]`; one JSON document on stdout."""
from cassandra import FunctionFailure, InvalidRequest

from common import cluster, error_info, run, scenario

_session = None


def session():
    global _session
    if _session is None:
        _session = cluster().connect()
        _session.execute("CREATE KEYSPACE IF NOT EXISTS udf WITH replication = "
                         "{'class': 'SimpleStrategy', 'replication_factor': 1}")
        _session.set_keyspace('udf')
    return _session


def err(cql):
    try:
        session().execute(cql)
    except Exception as e:  # noqa: BLE001 - reported to the test as data
        info = error_info(e)
        if isinstance(e, FunctionFailure):
            info.update({'keyspace': e.keyspace, 'function': e.function, 'arg_types': list(e.arg_types)})
        return info
    return None


@scenario
def docs_examples():
    s = session()
    # The documentation's user-defined aggregate (average as a tuple state and a final function).
    s.execute("""CREATE OR REPLACE FUNCTION averageState(state tuple<int,bigint>, val int)
        CALLED ON NULL INPUT RETURNS tuple<int,bigint> LANGUAGE java AS $$
            if (val != null) {
                state.setInt(0, state.getInt(0)+1);
                state.setLong(1, state.getLong(1)+val.intValue());
            }
            return state;
        $$""")
    s.execute("""CREATE OR REPLACE FUNCTION averageFinal (state tuple<int,bigint>)
        CALLED ON NULL INPUT RETURNS double LANGUAGE java AS $$
            double r = 0;
            if (state.getInt(0) == 0) return null;
            r = state.getLong(1);
            r /= state.getInt(0);
            return Double.valueOf(r);
        $$""")
    s.execute('CREATE OR REPLACE AGGREGATE average(int) SFUNC averageState STYPE tuple<int,bigint> '
              'FINALFUNC averageFinal INITCOND (0, 0)')
    s.execute('CREATE TABLE atable (pk int PRIMARY KEY, val int)')
    for i in range(1, 5):
        s.execute('INSERT INTO atable (pk, val) VALUES (%s, %s)', (i, i))
    average = s.execute('SELECT average(val) FROM atable').one()[0]
    empty = s.execute('SELECT average(val) FROM atable WHERE pk = 99').one()[0]
    # fLog, the documentation's scalar function, and the $$-quoted identity.
    s.execute("CREATE OR REPLACE FUNCTION fLog (input double) CALLED ON NULL INPUT RETURNS double "
              "LANGUAGE java AS 'return Double.valueOf(Math.log(input.doubleValue()));'")
    s.execute('CREATE FUNCTION some_function ( arg int ) RETURNS NULL ON NULL INPUT RETURNS int '
              'LANGUAGE java AS $$ return arg; $$')
    flog = s.execute('SELECT fLog(2.718281828459045) FROM atable WHERE pk = 1').one()[0]
    identity = s.execute('SELECT some_function(val) FROM atable WHERE pk = 3').one()[0]
    # UDTs: a UDT argument read by field, and a UDT result built with udfContext.
    s.execute('CREATE TYPE custom_type (txt text, i int)')
    s.execute('CREATE FUNCTION fct_using_udt ( udtarg custom_type ) RETURNS NULL ON NULL INPUT '
              'RETURNS text LANGUAGE java AS $$ return udtarg.getString("txt"); $$')
    s.execute("""CREATE FUNCTION fct_making_udt ( somearg int ) RETURNS NULL ON NULL INPUT RETURNS custom_type
        LANGUAGE java AS $$
            UDTValue udt = udfContext.newReturnUDTValue();
            udt.setString("txt", "some string");
            udt.setInt("i", 42);
            return udt;
        $$""")
    s.execute('CREATE TABLE utable (pk int PRIMARY KEY, u frozen<custom_type>)')
    s.execute("INSERT INTO utable (pk, u) VALUES (1, {txt: 'hello', i: 7})")
    text = s.execute('SELECT fct_using_udt(u) FROM utable WHERE pk = 1').one()[0]
    made = s.execute('SELECT fct_making_udt(pk) FROM utable WHERE pk = 1').one()[0]
    return {'average': average, 'average_of_none': empty, 'flog': flog, 'identity': identity,
            'udt_field': text, 'udt_made': {'txt': made.txt, 'i': made.i}}


@scenario
def metadata():
    s = session()
    s.execute("CREATE FUNCTION plus(a int, b int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java "
              "AS 'return a + b;'")
    s.execute("CREATE FUNCTION plus(a bigint, b bigint) RETURNS NULL ON NULL INPUT RETURNS bigint LANGUAGE java "
              "AS 'return a + b;'")
    s.execute('CREATE AGGREGATE total(int) SFUNC plus STYPE int INITCOND 10')
    c = s.cluster
    c.refresh_schema_metadata()
    ks = c.metadata.keyspaces['udf']
    functions = sorted(
        [f.name, list(f.argument_types), list(f.argument_names), f.return_type, f.language, f.body,
         f.called_on_null_input]
        for f in ks.functions.values() if f.name == 'plus')
    agg = ks.aggregates['total(int)']
    total = s.execute('SELECT total(val) FROM atable').one()[0]
    return {
        'functions': functions,
        'aggregate': [agg.name, list(agg.argument_types), agg.state_func, agg.state_type, agg.final_func,
                      agg.initial_condition, agg.return_type],
        'function_cql': ks.functions['plus(int,int)'].as_cql_query(),
        'total': total,
    }


@scenario
def failures():
    s = session()
    s.execute("CREATE FUNCTION div(a int, b int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java "
              "AS 'return a / b;'")
    s.execute("CREATE FUNCTION spin(a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java "
              "AS 'while (true) { a++; }'")
    s.execute("""CREATE FUNCTION slow(a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS $$
        long until = new java.util.Date().getTime() + 400;
        while (new java.util.Date().getTime() < until) { a = a + 0; }
        return a;
    $$""")
    slow = s.execute('SELECT slow(val) FROM atable WHERE pk = 1')
    return {
        'division_by_zero': err('SELECT div(val, 0) FROM atable WHERE pk = 1'),
        'timeout': err('SELECT spin(val) FROM atable WHERE pk = 1'),
        'slow': [slow.one()[0], slow.response_future.warnings],
        'compile_error': err("CREATE FUNCTION broken(a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java "
                             "AS 'return b;'"),
        'system_exit': err("CREATE FUNCTION quit(a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java "
                           "AS 'System.exit(0); return a;'"),
        'after': s.execute('SELECT val FROM atable WHERE pk = 2').one()[0],
    }


@scenario
def attacks():
    s = session()
    bodies = {
        'constructor_chain': "return a.constructor.constructor('return typeof process')();",
        'eval': "return eval('1');",
        'pollution': "Object.prototype.polluted = 1; return 'done';",
        'global': "globalThis.leak = 1; return 'done';",
        'infinite_loop': 'for (;;) {}',
        'huge_allocation': "return 'x'.repeat(1 << 29);",
    }
    out = {}
    for name, body in bodies.items():
        s.execute('CREATE FUNCTION js_%s(a int) CALLED ON NULL INPUT RETURNS text LANGUAGE javascript AS $$%s$$'
                  % (name, body))
        out[name] = err('SELECT js_%s(val) FROM atable WHERE pk = 1' % name)
    s.execute("CREATE FUNCTION js_clean(a int) CALLED ON NULL INPUT RETURNS text LANGUAGE javascript AS "
              "$$return typeof ({}).polluted + ',' + typeof globalThis.leak;$$")
    out['clean'] = s.execute('SELECT js_clean(val) FROM atable WHERE pk = 1').one()[0]
    out['reflection'] = err("CREATE FUNCTION refl(a int) RETURNS NULL ON NULL INPUT RETURNS text LANGUAGE java "
                            "AS 'return Class.forName(\"java.lang.Runtime\").getName();'")
    return out


@scenario
def disabled():
    s = session()
    return {
        'java': err("CREATE FUNCTION plus1(a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java "
                    "AS 'return a + 1;'"),
        'javascript': err("CREATE FUNCTION plus1(a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE javascript "
                          "AS 'a + 1'"),
    }


if __name__ == '__main__':
    run()
