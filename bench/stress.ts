#!/usr/bin/env node
// pmemcql-stress: cassandra-stress's legacy (write, read, mixed), counter (counter_write,
// counter_read) and YAML profile (user) workloads, and YCSB's core workloads A–F, against any CQL
// server, with a progress bar, an HTML report and an HdrHistogram log. See docs/stress.md.
//   node dist/bench/stress.js write n=100000 threads=32 -node 127.0.0.1 -port 9042 -log file=report.html
import { main } from './stress/cli.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  },
);
