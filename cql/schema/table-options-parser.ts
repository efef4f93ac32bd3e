// WITH properties of CREATE/ALTER TABLE -> TableOptions, with Cassandra's validation messages.

import { ConfigurationError, SyntaxError } from '../errors.js';
import type { Properties, PropertyValue } from '../parser/ast.js';
import type { TableOptions } from './table-options.js';

const COMPACTION_PACKAGE = 'org.apache.cassandra.db.compaction.';
const COMPRESSION_PACKAGE = 'org.apache.cassandra.io.compress.';

function simple(name: string, v: PropertyValue): string {
  if (v.kind !== 'simple') throw new SyntaxError(`Invalid value for property '${name}'. It should be a string`);
  return v.value;
}

function map(name: string, v: PropertyValue): Map<string, string> {
  if (v.kind !== 'map') throw new SyntaxError(`Invalid value for property '${name}'. It should be a map.`);
  return new Map(v.entries);
}

function double(name: string, v: PropertyValue): number {
  const s = simple(name, v);
  const n = Number(s);
  if (s.trim() === '' || Number.isNaN(n)) throw new SyntaxError(`Invalid double value ${s} for '${name}'`);
  return n;
}

function int(name: string, v: PropertyValue): number {
  const s = simple(name, v);
  if (!/^-?\d+$/.test(s.trim())) throw new SyntaxError(`Invalid integer value ${s} for '${name}'`);
  return Number(s);
}

function bool(name: string, v: PropertyValue): boolean {
  const s = simple(name, v).toLowerCase();
  if (s !== 'true' && s !== 'false') throw new SyntaxError(`Invalid boolean value ${simple(name, v)} for '${name}'`);
  return s === 'true';
}

function qualify(cls: string, pkg: string): string {
  return cls.includes('.') ? cls : pkg + cls;
}

function speculative(name: string, v: PropertyValue): string {
  const s = simple(name, v).trim();
  const upper = s.toUpperCase();
  if (upper === 'ALWAYS' || upper === 'NEVER' || upper === 'NONE') return upper === 'NONE' ? 'NEVER' : upper;
  const pct = /^(\d+(?:\.\d+)?)(?:P|PERCENTILE)$/i.exec(s);
  if (pct) return `${pct[1]}p`;
  const ms = /^(\d+(?:\.\d+)?)ms$/i.exec(s);
  if (ms) return `${ms[1]}ms`;
  if (/^(MIN|MAX)\(.*\)$/i.test(s)) return s;
  throw new ConfigurationError(`Invalid value ${s} for option '${name}'`);
}

/** Applies `properties` onto a copy of `base`. Returns the options and an explicit table id if `ID` was given. */
export function applyTableProperties(
  base: TableOptions,
  properties: Properties,
  allowId: boolean,
): { options: TableOptions; id: string | undefined } {
  const o: TableOptions = {
    ...base,
    caching: { ...base.caching },
    compaction: { ...base.compaction },
    compression: { ...base.compression },
    extensions: { ...base.extensions },
  };
  let id: string | undefined;
  for (const [name, v] of properties) {
    switch (name) {
      case 'comment':
        o.comment = simple(name, v);
        break;
      case 'bloom_filter_fp_chance': {
        const n = double(name, v);
        if (n <= 0 || n > 1) {
          throw new ConfigurationError(
            `bloom_filter_fp_chance must be larger than 0.0 and less than or equal to 1.0 (got ${n})`,
          );
        }
        o.bloom_filter_fp_chance = n;
        break;
      }
      case 'crc_check_chance': {
        const n = double(name, v);
        if (n < 0 || n > 1) throw new ConfigurationError(`crc_check_chance must be between 0.0 and 1.0 (got ${n})`);
        o.crc_check_chance = n;
        break;
      }
      case 'default_time_to_live': {
        const n = int(name, v);
        if (n < 0) throw new ConfigurationError(`default_time_to_live must be greater than or equal to 0 (got ${n})`);
        if (n > 630720000) {
          throw new ConfigurationError(`default_time_to_live must be less than or equal to 630720000 (got ${n})`);
        }
        o.default_time_to_live = n;
        break;
      }
      case 'gc_grace_seconds': {
        const n = int(name, v);
        if (n < 0) throw new ConfigurationError(`gc_grace_seconds must be greater than or equal to 0 (got ${n})`);
        o.gc_grace_seconds = n;
        break;
      }
      case 'memtable_flush_period_in_ms':
        o.memtable_flush_period_in_ms = int(name, v);
        break;
      case 'min_index_interval':
        o.min_index_interval = int(name, v);
        break;
      case 'max_index_interval':
        o.max_index_interval = int(name, v);
        break;
      case 'caching': {
        const m = map(name, v);
        o.caching = {
          keys: (m.get('keys') ?? 'ALL').toUpperCase(),
          rows_per_partition: (m.get('rows_per_partition') ?? 'NONE').toUpperCase(),
        };
        break;
      }
      case 'compaction': {
        const m = map(name, v);
        const cls = m.get('class');
        if (!cls) throw new ConfigurationError("Missing sub-option 'class' for the 'compaction' option.");
        const c: Record<string, string> = { class: qualify(cls, COMPACTION_PACKAGE) };
        if (c.class!.endsWith('SizeTieredCompactionStrategy')) {
          c.max_threshold = '32';
          c.min_threshold = '4';
        }
        for (const [k, val] of m) if (k !== 'class') c[k] = val;
        o.compaction = c;
        break;
      }
      case 'compression': {
        const m = map(name, v);
        if (m.get('enabled') === 'false') {
          o.compression = { enabled: 'false' };
          break;
        }
        const cls = m.get('class') ?? m.get('sstable_compression') ?? 'LZ4Compressor';
        const c: Record<string, string> = {
          chunk_length_in_kb: m.get('chunk_length_in_kb') ?? '16',
          class: qualify(cls, COMPRESSION_PACKAGE),
        };
        for (const [k, val] of m) if (k !== 'class' && k !== 'chunk_length_in_kb' && k !== 'enabled') c[k] = val;
        o.compression = c;
        break;
      }
      case 'speculative_retry':
        o.speculative_retry = speculative(name, v);
        break;
      case 'additional_write_policy':
        o.additional_write_policy = speculative(name, v);
        break;
      case 'read_repair': {
        const s = simple(name, v).toUpperCase();
        if (s !== 'BLOCKING' && s !== 'NONE')
          throw new ConfigurationError(`Invalid value ${s} for option 'read_repair'`);
        o.read_repair = s;
        break;
      }
      case 'cdc':
        o.cdc = bool(name, v);
        break;
      case 'incremental_backups':
        o.incremental_backups = bool(name, v);
        break;
      case 'allow_auto_snapshot':
        o.allow_auto_snapshot = bool(name, v);
        break;
      case 'memtable':
        o.memtable = simple(name, v);
        break;
      case 'extensions': {
        const m = map(name, v);
        o.extensions = Object.fromEntries([...m].map(([k, val]) => [k, Buffer.from(val.replace(/^0x/i, ''), 'hex')]));
        break;
      }
      case 'id':
        if (!allowId) throw new ConfigurationError('Cannot alter table id.');
        id = simple(name, v).toLowerCase();
        if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) {
          throw new ConfigurationError('Invalid table id');
        }
        break;
      // Removed in 4.0 but still sent by old tools; accepted and ignored like read_repair_chance.
      case 'dclocal_read_repair_chance':
      case 'read_repair_chance':
        break;
      default:
        throw new SyntaxError(`Unknown property '${name}'`);
    }
  }
  return { options: o, id };
}
