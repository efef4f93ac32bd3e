// Server configuration: a YAML file with Cassandra-like names, overridden by environment
// variables (PMEMCQL_<NAME>) and CLI flags. Invalid settings fail fast naming the key.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { networkInterfaces } from 'node:os';
import { resolve } from 'node:path';
import { DEFAULT_USER_FUNCTION_SETTINGS, type UserFunctionSettings } from '../cql/functions/user-function-settings.js';
import type { CommitLogOptions, CommitLogSync } from '../storage/native-pool.js';

/** The YAML parser, required only when a configuration file is given (it is a sizeable module to load at start-up). */
function parseYaml(text: string): unknown {
  const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml.parse(text);
}

export interface ServerConfig {
  cluster_name: string;
  listen_address: string;
  /** Address clients use; Cassandra's rpc_address. Defaults to listen_address. */
  rpc_address: string;
  native_transport_port: number;
  /** Directory holding the default pool file (data_file_directories[0] in Cassandra). */
  data_file_directories: string[];
  /** Explicit pool file path; default `<data_file_directories[0]>/pmemcql.pool`. */
  pool_path: string | undefined;
  /** Pool size in bytes (accepts "1GiB", "512MiB"). */
  pool_size: number;
  data_center: string;
  rack: string;
  num_tokens: number;
  authenticator: 'AllowAllAuthenticator' | 'PasswordAuthenticator';
  authorizer: 'AllowAllAuthorizer' | 'CassandraAuthorizer';
  native_transport_max_frame_size: number;
  native_transport_max_requests_per_connection: number;
  native_transport_max_concurrent_connections: number;
  native_transport_max_concurrent_connections_per_ip: number;
  /** Bytes of requests in flight (all clients / one client address) before reading pauses. */
  native_transport_max_request_data_in_flight: number;
  native_transport_max_request_data_in_flight_per_ip: number;
  log_level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
  /** Prometheus endpoint port (/metrics, /ready); -1 disables it. */
  metrics_port: number;
  // ---- commit log (Cassandra's names and units; see the block "commitlog_sync" below)
  /** When a write to a disk pool is acknowledged and when it is power-safe (storage/native-pool.ts CommitLogSync). */
  commitlog_sync: CommitLogSync;
  /** periodic: fdatasync of the journal at least this often, ms. undefined: not set (10000ms). */
  commitlog_sync_period: number | undefined;
  /** group: at most one fdatasync per window, ms. undefined: not set (DEFAULT_GROUP_WINDOW_MS). */
  commitlog_sync_group_window: number | undefined;
  /** periodic: once the last sync started this long ago, writes wait for the next one, ms. undefined: 1.5 x period. */
  periodic_commitlog_sync_lag_block: number | undefined;
  // ---- end commit log
  /** Client TLS, as Cassandra's client_encryption_options with PEM files. */
  client_encryption_options: ClientEncryptionOptions;
  // ---- user-defined functions (Cassandra 5.0's names; docs/user-defined-functions.md)
  user_defined_functions_enabled: boolean;
  /** LANGUAGE javascript as well as java. */
  scripted_user_defined_functions_enabled: boolean;
  /** Accepted for cassandra.yaml compatibility: functions always run in the sandbox, with their timeouts. */
  user_defined_functions_threads_enabled: boolean;
  /** Milliseconds (accepts "500ms", "2s"). */
  user_defined_functions_warn_timeout: number;
  user_defined_functions_fail_timeout: number;
  user_function_timeout_policy: 'die' | 'die_immediate' | 'ignore';
  /** Bytes of memory of one function's sandbox isolate. */
  user_defined_functions_memory_limit: number;
}

// ---- client_encryption_options
export interface ClientEncryptionOptions {
  enabled: boolean;
  /** Plain and TLS connections on the same port (TLS detected by its first byte). */
  optional: boolean;
  /** PEM file with the server certificate chain (and its private key unless `private_key` is given). */
  keystore: string | undefined;
  /** Passphrase of an encrypted private key. */
  keystore_password: string | undefined;
  /** PEM file with the private key, when not inside `keystore`. */
  private_key: string | undefined;
  require_client_auth: boolean;
  /** PEM file with the CA certificates that sign client certificates. */
  truststore: string | undefined;
  /** Lowest TLS version accepted: TLSv1.2 (default) or TLSv1.3. */
  protocol: 'TLSv1.2' | 'TLSv1.3';
}

export const DEFAULT_CLIENT_ENCRYPTION_OPTIONS: ClientEncryptionOptions = {
  enabled: false,
  optional: false,
  keystore: undefined,
  keystore_password: undefined,
  private_key: undefined,
  require_client_auth: false,
  truststore: undefined,
  protocol: 'TLSv1.2',
};

function parseBoolean(key: string, v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  throw new ConfigError(key, `expected true or false, got ${JSON.stringify(v)}`);
}

function parseClientEncryption(v: unknown): ClientEncryptionOptions {
  const key = 'client_encryption_options';
  let o = v;
  if (typeof o === 'string') {
    try {
      o = JSON.parse(o);
    } catch {
      throw new ConfigError(key, 'expected a mapping (or its JSON in the environment)');
    }
  }
  if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new ConfigError(key, 'expected a mapping');
  const out: ClientEncryptionOptions = { ...DEFAULT_CLIENT_ENCRYPTION_OPTIONS };
  for (const [k, value] of Object.entries(o as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    const name = `${key}.${k}`;
    switch (k) {
      case 'enabled':
      case 'optional':
      case 'require_client_auth':
        out[k] = parseBoolean(name, value);
        break;
      case 'keystore':
      case 'keystore_password':
      case 'private_key':
      case 'truststore':
        out[k] = parseString(name, value);
        break;
      case 'protocol':
        out.protocol = parseChoice(name, value, ['TLSv1.2', 'TLSv1.3'] as const);
        break;
      default:
        throw new ConfigError(name, 'unknown setting');
    }
  }
  if (out.enabled && !out.keystore) throw new ConfigError(`${key}.keystore`, 'required when enabled is true');
  if (out.require_client_auth && out.enabled && !out.truststore) {
    throw new ConfigError(`${key}.truststore`, 'required when require_client_auth is true');
  }
  return out;
}
// ---- end client_encryption_options

// ---- commitlog_sync: Cassandra's commit log vocabulary for the journal of disk pools (docs/storage-native.md,
// "Durability of disk pools"). Durations as Cassandra writes them ("10000ms", "10s"; milliseconds at least), the
// pre-4.1 `_in_ms` names as plain integers; combinations Cassandra refuses are refused here too.

/** commitlog_sync_period when not set: Cassandra's. */
export const DEFAULT_SYNC_PERIOD_MS = 10_000;
/**
 * commitlog_sync_group_window when not set. Cassandra's yaml suggests 1000ms, which caps a client with 64 writes in
 * flight at 64 writes/s; an fdatasync costs ~0.2 ms here, so one per millisecond keeps the disk well below busy
 * while a write waits half a millisecond for its sync on average (docs/storage-native.md).
 */
export const DEFAULT_GROUP_WINDOW_MS = 1;

const DURATION = /^(\d+)(d|h|m|s|ms|us|µs|ns)$/;
const DURATION_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** A Cassandra duration with milliseconds as the smallest unit ("10000ms", "10s", "1m"), in ms. */
function parseDurationMs(key: string, v: unknown): number {
  const m = typeof v === 'string' ? DURATION.exec(v) : null;
  const unit = m ? DURATION_MS[m[2]!] : undefined;
  if (!m || unit === undefined) {
    throw new ConfigError(
      key,
      `expected a duration such as "10000ms" or "10s" (units ms, s, m, h, d; a number needs its unit), got ${JSON.stringify(v)}`,
    );
  }
  const ms = Number(m[1]) * unit;
  if (ms > 2 ** 31 - 1) throw new ConfigError(key, `${String(v)} is more than 2147483647ms`);
  return ms;
}

/** The pre-4.1 names (`commitlog_sync_period_in_ms: 10000`): an integer number of milliseconds. */
function parseLegacyMs(key: string, v: unknown): number {
  return parseInteger(key, v, 0, 2 ** 31 - 1);
}

/** Settings accepted under another name, or refused with a message naming their replacement. */
const COMMIT_LOG_ALIASES: Record<string, Setter> = {
  commitlog_sync_period_in_ms: (c, v) => {
    c.commitlog_sync_period = parseLegacyMs('commitlog_sync_period_in_ms', v);
  },
  commitlog_sync_group_window_in_ms: (c, v) => {
    c.commitlog_sync_group_window = parseLegacyMs('commitlog_sync_group_window_in_ms', v);
  },
  periodic_commitlog_sync_lag_block_in_ms: (c, v) => {
    c.periodic_commitlog_sync_lag_block = parseLegacyMs('periodic_commitlog_sync_lag_block_in_ms', v);
  },
  disk_sync: (_c, v) => {
    throw new ConfigError(
      'disk_sync',
      `was replaced by commitlog_sync (got ${JSON.stringify(v)}): commitlog_sync: batch acknowledges a write once it ` +
        'is on disk (as disk_sync ranges and journal did), periodic (the default) once it is safe from a process ' +
        'crash, power-safe within commitlog_sync_period (as disk_sync commit, but without tearing the pool)',
    );
  },
};

/** Cross-checks of the commit log settings, as Cassandra's DatabaseDescriptor makes them. */
function checkCommitLog(c: ServerConfig): void {
  if (c.commitlog_sync === 'batch' && c.commitlog_sync_period !== undefined) {
    throw new ConfigError('commitlog_sync_period', 'Batch sync specified, but commitlog_sync_period found');
  }
  if (c.commitlog_sync === 'group' && c.commitlog_sync_period !== undefined) {
    throw new ConfigError(
      'commitlog_sync_period',
      'Group sync specified, but commitlog_sync_period found. Only specify commitlog_sync_group_window when using group sync',
    );
  }
  if (c.commitlog_sync === 'group' && c.commitlog_sync_group_window === 0) {
    throw new ConfigError('commitlog_sync_group_window', 'must be positive with commitlog_sync: group');
  }
  if (c.commitlog_sync === 'periodic' && c.commitlog_sync_period === 0) {
    throw new ConfigError('commitlog_sync_period', 'must be positive with commitlog_sync: periodic');
  }
}

/** The commit log settings in force, defaults filled in. */
export function commitLogOptions(c: ServerConfig): CommitLogOptions {
  const periodMs = c.commitlog_sync_period ?? DEFAULT_SYNC_PERIOD_MS;
  return {
    sync: c.commitlog_sync,
    periodMs,
    groupWindowMs: c.commitlog_sync_group_window ?? DEFAULT_GROUP_WINDOW_MS,
    lagBlockMs: c.periodic_commitlog_sync_lag_block ?? Math.round(periodMs * 1.5),
  };
}
// ---- end commitlog_sync

export const DEFAULT_CONFIG: ServerConfig = {
  cluster_name: 'Test Cluster',
  listen_address: '127.0.0.1',
  rpc_address: '',
  native_transport_port: 9042,
  data_file_directories: ['./data'],
  pool_path: undefined,
  pool_size: 1024 * 1024 * 1024,
  data_center: 'datacenter1',
  rack: 'rack1',
  num_tokens: 16,
  authenticator: 'AllowAllAuthenticator',
  authorizer: 'AllowAllAuthorizer',
  native_transport_max_frame_size: 16 * 1024 * 1024,
  native_transport_max_requests_per_connection: 2048,
  native_transport_max_concurrent_connections: -1,
  native_transport_max_concurrent_connections_per_ip: -1,
  native_transport_max_request_data_in_flight: 256 * 1024 * 1024,
  native_transport_max_request_data_in_flight_per_ip: 64 * 1024 * 1024,
  log_level: 'info',
  metrics_port: 9180,
  commitlog_sync: 'periodic',
  commitlog_sync_period: undefined,
  commitlog_sync_group_window: undefined,
  periodic_commitlog_sync_lag_block: undefined,
  client_encryption_options: DEFAULT_CLIENT_ENCRYPTION_OPTIONS,
  user_defined_functions_enabled: DEFAULT_USER_FUNCTION_SETTINGS.enabled,
  scripted_user_defined_functions_enabled: DEFAULT_USER_FUNCTION_SETTINGS.scriptedEnabled,
  user_defined_functions_threads_enabled: true,
  user_defined_functions_warn_timeout: DEFAULT_USER_FUNCTION_SETTINGS.warnTimeoutMs,
  user_defined_functions_fail_timeout: DEFAULT_USER_FUNCTION_SETTINGS.failTimeoutMs,
  user_function_timeout_policy: DEFAULT_USER_FUNCTION_SETTINGS.timeoutPolicy,
  user_defined_functions_memory_limit: DEFAULT_USER_FUNCTION_SETTINGS.memoryLimitBytes,
};

/** Cassandra's deprecated names (its @Replaces) that cassandra.yaml files still use, with their converters. */
const RENAMED: Record<string, { name: keyof ServerConfig; convert?: (v: unknown) => unknown }> = {
  enable_user_defined_functions: { name: 'user_defined_functions_enabled' },
  enable_scripted_user_defined_functions: { name: 'scripted_user_defined_functions_enabled' },
  enable_user_defined_functions_threads: { name: 'user_defined_functions_threads_enabled' },
  // The old timeouts were plain milliseconds.
  user_defined_function_warn_timeout: { name: 'user_defined_functions_warn_timeout', convert: (v) => `${v}ms` },
  user_defined_function_fail_timeout: { name: 'user_defined_functions_fail_timeout', convert: (v) => `${v}ms` },
};

export class ConfigError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`Invalid configuration for '${key}': ${message}`);
    this.name = 'ConfigError';
  }
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
  tib: 1024 ** 4,
};

function parseSize(key: string, v: unknown): number {
  if (typeof v === 'number' && Number.isFinite(v) && v > 0) return Math.floor(v);
  if (typeof v === 'string') {
    const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(v);
    const unit = m ? SIZE_UNITS[m[2]!.toLowerCase()] : undefined;
    if (m && unit !== undefined) return Math.floor(Number(m[1]) * unit);
  }
  throw new ConfigError(key, `expected a size such as 1073741824, "1GiB" or "512MiB", got ${JSON.stringify(v)}`);
}

const DURATION_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** Cassandra's DurationSpec ("500ms", "2s", "1h"); a bare number is milliseconds. Whole milliseconds. */
function parseMillis(key: string, v: unknown): number {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  if (typeof v === 'string') {
    const m = /^\s*(\d+)\s*([a-zµ]*)\s*$/i.exec(v);
    const unit = m ? (m[2] === '' ? 1 : DURATION_UNITS[m[2]!.toLowerCase()]) : undefined;
    if (m && unit !== undefined) {
      const ms = Number(m[1]) * unit;
      if (Number.isInteger(ms)) return ms;
    }
  }
  throw new ConfigError(
    key,
    `expected a duration such as "500ms", "2s" or a number of milliseconds, got ${JSON.stringify(v)}`,
  );
}

function parseInteger(key: string, v: unknown, min: number, max: number): number {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(key, `expected an integer between ${min} and ${max}, got ${JSON.stringify(v)}`);
  }
  return n;
}

function parseString(key: string, v: unknown): string {
  if (typeof v !== 'string' || v === '')
    throw new ConfigError(key, `expected a non-empty string, got ${JSON.stringify(v)}`);
  return v;
}

function parseChoice<T extends string>(key: string, v: unknown, choices: readonly T[]): T {
  // Cassandra accepts fully qualified class names too.
  const s = typeof v === 'string' ? v.replace(/^org\.apache\.cassandra\.auth\./, '') : v;
  if (typeof s !== 'string' || !choices.includes(s as T)) {
    throw new ConfigError(key, `expected one of ${choices.join(', ')}, got ${JSON.stringify(v)}`);
  }
  return s as T;
}

type Setter = (c: ServerConfig, v: unknown) => void;
const SETTERS: Record<keyof ServerConfig, Setter> = {
  cluster_name: (c, v) => {
    c.cluster_name = parseString('cluster_name', v);
  },
  listen_address: (c, v) => {
    c.listen_address = parseString('listen_address', v);
  },
  rpc_address: (c, v) => {
    c.rpc_address = parseString('rpc_address', v);
  },
  native_transport_port: (c, v) => {
    c.native_transport_port = parseInteger('native_transport_port', v, 0, 65535);
  },
  data_file_directories: (c, v) => {
    const list = typeof v === 'string' ? [v] : v;
    if (!Array.isArray(list) || list.length === 0 || !list.every((d) => typeof d === 'string' && d !== '')) {
      throw new ConfigError('data_file_directories', `expected a list of directories, got ${JSON.stringify(v)}`);
    }
    c.data_file_directories = list as string[];
  },
  pool_path: (c, v) => {
    c.pool_path = parseString('pool_path', v);
  },
  pool_size: (c, v) => {
    c.pool_size = parseSize('pool_size', v);
    if (c.pool_size < 8 * 1024 * 1024) throw new ConfigError('pool_size', 'must be at least 8MiB (PMDK minimum)');
  },
  data_center: (c, v) => {
    c.data_center = parseString('data_center', v);
  },
  rack: (c, v) => {
    c.rack = parseString('rack', v);
  },
  num_tokens: (c, v) => {
    c.num_tokens = parseInteger('num_tokens', v, 1, 1024);
  },
  authenticator: (c, v) => {
    c.authenticator = parseChoice('authenticator', v, ['AllowAllAuthenticator', 'PasswordAuthenticator'] as const);
  },
  authorizer: (c, v) => {
    c.authorizer = parseChoice('authorizer', v, ['AllowAllAuthorizer', 'CassandraAuthorizer'] as const);
  },
  native_transport_max_frame_size: (c, v) => {
    c.native_transport_max_frame_size = parseSize('native_transport_max_frame_size', v);
  },
  native_transport_max_requests_per_connection: (c, v) => {
    c.native_transport_max_requests_per_connection = parseInteger(
      'native_transport_max_requests_per_connection',
      v,
      1,
      32768,
    );
  },
  native_transport_max_concurrent_connections_per_ip: (c, v) => {
    c.native_transport_max_concurrent_connections_per_ip = parseInteger(
      'native_transport_max_concurrent_connections_per_ip',
      v,
      -1,
      1_000_000,
    );
  },
  native_transport_max_concurrent_connections: (c, v) => {
    c.native_transport_max_concurrent_connections = parseInteger(
      'native_transport_max_concurrent_connections',
      v,
      -1,
      1_000_000,
    );
  },
  native_transport_max_request_data_in_flight: (c, v) => {
    c.native_transport_max_request_data_in_flight = parseSize('native_transport_max_request_data_in_flight', v);
  },
  native_transport_max_request_data_in_flight_per_ip: (c, v) => {
    c.native_transport_max_request_data_in_flight_per_ip = parseSize(
      'native_transport_max_request_data_in_flight_per_ip',
      v,
    );
  },
  commitlog_sync: (c, v) => {
    c.commitlog_sync = parseChoice('commitlog_sync', v, ['periodic', 'group', 'batch'] as const);
  },
  commitlog_sync_period: (c, v) => {
    c.commitlog_sync_period = parseDurationMs('commitlog_sync_period', v);
  },
  commitlog_sync_group_window: (c, v) => {
    c.commitlog_sync_group_window = parseDurationMs('commitlog_sync_group_window', v);
  },
  periodic_commitlog_sync_lag_block: (c, v) => {
    c.periodic_commitlog_sync_lag_block = parseDurationMs('periodic_commitlog_sync_lag_block', v);
  },
  metrics_port: (c, v) => {
    c.metrics_port = parseInteger('metrics_port', v, -1, 65535);
  },
  log_level: (c, v) => {
    c.log_level = parseChoice('log_level', v, ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const);
  },
  client_encryption_options: (c, v) => {
    c.client_encryption_options = parseClientEncryption(v);
  },
  user_defined_functions_enabled: (c, v) => {
    c.user_defined_functions_enabled = parseBoolean('user_defined_functions_enabled', v);
  },
  scripted_user_defined_functions_enabled: (c, v) => {
    c.scripted_user_defined_functions_enabled = parseBoolean('scripted_user_defined_functions_enabled', v);
  },
  user_defined_functions_threads_enabled: (c, v) => {
    c.user_defined_functions_threads_enabled = parseBoolean('user_defined_functions_threads_enabled', v);
  },
  user_defined_functions_warn_timeout: (c, v) => {
    c.user_defined_functions_warn_timeout = parseMillis('user_defined_functions_warn_timeout', v);
  },
  user_defined_functions_fail_timeout: (c, v) => {
    c.user_defined_functions_fail_timeout = parseMillis('user_defined_functions_fail_timeout', v);
    if (c.user_defined_functions_fail_timeout < 1)
      throw new ConfigError('user_defined_functions_fail_timeout', 'must be at least 1ms');
  },
  user_function_timeout_policy: (c, v) => {
    c.user_function_timeout_policy = parseChoice('user_function_timeout_policy', v, [
      'die',
      'die_immediate',
      'ignore',
    ] as const);
  },
  user_defined_functions_memory_limit: (c, v) => {
    c.user_defined_functions_memory_limit = parseSize('user_defined_functions_memory_limit', v);
    // The engine's WebAssembly instance starts with 16 MiB (static data, stack, first heap) within the limit.
    if (c.user_defined_functions_memory_limit < 20 * 1024 * 1024)
      throw new ConfigError('user_defined_functions_memory_limit', 'must be at least 20MiB');
  },
};

/** Applies `settings` (from YAML, env or flags) onto `config`, rejecting unknown keys. */
export function applySettings(config: ServerConfig, settings: Record<string, unknown>, origin: string): void {
  for (const [given, raw] of Object.entries(settings)) {
    if (raw === undefined || raw === null) continue;
    const renamed = RENAMED[given];
    const key = renamed?.name ?? given;
    const value = renamed?.convert ? renamed.convert(raw) : raw;
    const setter = SETTERS[key as keyof ServerConfig] ?? COMMIT_LOG_ALIASES[given];
    if (!setter) throw new ConfigError(given, `unknown setting (in ${origin})`);
    setter(config, value);
  }
}

/** The user-defined function settings of a configuration, as cql/ takes them. */
export function userFunctionSettings(config: ServerConfig): UserFunctionSettings {
  return {
    enabled: config.user_defined_functions_enabled,
    scriptedEnabled: config.scripted_user_defined_functions_enabled,
    warnTimeoutMs: config.user_defined_functions_warn_timeout,
    failTimeoutMs: config.user_defined_functions_fail_timeout,
    timeoutPolicy: config.user_function_timeout_policy,
    memoryLimitBytes: config.user_defined_functions_memory_limit,
  };
}

export interface ConfigSources {
  /** Path of the YAML file, if any. */
  file?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Settings from CLI flags, already keyed by setting name. */
  flags?: Record<string, unknown>;
}

export function loadConfig(sources: ConfigSources = {}): ServerConfig {
  const config: ServerConfig = { ...DEFAULT_CONFIG, data_file_directories: [...DEFAULT_CONFIG.data_file_directories] };
  if (sources.file) {
    let parsed: unknown;
    try {
      parsed = parseYaml(readFileSync(sources.file, 'utf8'));
    } catch (e) {
      throw new ConfigError('config', `cannot read ${sources.file}: ${(e as Error).message}`);
    }
    if (parsed !== null && parsed !== undefined) {
      if (typeof parsed !== 'object' || Array.isArray(parsed)) {
        throw new ConfigError('config', `${sources.file} must hold a mapping of settings`);
      }
      applySettings(config, parsed as Record<string, unknown>, sources.file);
    }
  }
  const env = sources.env ?? {};
  const fromEnv: Record<string, unknown> = {};
  for (const key of [...Object.keys(SETTERS), ...Object.keys(RENAMED), ...Object.keys(COMMIT_LOG_ALIASES)]) {
    const v = env[`PMEMCQL_${key.toUpperCase()}`];
    if (v !== undefined) fromEnv[key] = key === 'data_file_directories' ? v.split(',') : v;
  }
  applySettings(config, fromEnv, 'environment');
  applySettings(config, sources.flags ?? {}, 'command line');
  if (!config.rpc_address) config.rpc_address = config.listen_address;
  checkCommitLog(config);
  if (config.user_defined_functions_warn_timeout > config.user_defined_functions_fail_timeout)
    throw new ConfigError(
      'user_defined_functions_warn_timeout',
      `must not be longer than user_defined_functions_fail_timeout (${config.user_defined_functions_fail_timeout}ms)`,
    );
  return config;
}

/**
 * The address clients are told to use (system.local rpc_address). A wildcard listen address is not
 * routable, so, like Cassandra's broadcast_rpc_address, it is replaced by this host's first external
 * IPv4 address (or loopback).
 */
export function advertisedRpcAddress(config: ServerConfig): string {
  const a = config.rpc_address;
  if (a !== '0.0.0.0' && a !== '::') return a;
  for (const list of Object.values(networkInterfaces())) {
    for (const i of list ?? []) if (i.family === 'IPv4' && !i.internal) return i.address;
  }
  return '127.0.0.1';
}

/** The pool file the server opens. */
export function poolPath(config: ServerConfig): string {
  return resolve(config.pool_path ?? `${config.data_file_directories[0]}/pmemcql.pool`);
}
