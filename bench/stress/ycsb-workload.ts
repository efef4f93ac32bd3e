// YCSB's core workloads A–F (site.ycsb.workloads.CoreWorkload with the workloads/workload[a-f]
// property files) on ycsb.usertable (y_id varchar PRIMARY KEY, field0..field9 varchar): 1 KB
// records of 10 fields × 100 bytes, keys "user" + fnvhash64(keynum) (insertorder=hashed), statements
// as YCSB's Cassandra binding issues them (scans: token(y_id) >= token(?) LIMIT n).
//   A update heavy   read 0.5  update 0.5            zipfian
//   B read mostly    read 0.95 update 0.05           zipfian
//   C read only      read 1                          zipfian
//   D read latest    read 0.95 insert 0.05           latest
//   E short ranges   scan 0.95 insert 0.05           zipfian, scan length uniform 1..100
//   F read-modify-write  read 0.5 readmodifywrite 0.5  zipfian

import type cassandra from 'cassandra-driver';
import type { RequestDistribution, StressSettings, YcsbWorkload as WorkloadName, YcsbSettings } from './args.js';
import type { ExecuteOptions, Operation, OpResult, Workload } from './workload.js';
import {
  AcknowledgedCounter,
  fnvhash64,
  type LongGenerator,
  ScrambledZipfianGenerator,
  SkewedLatestGenerator,
  UniformLongGenerator,
} from './zipfian.js';

type OpKind = 'read' | 'update' | 'insert' | 'scan' | 'readmodifywrite';

export const OP_NAMES: Record<OpKind, string> = {
  read: 'READ',
  update: 'UPDATE',
  insert: 'INSERT',
  scan: 'SCAN',
  readmodifywrite: 'READ-MODIFY-WRITE',
};

export const CORE_WORKLOADS: Record<
  WorkloadName,
  { proportions: Partial<Record<OpKind, number>>; distribution: RequestDistribution }
> = {
  a: { proportions: { read: 0.5, update: 0.5 }, distribution: 'zipfian' },
  b: { proportions: { read: 0.95, update: 0.05 }, distribution: 'zipfian' },
  c: { proportions: { read: 1 }, distribution: 'zipfian' },
  d: { proportions: { read: 0.95, insert: 0.05 }, distribution: 'latest' },
  e: { proportions: { scan: 0.95, insert: 0.05 }, distribution: 'zipfian' },
  f: { proportions: { read: 0.5, readmodifywrite: 0.5 }, distribution: 'zipfian' },
};

/** YCSB's CoreWorkload.buildKeyName with insertorder=hashed and zeropadding=1. */
export function ycsbKey(keynum: number): string {
  return `user${fnvhash64(keynum)}`;
}

/** Printable random field values (as YCSB's RandomByteIterator), sliced from a shared pool. */
class FieldValues {
  private readonly pool: string;
  constructor(
    private readonly length: number,
    private readonly random: () => number,
  ) {
    let s = '';
    for (let i = 0; i < Math.max(8192, length * 32); i++) s += String.fromCharCode(32 + Math.floor(random() * 94));
    this.pool = s;
  }

  next(): string {
    const start = Math.floor(this.random() * (this.pool.length - this.length + 1));
    return this.pool.slice(start, start + this.length);
  }
}

/** Picks an operation kind from cumulative proportions (YCSB's DiscreteGenerator). */
class OperationChooser {
  private readonly kinds: OpKind[] = [];
  private readonly cumulative: number[] = [];
  private readonly total: number;

  constructor(
    proportions: Partial<Record<OpKind, number>>,
    private readonly random: () => number,
  ) {
    let sum = 0;
    for (const kind of ['read', 'update', 'insert', 'scan', 'readmodifywrite'] as OpKind[]) {
      const p = proportions[kind] ?? 0;
      if (p > 0) {
        sum += p;
        this.kinds.push(kind);
        this.cumulative.push(sum);
      }
    }
    if (sum <= 0) throw new Error('the YCSB operation proportions add up to 0');
    this.total = sum;
  }

  get opKinds(): readonly OpKind[] {
    return this.kinds;
  }

  next(): OpKind {
    const u = this.random() * this.total;
    for (let i = 0; i < this.kinds.length; i++) if (u < this.cumulative[i]!) return this.kinds[i]!;
    return this.kinds[this.kinds.length - 1]!;
  }
}

export interface YcsbPhase extends Workload {
  /** Operations this phase runs when not bounded by time. */
  readonly operationCount: number;
}

/** Shared schema, statements and value generation for the load and run phases. */
export class YcsbTable {
  readonly table: string;
  readonly fields: string[];
  readonly values: FieldValues;
  private client!: cassandra.Client;
  private insertQuery = '';
  private readQuery = '';
  private scanQuery = '';
  /** Whether the server takes token(?) on the right of a comparison; if not, scans bind the token itself. */
  private scanByTokenValue = false;
  private updateQueries: string[] = [];

  constructor(
    readonly settings: StressSettings,
    readonly ycsb: YcsbSettings,
    readonly options: ExecuteOptions,
    readonly random: () => number = Math.random,
  ) {
    this.table = `${settings.keyspace}.usertable`;
    this.fields = Array.from({ length: ycsb.fieldCount }, (_, i) => `field${i}`);
    this.values = new FieldValues(ycsb.fieldLength, random);
  }

  async setup(client: cassandra.Client, create: boolean): Promise<void> {
    this.client = client;
    if (create) {
      await client.execute(
        `CREATE KEYSPACE IF NOT EXISTS ${this.settings.keyspace} WITH replication = ` +
          `{'class': 'SimpleStrategy', 'replication_factor': '${this.settings.replicationFactor}'}`,
      );
      await client.execute(
        `CREATE TABLE IF NOT EXISTS ${this.table} (y_id varchar PRIMARY KEY, ${this.fields.map((f) => `${f} varchar`).join(', ')})`,
      );
    }
    this.insertQuery = `INSERT INTO ${this.table} (y_id, ${this.fields.join(', ')}) VALUES (?${', ?'.repeat(this.fields.length)})`;
    this.readQuery = `SELECT * FROM ${this.table} WHERE y_id = ?`;
    this.scanQuery = `SELECT * FROM ${this.table} WHERE token(y_id) >= token(?) LIMIT ?`;
    this.updateQueries = this.fields.map((f) => `UPDATE ${this.table} SET ${f} = ? WHERE y_id = ?`);
    if (this.scansUsed) await this.chooseScanForm();
  }

  /** Set by the run phase when its mix has scans. */
  scansUsed = false;

  /**
   * YCSB's binding scans with token(y_id) >= token(?); a server without token() as a term (or
   * without it on that side) gets token(y_id) >= ? with the Murmur3 token the driver computes.
   */
  private async chooseScanForm(): Promise<void> {
    try {
      await this.client.execute(this.scanQuery, [ycsbKey(0), 1], this.options);
    } catch (e) {
      const fallback = `SELECT * FROM ${this.table} WHERE token(y_id) >= ? LIMIT ?`;
      try {
        await this.client.execute(fallback, [this.client.metadata.newToken(ycsbKey(0)).getValue(), 1], this.options);
      } catch {
        throw e;
      }
      this.scanQuery = fallback;
      this.scanByTokenValue = true;
    }
  }

  async insert(keynum: number): Promise<OpResult> {
    const values: string[] = [ycsbKey(keynum)];
    for (let i = 0; i < this.fields.length; i++) values.push(this.values.next());
    await this.client.execute(this.insertQuery, values, this.options);
    return { partitions: 1, rows: 1 };
  }

  async read(keynum: number): Promise<OpResult> {
    const rs = await this.client.execute(this.readQuery, [ycsbKey(keynum)], this.options);
    return { partitions: 1, rows: rs.rowLength };
  }

  async update(keynum: number, field: number, value: string): Promise<OpResult> {
    await this.client.execute(this.updateQueries[field]!, [value, ycsbKey(keynum)], this.options);
    return { partitions: 1, rows: 1 };
  }

  async scan(keynum: number, length: number): Promise<OpResult> {
    const key = ycsbKey(keynum);
    const start = this.scanByTokenValue ? this.client.metadata.newToken(key).getValue() : key;
    const rs = await this.client.execute(this.scanQuery, [start, length], this.options);
    return { partitions: rs.rowLength, rows: rs.rowLength };
  }
}

/** The load phase: recordcount INSERTs of keys 0..recordcount-1. */
export class YcsbLoad implements YcsbPhase {
  readonly name = 'YCSB-LOAD';
  readonly opTypes = ['INSERT'];
  readonly operationCount: number;
  private nextKey = 0;

  constructor(private readonly table: YcsbTable) {
    this.operationCount = table.ycsb.recordCount;
  }

  async setup(client: cassandra.Client): Promise<void> {
    await this.table.setup(client, true);
  }

  next(): Operation {
    const keynum = this.nextKey++;
    return { type: 'INSERT', execute: () => this.table.insert(keynum) };
  }
}

/** The transaction phase of workload A..F. */
export class YcsbRun implements YcsbPhase {
  readonly name: string;
  readonly opTypes: readonly string[];
  readonly operationCount: number;
  private readonly chooser: OperationChooser;
  private readonly keyChooser: LongGenerator;
  private readonly insertSequence: AcknowledgedCounter;
  private readonly random: () => number;

  constructor(private readonly table: YcsbTable) {
    const y = table.ycsb;
    const core = CORE_WORKLOADS[y.workload];
    const proportions = { ...core.proportions, ...y.proportions };
    this.random = table.random;
    this.name = `YCSB-${y.workload.toUpperCase()}`;
    this.operationCount = y.operationCount;
    this.chooser = new OperationChooser(proportions, this.random);
    this.opTypes = this.chooser.opKinds.map((k) => OP_NAMES[k]);
    this.insertSequence = new AcknowledgedCounter(y.recordCount);
    const distribution = y.distribution ?? core.distribution;
    const expectedNewKeys = Math.floor(y.operationCount * (proportions.insert ?? 0) * 2);
    switch (distribution) {
      case 'uniform':
        this.keyChooser = new UniformLongGenerator(0, y.recordCount - 1, this.random);
        break;
      case 'zipfian':
        this.keyChooser = new ScrambledZipfianGenerator(0, y.recordCount + expectedNewKeys - 1, this.random);
        break;
      case 'latest':
        this.keyChooser = new SkewedLatestGenerator(this.insertSequence, this.random);
        break;
    }
  }

  async setup(client: cassandra.Client): Promise<void> {
    this.table.scansUsed = this.opTypes.includes(OP_NAMES.scan);
    await this.table.setup(client, false);
  }

  /** YCSB's nextKeynum: never a key whose insert is not yet acknowledged. */
  private nextKeynum(): number {
    let keynum: number;
    let tries = 0;
    do {
      keynum = this.keyChooser.next();
    } while (keynum > this.insertSequence.last() && ++tries < 1000);
    return Math.min(keynum, Math.max(0, this.insertSequence.last()));
  }

  next(): Operation {
    const kind = this.chooser.next();
    const type = OP_NAMES[kind];
    const t = this.table;
    switch (kind) {
      case 'read': {
        const k = this.nextKeynum();
        return { type, execute: () => t.read(k) };
      }
      case 'update': {
        const k = this.nextKeynum();
        const field = Math.floor(this.random() * t.fields.length);
        const value = t.values.next();
        return { type, execute: () => t.update(k, field, value) };
      }
      case 'insert': {
        const k = this.insertSequence.next();
        return { type, execute: () => t.insert(k), done: () => this.insertSequence.acknowledge(k) };
      }
      case 'scan': {
        const k = this.nextKeynum();
        const length = 1 + Math.floor(this.random() * t.ycsb.maxScanLength);
        return { type, execute: () => t.scan(k, length) };
      }
      case 'readmodifywrite': {
        const k = this.nextKeynum();
        const field = Math.floor(this.random() * t.fields.length);
        const value = t.values.next();
        return {
          type,
          execute: async () => {
            const read = await t.read(k);
            await t.update(k, field, value);
            return read;
          },
        };
      }
    }
  }
}
