// Consistency levels on a single node: Cassandra's blockFor arithmetic over the keyspace's
// replication, with this node as the only live replica. Impossible requests get Unavailable
// exactly where Cassandra would give it (e.g. QUORUM with replication_factor 3).

import { Consistency, InvalidRequest, Unavailable } from '../errors.js';
import type { KeyspaceMetadata } from '../schema/keyspace-metadata.js';

const NAMES = new Map<number, string>(Object.entries(Consistency).map(([k, v]) => [v, k]));

export function consistencyName(cl: number): string {
  return NAMES.get(cl) ?? `UNKNOWN(${cl})`;
}

function factor(v: string | undefined): number {
  if (!v) return 0;
  // "3/1" is replication_factor/transient replicas.
  return Number.parseInt(v.split('/')[0]!, 10) || 0;
}

interface Replication {
  total: number;
  local: number;
  perDc: Map<string, number>;
  /** NetworkTopologyStrategy: EACH_QUORUM counts per datacenter. */
  nts: boolean;
}

/** Keyspace metadata objects are replaced on change, so the computed replication can be cached per object. */
const cache = new WeakMap<KeyspaceMetadata, Replication>();

function replication(ks: KeyspaceMetadata, localDc: string): Replication {
  let r = cache.get(ks);
  if (!r) {
    r = computeReplication(ks, localDc);
    cache.set(ks, r);
  }
  return r;
}

/** Replicas per datacenter; LocalStrategy counts as one local replica. */
function computeReplication(ks: KeyspaceMetadata, localDc: string): Replication {
  const cls = ks.replication.class ?? '';
  if (cls.endsWith('SimpleStrategy')) {
    const rf = factor(ks.replication.replication_factor);
    return { total: rf, local: rf, perDc: new Map([[localDc, rf]]), nts: false };
  }
  if (cls.endsWith('NetworkTopologyStrategy')) {
    const perDc = new Map<string, number>();
    let total = 0;
    for (const [k, v] of Object.entries(ks.replication)) {
      if (k === 'class') continue;
      perDc.set(k, factor(v));
      total += factor(v);
    }
    return { total, local: perDc.get(localDc) ?? 0, perDc, nts: true };
  }
  return { total: 1, local: 1, perDc: new Map([[localDc, 1]]), nts: false };
}

/** Throws Unavailable (or InvalidRequest for a level that makes no sense here) when `cl` cannot be met. */
export function checkConsistency(cl: number, ks: KeyspaceMetadata, localDc: string, isWrite: boolean): void {
  // A write at SERIAL / LOCAL_SERIAL is refused by the statement, whose message depends on whether it is conditional
  // or on counters (validateWriteConsistency, checkConditionalConsistency).
  if (isWrite && isSerial(cl)) return;
  const { total, local, perDc, nts } = replication(ks, localDc);
  // This node holds every range; it is a replica when its datacenter has any (a keyspace naming only
  // other datacenters has no live replica here: every level but ANY is then Unavailable).
  const alive = local > 0 ? 1 : 0;
  let required: number;
  switch (cl) {
    case Consistency.ANY:
      if (!isWrite) throw new InvalidRequest('ANY ConsistencyLevel is only supported for writes');
      return;
    case Consistency.ONE:
    case Consistency.LOCAL_ONE:
      required = 1;
      break;
    case Consistency.TWO:
      required = 2;
      break;
    case Consistency.THREE:
      required = 3;
      break;
    case Consistency.QUORUM:
    case Consistency.SERIAL:
      required = Math.floor(total / 2) + 1;
      break;
    case Consistency.ALL:
      required = total;
      break;
    case Consistency.LOCAL_QUORUM:
    case Consistency.LOCAL_SERIAL:
      required = Math.floor(local / 2) + 1;
      break;
    case Consistency.EACH_QUORUM:
      // Reads and writes alike (reads at EACH_QUORUM exist since Cassandra 3.0). Other strategies fall
      // through to a plain QUORUM count, as in ReplicaPlans.assureSufficientLiveReplicas.
      if (!nts) {
        required = Math.floor(total / 2) + 1;
        break;
      }
      for (const [dc, rf] of perDc) {
        const need = Math.floor(rf / 2) + 1;
        const have = dc === localDc ? alive : 0;
        if (have < need) {
          throw new Unavailable(`Cannot achieve consistency level EACH_QUORUM in DC ${dc}`, cl, need, have);
        }
      }
      return;
    default:
      throw new InvalidRequest(`Unknown consistency level ${cl}`);
  }
  if (alive < required) {
    throw new Unavailable(`Cannot achieve consistency level ${consistencyName(cl)}`, cl, required, alive);
  }
}

/** SERIAL or LOCAL_SERIAL: a Paxos level. */
export function isSerial(cl: number): boolean {
  return cl === Consistency.SERIAL || cl === Consistency.LOCAL_SERIAL;
}

/** A write without conditions (ConsistencyLevel.validateForWrite / validateCounterForWrite). */
export function validateWriteConsistency(cl: number, counterTable?: string): void {
  if (counterTable !== undefined) {
    if (cl === Consistency.ANY) {
      throw new InvalidRequest(`Consistency level ANY is not yet supported for counter table ${counterTable}`);
    }
    if (isSerial(cl)) throw new InvalidRequest('Counter operations are inherently non-serializable');
  } else if (isSerial(cl)) {
    throw new InvalidRequest('You must use conditional updates for serializable writes');
  }
}

/**
 * A conditional statement or batch (Paxos): the serial level must be SERIAL or LOCAL_SERIAL and reach a quorum of
 * Paxos participants; EACH_QUORUM as commit level needs NetworkTopologyStrategy (ConsistencyLevel.validateForCas /
 * validateForCasCommit, ReplicaPlans.forPaxos in Cassandra 5.0); then the commit level must be met, Paxos's
 * Unavailable coming first as in StorageProxy.cas.
 */
export function checkConditionalConsistency(
  serial: number | undefined,
  commit: number,
  ks: KeyspaceMetadata,
  localDc: string,
): void {
  const cl = serial ?? Consistency.SERIAL;
  if (!isSerial(cl)) {
    throw new InvalidRequest('Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL');
  }
  if (isSerial(commit)) {
    throw new InvalidRequest(
      `${consistencyName(commit)} is not supported as conditional update commit consistency. Use ANY if you mean "make sure it is accepted but I don't care how many replicas commit it for non-SERIAL reads"`,
    );
  }
  if (commit === Consistency.EACH_QUORUM && !replication(ks, localDc).nts) {
    throw new InvalidRequest(
      `consistency level EACH_QUORUM not compatible with replication strategy (${ks.replication.class ?? ''})`,
    );
  }
  checkConsistency(cl, ks, localDc, false);
  checkConsistency(commit, ks, localDc, true);
}
