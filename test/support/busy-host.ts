// A server under test on a host whose cores other processes keep busy: processes spinning at normal priority, a
// server with ks.t (k int PRIMARY KEY, v text) and a client. `end` stops them all; the server must exit 0.
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import cassandra from 'cassandra-driver';
import { expect } from 'vitest';
import { type ServerProcess, startServer } from './server-process.js';

export class BusyHost {
  server: ServerProcess | undefined;
  client: cassandra.Client | undefined;
  private hogs: ChildProcess[] = [];

  /** Starts a server (emulated pool, `env` added) with table ks.t and connects a client to it. */
  async start(env: Record<string, string>): Promise<cassandra.Client> {
    this.server = await startServer({ env: { PMEM_IS_PMEM_FORCE: '1', ...env } });
    this.client = new cassandra.Client({
      contactPoints: [`127.0.0.1:${this.server.port}`],
      localDataCenter: 'datacenter1',
      socketOptions: { readTimeout: 60_000 },
    });
    await this.client.connect();
    await this.client.execute(
      "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    );
    await this.client.execute('CREATE TABLE ks.t (k int PRIMARY KEY, v text)');
    return this.client;
  }

  /** Keeps every core busy from now on. */
  spin(): void {
    for (let i = 0; i < availableParallelism(); i++) {
      this.hogs.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    }
  }

  async end(): Promise<void> {
    for (const h of this.hogs) h.kill('SIGKILL');
    this.hogs = [];
    await this.client?.shutdown();
    this.client = undefined;
    if (this.server) expect(await this.server.stop()).toBe(0);
    this.server = undefined;
  }
}
