// The server process: configuration, storage, schema, CQL handler, native transport, signals, metrics.
// Started by main.ts (the entry point), from the single-file build or from this module graph.

import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Command } from 'commander';
import { AccessControl } from '../cql/auth/access-control.js';
import { catalogTwinSchemaSource } from '../cql/columnar/twin-schema-source.js';
import { CqlQueryHandler } from '../cql/cql-query-handler.js';
import type { ExecutionContext } from '../cql/execution/cql-statement.js';
import { SchemaStore } from '../cql/execution/schema-store.js';
import { UserFunctionRuntime } from '../cql/functions/user-function-runtime.js';
import { parseStatement } from '../cql/parser/parser.js';
import { SchemaCatalog } from '../cql/schema/schema-catalog.js';
import { registerArrowSystemTables } from '../cql/system/arrow-system-tables.js';
import { evenTokens, type NodeInfo, RELEASE_VERSION } from '../cql/system/node-info.js';
import { sizeEstimateRows } from '../cql/system/size-estimates.js';
import { buildSystemKeyspaces } from '../cql/system/system-keyspaces.js';
import { SystemRows } from '../cql/system/system-rows.js';
import type { RowObject } from '../cql/system/virtual-table.js';
import { TraceStore } from '../cql/tracing/trace-store.js';
import { ViewBuilds } from '../cql/views/view-build-status.js';
import { PoolError } from '../storage/native-pool.js';
import { StorageEngine } from '../storage/storage-engine.js';
import { FlushThreadClient } from '../storage/twin/flush-thread-client.js';
import { twinOptionsFromEnv } from '../storage/twin/twin-options-env.js';
import { PasswordAuthenticator } from './auth/password-authenticator.js';
import { idleBackgroundThreads } from './background-threads.js';
import { clientRows } from './client-rows.js';
import {
  advertisedRpcAddress,
  ConfigError,
  commitLogOptions,
  loadConfig,
  poolPath,
  type ServerConfig,
  userFunctionSettings,
} from './config.js';
import { durabilityFields, logPoolRecovery } from './durability-log.js';
import { HandlerSlot } from './handler-slot.js';
import { heapFloorMb } from './heap-floor.js';
import { createLogger } from './logger.js';
import type { MetricsSetup } from './metrics-setup.js';
import { NativeServer } from './native-server.js';
import { watchStarvedThreads } from './starved-thread-watch.js';
import { type TlsSettings, tlsSettings } from './tls-options.js';

const PROTOCOL_VERSIONS = ['3/v3', '4/v4', '5/v5'];

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

function parseArgs(argv: string[]): { file: string | undefined; flags: Record<string, unknown> } {
  const program = new Command()
    .name('pmemcql')
    .description('Cassandra-compatible CQL server on a persistent-memory tree')
    .version(packageVersion())
    .option('-c, --config <file>', 'YAML configuration file (Cassandra-like names)')
    .option('--listen-address <address>', 'address to listen on (listen_address)')
    .option('-p, --port <port>', 'native transport port (native_transport_port)')
    .option('-d, --data <dir>', 'data directory holding the pool (data_file_directories)')
    .option('--pool-path <file>', 'explicit pool file, e.g. on a DAX filesystem or /dev/shm (pool_path)')
    .option('--pool-size <size>', 'pool size when created, e.g. 4GiB (pool_size)')
    .option('--cluster-name <name>', 'cluster_name')
    .option('--log-level <level>', 'trace|debug|info|warn|error')
    .option('--metrics-port <port>', 'Prometheus endpoint port, -1 to disable (metrics_port)');
  program.parse(argv);
  const o = program.opts<Record<string, string | undefined>>();
  return {
    file: o.config,
    flags: {
      listen_address: o.listenAddress,
      native_transport_port: o.port,
      data_file_directories: o.data ? [o.data] : undefined,
      pool_path: o.poolPath,
      pool_size: o.poolSize,
      cluster_name: o.clusterName,
      log_level: o.logLevel,
      metrics_port: o.metricsPort,
    },
  };
}

/** How the code was loaded (main.ts): the single-file build, or the tsc output module by module. */
export type ServerBuild = 'bundle' | 'modules';

export async function runServer(build: ServerBuild): Promise<void> {
  let config: ServerConfig;
  try {
    const args = parseArgs(process.argv);
    config = loadConfig({ file: args.file, env: process.env, flags: args.flags });
    // As Cassandra's DatabaseDescriptor.applyAuth.
    if (config.authenticator === 'AllowAllAuthenticator' && config.authorizer !== 'AllowAllAuthorizer') {
      throw new ConfigError('authorizer', `AllowAllAuthenticator can't be used with ${config.authorizer}`);
    }
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
  const logger = createLogger(config.log_level);
  let tls: TlsSettings | undefined;
  try {
    tls = tlsSettings(config.client_encryption_options);
  } catch (e) {
    console.error((e as Error).message);
    process.exit(2);
  }
  const path = poolPath(config);
  mkdirSync(dirname(path), { recursive: true });

  const twinOptions = twinOptionsFromEnv(process.env);
  // PMEMCQL_IDLE_THREADS=off (read with the twin's options: it switches the flush thread too) keeps them all as is.
  const background = twinOptions.flushThreadIdle === false ? undefined : idleBackgroundThreads();
  // Idle threads that other processes starve of CPU go back to SCHED_OTHER for a while (PMEMCQL_IDLE_LIFT=off: never).
  const starvedWatch =
    background && process.env.PMEMCQL_IDLE_LIFT !== 'off'
      ? watchStarvedThreads({
          everyMs: 250,
          starvedMs: 100,
          holdMs: 10_000,
          skip: () => {
            const flushThread = FlushThreadClient.idleThreadId();
            return flushThread === undefined ? [] : [flushThread];
          },
          logger,
        })
      : undefined;
  const openStart = performance.now();
  const commitLog = commitLogOptions(config);
  const storage = StorageEngine.open({
    path,
    size: config.pool_size,
    twin: twinOptions,
    commitLog,
    onOpenProgress: (step, done, total) =>
      logger.info(
        { pool: path, step, done_mib: Math.round(done / 2 ** 20), of_mib: Math.round(total / 2 ** 20) },
        'opening pool',
      ),
  });
  const openMs = performance.now() - openStart;
  logPoolRecovery(logger, storage.info);
  // Page faults on the pool cost the event loop's writes ~15 µs each on a VM (docs/storage-native.md, "Prefault");
  // PMEMCQL_PREFAULT=off leaves them to the writes.
  const prefault = process.env.PMEMCQL_PREFAULT !== 'off' && storage.startPrefault(background !== undefined);

  const catalog = new SchemaCatalog();
  for (const ks of buildSystemKeyspaces()) catalog.putKeyspace(ks, true);
  const schemaStore = new SchemaStore(storage, catalog);
  const userKeyspaces = schemaStore.load();
  // Arrow twins learn their tables' columns from the catalog; PMEMCQL_TWINS=off keeps none.
  if (process.env.PMEMCQL_TWINS !== 'off') storage.setTwinSchemaSource(catalogTwinSchemaSource(catalog));
  const node: NodeInfo = {
    hostId: await schemaStore.hostId(),
    clusterName: config.cluster_name,
    dataCenter: config.data_center,
    rack: config.rack,
    listenAddress: config.listen_address === '0.0.0.0' ? advertisedRpcAddress(config) : config.listen_address,
    rpcAddress: advertisedRpcAddress(config),
    nativePort: config.native_transport_port,
    tokens: evenTokens(config.num_tokens),
    nativeProtocolVersion: 5,
  };

  let server: NativeServer | undefined;
  const clients = (): RowObject[] => clientRows(server?.connections ?? []);
  const systemRows = new SystemRows({
    catalog,
    node,
    clients,
    settings: () => ({
      ...config,
      // The durations in force, written as Cassandra shows them.
      commitlog_sync_period: `${commitLog.periodMs}ms`,
      commitlog_sync_group_window: `${commitLog.groupWindowMs}ms`,
      periodic_commitlog_sync_lag_block: `${commitLog.lagBlockMs}ms`,
      client_encryption_options: { ...config.client_encryption_options, keystore_password: undefined },
    }),
    sizeEstimates: () => sizeEstimateRows(catalog, storage, node.tokens),
  });
  // Roles, permissions, system_auth.
  const auth = new AccessControl(storage, catalog, logger, {
    authenticator: config.authenticator,
    authorizer: config.authorizer,
  });
  await auth.setup();
  auth.registerSystemTables(systemRows);
  registerArrowSystemTables(systemRows, catalog, storage);
  const viewBuilds = new ViewBuilds(catalog, node);
  viewBuilds.registerSystemTables(systemRows);
  storage.onTwinError = (table, e) => {
    const t = table.toString('hex');
    // A full pool is an operating condition, not a fault: the twin keeps its buffer and retries with backoff.
    if (e instanceof PoolError && e.code === 'POOL_FULL')
      logger.warn({ table: t, code: e.code }, 'arrow twin flush postponed: the pool is full; retried later');
    else logger.error({ table: t, err: e }, 'arrow twin flush failed');
  };
  storage.onTwinFlushed = (table, r) =>
    logger.debug(
      {
        table: table.toString('hex'),
        rows: r.segment?.rows,
        ms: Math.round(r.ms),
        steps: r.steps,
        longestStepMs: Number(r.maxStepMs.toFixed(1)),
        longestStep: r.maxStepPhase,
        stepMs: roundedMs(r.phaseMs),
        // Where the rows were read and the segment built: the flush thread, or the steps above.
        assembledIn: r.thread ? 'flush thread' : 'event loop',
        assemblyMs: roundedMs(r.assemblyMs),
      },
      'arrow twin flushed',
    );
  const traces = new TraceStore(node.rpcAddress, 7000);
  systemRows.register('system_traces', 'sessions', () => traces.sessionRows());
  systemRows.register('system_traces', 'events', () => traces.eventRows());
  // Cassandra's user_function_timeout_policy die / die_immediate stop the node (die lets the error reach the client).
  const userFunctions = await UserFunctionRuntime.start(
    userFunctionSettings(config),
    catalog,
    logger,
    (policy, why) => {
      logger.fatal({ policy }, `stopping the server: ${why}`);
      if (policy === 'die_immediate') process.exit(100);
      setTimeout(() => process.exit(100), 250).unref();
    },
  );
  let handler: CqlQueryHandler | undefined;
  const ctx: ExecutionContext = {
    catalog,
    systemRows,
    storage,
    schemaStore,
    node,
    logger,
    auth,
    traces,
    userFunctions,
    viewBuilds,
    emit: (event) => handler?.emit(event),
  };
  handler = new CqlQueryHandler(ctx);
  handler.onEvent((event) => auth.onSchemaEvent(event));
  storage.startGc();

  // Requests are served as soon as the transport listens; metrics wrap the handler once loaded.
  const slot = new HandlerSlot(handler);
  server = new NativeServer({
    handler: slot,
    logger,
    host: config.listen_address,
    port: config.native_transport_port,
    authenticator: config.authenticator === 'PasswordAuthenticator' ? new PasswordAuthenticator(auth) : undefined,
    tls,
    limits: {
      maxFrameBytes: config.native_transport_max_frame_size,
      maxInFlightPerConnection: config.native_transport_max_requests_per_connection,
      maxConnections:
        config.native_transport_max_concurrent_connections < 0
          ? undefined
          : config.native_transport_max_concurrent_connections,
      maxConnectionsPerIp:
        config.native_transport_max_concurrent_connections_per_ip < 0
          ? undefined
          : config.native_transport_max_concurrent_connections_per_ip,
      maxRequestDataInFlight: config.native_transport_max_request_data_in_flight,
      maxRequestDataInFlightPerIp: config.native_transport_max_request_data_in_flight_per_ip,
    },
  });
  await server.listen();
  // Clients may connect from here on, so a SIGTERM must already mean a clean stop.
  let monitoring: MetricsSetup | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    try {
      if (monitoring) monitoring.metrics.ready = false;
      monitoring?.endpoint?.close();
      await server?.close();
    } finally {
      storage.close();
      logger.info('stopped');
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  const { setupMetrics } = await import('./metrics-setup.js');
  monitoring = await setupMetrics({
    handler,
    storage,
    catalog,
    tokens: node.tokens,
    connections: () => server?.connections.length ?? 0,
    host: config.listen_address,
    port: config.metrics_port,
    logger,
  });
  slot.inner = monitoring.handler;
  monitoring.metrics.ready = true;
  const info = storage.info;
  logger.info(
    {
      version: packageVersion(),
      release_version: RELEASE_VERSION,
      listen_address: `${config.listen_address}:${server.address().port}`,
      protocol_versions: PROTOCOL_VERSIONS,
      pool: info.path,
      mode: info.mode,
      ...durabilityFields(info),
      pool_size: info.size,
      pool_open_ms: Math.round(openMs * 10) / 10,
      prefault: prefault ? 'on' : 'off',
      idle_threads: background ? `${background.idled} of ${background.threads}` : 'off',
      idle_lift: starvedWatch ? 'on' : 'off',
      old_space_floor_mb: heapFloorMb(process.execArgv) ?? 'default',
      keyspaces: userKeyspaces,
      cluster_name: config.cluster_name,
      data_center: config.data_center,
      authenticator: config.authenticator,
      authorizer: config.authorizer,
      client_encryption: tls === undefined ? 'disabled' : tls.optional ? 'optional' : 'required',
      user_defined_functions: !config.user_defined_functions_enabled
        ? 'disabled'
        : config.scripted_user_defined_functions_enabled
          ? 'java, javascript'
          : 'java',
      build,
    },
    'ready',
  );
}

/**
 * Runs the start-up code that needs no pool or socket (the system schema from its CQL, a query parse, loading the
 * metrics layer), for the build step that writes the bundle's code cache (server/bundle-loader.ts): V8 caches the
 * functions compiled so far, so a start-up then finds these compiled rather than compiling them on first call.
 */
export async function warmStartupCode(): Promise<void> {
  buildSystemKeyspaces();
  parseStatement("SELECT v FROM ks.t WHERE k = 'k' AND c > 0 LIMIT 1");
  await import('./metrics-setup.js');
}

/** Times by phase to 0.1 ms, for a log line. */
function roundedMs(ms: Readonly<Record<string, number>>): Record<string, number> {
  return Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, Number(v.toFixed(1))]));
}
