// cassandra-stress's `user` command: operations from one or more YAML profiles, in the proportions
// of ops(insert=1,simple1=2) — `insert`, a named query, or a token range query of the profile (with
// several profiles, specname.op; a name without a profile is the first profile's). Partitions
// come from -pop (default seq=1..n when only inserting, else gaussian(1..n)), shared by all
// operations; n= counts partitions, as there. Set-up creates what the profiles define and
// prepares the statements, so a wrong profile fails before the run.

import type cassandra from 'cassandra-driver';
import type { StressSettings } from './args.js';
import { distributionFactory, StressArgError } from './distribution.js';
import { OpChooser } from './op-chooser.js';
import { type BindVariable, preparedVariables } from './prepared-variables.js';
import { loadProfile, type StressProfile } from './profile.js';
import { ProfileInsert } from './profile-insert.js';
import { ProfileQueryOp } from './profile-query.js';
import { type ConnectTo, type ProfileTable, setUpProfileTable } from './profile-table.js';
import { SeedManager, type SeedSource } from './seed-manager.js';
import { TokenRangeQueryOp } from './token-range-query.js';
import type { ExecuteOptions, Operation, Workload } from './workload.js';

interface OpSource {
  next(budget: number): Operation | undefined;
}

/** What an ops(...) name refers to once the profiles are known. */
interface OpTarget {
  name: string;
  profile: StressProfile;
  kind: 'insert' | 'query' | 'tokenrange';
  /** The query's or token range query's name in the profile. */
  ref: string;
}

function resolveOps(profiles: StressProfile[], ops: Map<string, number>): OpTarget[] {
  const bySpec = new Map(profiles.map((p) => [p.specName.toLowerCase(), p]));
  const targets: OpTarget[] = [];
  for (const name of ops.keys()) {
    const dot = name.lastIndexOf('.');
    let profile = profiles[0]!;
    let ref = name;
    if (dot > 0) {
      const named = bySpec.get(name.slice(0, dot));
      if (!named) throw new StressArgError(`op ${name} names no profile (specnames: ${[...bySpec.keys()].join(', ')})`);
      profile = named;
      ref = name.slice(dot + 1);
    }
    if (ref === 'insert') targets.push({ name, profile, kind: 'insert', ref });
    else if (profile.queries.has(ref)) targets.push({ name, profile, kind: 'query', ref });
    else if (profile.tokenRangeQueries.has(ref)) targets.push({ name, profile, kind: 'tokenrange', ref });
    else if (ref === 'validate') throw new StressArgError('the validate operation is not supported');
    else {
      const known = ['insert', ...profile.queries.keys(), ...profile.tokenRangeQueries.keys()];
      throw new StressArgError(`no query defined with name ${ref} in ${profile.file} (${known.join(', ')})`);
    }
  }
  return targets;
}

/** Everything set-up produced, shared by the workload and its warm-ups. */
interface Prepared {
  tables: Map<StressProfile, ProfileTable>;
  variables: Map<string, BindVariable[]>;
}

export class UserWorkload implements Workload {
  /** As cassandra-stress names it: "[insert, simple1]", or the one operation of a warm-up. */
  readonly name: string;
  readonly opTypes: readonly string[];
  private readonly profiles: StressProfile[];
  private readonly targets: OpTarget[];
  private prepared?: Prepared;
  private sources = new Map<string, OpSource>();
  private chooser!: OpChooser;
  private inserts: ProfileInsert[] = [];
  private readonly owner: boolean;

  constructor(
    private readonly settings: StressSettings,
    private readonly options: ExecuteOptions,
    private readonly connectTo: ConnectTo,
    private readonly only?: OpTarget,
    shared?: { profiles: StressProfile[]; prepared: Prepared },
  ) {
    const user = settings.userCommand!;
    this.profiles = shared?.profiles ?? user.profiles.map(loadProfile);
    const specs = new Set<string>();
    for (const p of this.profiles) {
      if (specs.has(p.specName)) {
        throw new StressArgError(`only one profile per table: ${p.specName} appears twice (set a specname)`);
      }
      specs.add(p.specName);
    }
    this.targets = only ? [only] : resolveOps(this.profiles, user.ops);
    // cassandra-stress lists operation types sorted by name.
    this.opTypes = this.targets.map((t) => t.name).sort();
    this.name = only ? only.name : `[${this.targets.map((t) => t.name).join(', ')}]`;
    this.owner = shared === undefined;
    if (shared) this.build(shared.prepared);
  }

  private seedManager(): SeedManager {
    const s = this.settings;
    const limit = s.n ?? 1_000_000;
    const insertOnly = this.targets.every((t) => t.kind === 'insert');
    let source: SeedSource;
    const pop = s.population;
    if (pop?.kind === 'seq' || (!pop && insertOnly)) {
      const range = pop ? /^SEQ\((\d+)\.\.(\d+)\)$/.exec(pop.spec) : undefined;
      source = {
        kind: 'seq',
        min: range ? Number(range[1]) : 1,
        max: range ? Number(range[2]) : limit,
        wrap: pop?.wrap ?? true,
      };
    } else {
      source = { kind: 'dist', distribution: distributionFactory(pop?.spec ?? `GAUSSIAN(1..${limit})`)() };
    }
    const first = this.profiles[0]!.insert;
    const visits = distributionFactory(s.insert.visits ?? first.get('visits') ?? 'fixed(1)')();
    const revisit = distributionFactory(s.insert.revisit ?? first.get('revisit') ?? 'uniform(1..1M)')();
    return new SeedManager(source, visits, revisit);
  }

  private build(prepared: Prepared): void {
    this.prepared = prepared;
    const seeds = this.seedManager();
    this.sources = new Map();
    this.inserts = [];
    for (const t of this.targets) {
      const table = prepared.tables.get(t.profile)!;
      if (t.kind === 'insert') {
        const insert = new ProfileInsert(table, this.settings.insert, this.options, seeds);
        this.inserts.push(insert);
        this.sources.set(t.name, { next: (budget) => insert.next(t.name, budget) });
      } else if (t.kind === 'query') {
        const query = new ProfileQueryOp(
          t.name,
          t.profile.queries.get(t.ref)!,
          prepared.variables.get(`${t.profile.specName}\0${t.ref}`)!,
          table,
          this.options,
          seeds,
        );
        this.sources.set(t.name, { next: () => query.next() });
      } else {
        const op = new TokenRangeQueryOp(
          t.name,
          t.profile.tokenRangeQueries.get(t.ref)!,
          table,
          this.options,
          this.settings.tokenRange,
        );
        this.sources.set(t.name, { next: () => op.next() });
      }
    }
    const weights = new Map(
      this.targets.map((t) => [t.name, this.only ? 1 : this.settings.userCommand!.ops.get(t.name)!]),
    );
    this.chooser = new OpChooser(weights, distributionFactory(this.settings.userCommand!.clustering)());
  }

  async setup(client: cassandra.Client): Promise<void> {
    if (this.prepared) return;
    const tables = new Map<StressProfile, ProfileTable>();
    const variables = new Map<string, BindVariable[]>();
    try {
      for (const profile of this.profiles) {
        if (!this.targets.some((t) => t.profile === profile)) continue;
        tables.set(profile, await setUpProfileTable(profile, client, this.connectTo));
      }
      for (const t of this.targets) {
        if (t.kind !== 'query') continue;
        const table = tables.get(t.profile)!;
        const cql = t.profile.queries.get(t.ref)!.cql;
        variables.set(`${t.profile.specName}\0${t.ref}`, await preparedVariables(table.client, cql));
      }
      this.build({ tables, variables });
    } catch (e) {
      for (const t of tables.values()) await t.client.shutdown().catch(() => {});
      throw e;
    }
  }

  describe(print: (line: string) => void): void {
    const visits = distributionFactory(
      this.settings.insert.visits ?? this.profiles[0]!.insert.get('visits') ?? 'fixed(1)',
    )();
    const described = new Set<string>();
    for (const insert of this.inserts) {
      const spec = insert.table.profile.specName;
      if (described.has(spec)) continue;
      described.add(spec);
      insert.describe(print, visits);
    }
  }

  warmups(): Workload[] {
    const shared = { profiles: this.profiles, prepared: this.prepared! };
    return this.targets.map((t) => new UserWorkload(this.settings, this.options, this.connectTo, t, shared));
  }

  next(budget: number): Operation | undefined {
    return this.sources.get(this.chooser.next())!.next(budget);
  }

  async close(): Promise<void> {
    if (!this.owner || !this.prepared) return;
    for (const t of this.prepared.tables.values()) await t.client.shutdown().catch(() => {});
  }
}
