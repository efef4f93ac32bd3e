// The cost of calling a user-defined function per row: `SELECT f(x) FROM t` over N rows (default 100 000) against
// the same `SELECT x FROM t`, through cassandra-driver (paged, fetch size 5000), for a trivial JavaScript function
// and a trivial Java function (`x + 1`). Reports the best of R runs of each, the ratio to the plain SELECT, the
// extra time per row, and the server's CPU per row (/proc). Pool on /dev/shm (emulated pmem), twins off so that
// both SELECTs read rows the same way.
//
//   npx tsc -p tsconfig.json && node dist/bench/udf-call-cost.js [--rows N] [--repeat R]

import { loadavg } from 'node:os';
import cassandra from 'cassandra-driver';
import { startBenchServer } from './support/bench-server.js';
import { numberOption } from './support/cli-options.js';
import { processCpuMs } from './support/process-cpu.js';

const ROWS = numberOption('--rows', 100_000);
const REPEAT = numberOption('--repeat', 5);
const FETCH = 5000;

interface Run {
  ms: number;
  serverCpuMs: number;
}

async function main() {
  const server = await startBenchServer('emulated', {
    poolSize: '512MiB',
    env: {
      PMEMCQL_TWINS: 'off',
      PMEMCQL_USER_DEFINED_FUNCTIONS_ENABLED: 'true',
      PMEMCQL_SCRIPTED_USER_DEFINED_FUNCTIONS_ENABLED: 'true',
      PMEMCQL_LOG_LEVEL: 'warn',
    },
  });
  const client = new cassandra.Client({
    contactPoints: [`127.0.0.1:${server.port}`],
    localDataCenter: 'datacenter1',
    pooling: { coreConnectionsPerHost: { [cassandra.types.distance.local]: 1 } },
  });
  try {
    await client.connect();
    await client.execute("CREATE KEYSPACE b WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    await client.execute('CREATE TABLE b.t (k int PRIMARY KEY, x int)');
    const insert = 'INSERT INTO b.t (k, x) VALUES (?, ?)';
    for (let k = 0; k < ROWS; k += 1000) {
      await cassandra.concurrent.executeConcurrent(
        client,
        insert,
        Array.from({ length: Math.min(1000, ROWS - k) }, (_, i) => [k + i, k + i]),
        { concurrencyLevel: 256 },
      );
    }
    const functions: [string, string][] = [
      [
        'javascript',
        "CREATE FUNCTION b.js_inc(x int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE javascript AS 'x + 1'",
      ],
      [
        'java',
        "CREATE FUNCTION b.java_inc(x int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return x + 1;'",
      ],
    ];
    const available: string[] = [];
    for (const [language, cql] of functions) {
      try {
        await client.execute(cql);
        available.push(language);
      } catch (e) {
        console.log(`${language}: not measured (${(e as Error).message})`);
      }
    }

    const scan = async (select: string, check: (row: cassandra.types.Row) => void): Promise<Run> => {
      const cpu0 = processCpuMs(server.child.pid) ?? 0;
      const t0 = performance.now();
      let n = 0;
      for await (const row of client.stream(select, [], {
        fetchSize: FETCH,
        prepare: true,
      }) as unknown as AsyncIterable<cassandra.types.Row>) {
        if (n % 9973 === 0) check(row);
        n++;
      }
      const ms = performance.now() - t0;
      if (n !== ROWS) throw new Error(`${select}: ${n} rows, expected ${ROWS}`);
      return { ms, serverCpuMs: (processCpuMs(server.child.pid) ?? 0) - cpu0 };
    };
    const best = async (select: string, check: (row: cassandra.types.Row) => void): Promise<Run> => {
      const runs: Run[] = [];
      for (let i = 0; i < REPEAT + 1; i++) runs.push(await scan(select, check)); // the first one warms up
      return runs.slice(1).sort((a, b) => a.ms - b.ms)[0]!;
    };

    const plain = await best('SELECT k, x FROM b.t', () => {});
    const lines = [
      `udf-call-cost: ${ROWS} rows, fetch size ${FETCH}, best of ${REPEAT}; load ${loadavg()[0]!.toFixed(2)}`,
      '| query | ms | ratio | extra µs/row | server CPU µs/row |',
      '| --- | ---: | ---: | ---: | ---: |',
      row('SELECT k, x', plain, plain),
    ];
    for (const language of available) {
      const fn = language === 'java' ? 'java_inc' : 'js_inc';
      const r = await best(`SELECT k, b.${fn}(x) AS y FROM b.t`, (r) => {
        if (r.y !== r.k + 1) throw new Error(`${fn}(${r.k}) = ${r.y}`);
      });
      lines.push(row(`SELECT k, ${fn}(x) (${language})`, r, plain));
    }
    console.log(lines.join('\n'));
  } finally {
    await client.shutdown();
    await server.stop();
  }
}

function row(label: string, r: Run, base: Run): string {
  const perRow = ((r.ms - base.ms) * 1000) / ROWS;
  return `| ${label} | ${r.ms.toFixed(0)} | ${(r.ms / base.ms).toFixed(2)} | ${perRow.toFixed(2)} | ${((r.serverCpuMs * 1000) / ROWS).toFixed(2)} |`;
}

await main();
