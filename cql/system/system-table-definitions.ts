// The schemas of Cassandra 5.0's built-in keyspaces, as CQL (the same way Cassandra declares
// them). They are parsed at start-up into TableMetadata; their rows are produced by code.

import { ARROW_KEYSPACE_DEFINITION } from './arrow-system-definitions.js';
import type { SystemKeyspaceDefinition } from './system-keyspace-definition.js';

const LOCAL = { class: 'org.apache.cassandra.locator.LocalStrategy' };
const simple = (rf: number) => ({
  class: 'org.apache.cassandra.locator.SimpleStrategy',
  replication_factor: String(rf),
});

export const SYSTEM_KEYSPACES: SystemKeyspaceDefinition[] = [
  {
    name: 'system',
    virtual: false,
    replication: LOCAL,
    durableWrites: true,
    tables: [
      {
        name: 'local',
        comment: 'information about the local node',
        cql: `CREATE TABLE local (key text, bootstrapped text, broadcast_address inet, broadcast_port int,
          cluster_name text, cql_version text, data_center text, gossip_generation int, host_id uuid,
          listen_address inet, listen_port int, native_protocol_version text, partitioner text, rack text,
          release_version text, rpc_address inet, rpc_port int, schema_version uuid, tokens set<varchar>,
          truncated_at map<uuid, blob>, PRIMARY KEY ((key)))`,
      },
      {
        name: 'peers',
        comment: 'information about known peers in the cluster',
        cql: `CREATE TABLE peers (peer inet, data_center text, host_id uuid, preferred_ip inet, rack text,
          release_version text, rpc_address inet, schema_version uuid, tokens set<varchar>, PRIMARY KEY ((peer)))`,
      },
      {
        name: 'peers_v2',
        comment: 'information about known peers in the cluster',
        cql: `CREATE TABLE peers_v2 (peer inet, peer_port int, data_center text, host_id uuid, preferred_ip inet,
          preferred_port int, rack text, release_version text, native_address inet, native_port int,
          schema_version uuid, tokens set<varchar>, PRIMARY KEY ((peer), peer_port))`,
      },
      {
        name: 'size_estimates',
        comment: 'per-table primary range size estimates',
        cql: `CREATE TABLE size_estimates (keyspace_name text, table_name text, range_start text, range_end text,
          mean_partition_size bigint, partitions_count bigint,
          PRIMARY KEY ((keyspace_name), table_name, range_start, range_end))`,
      },
      {
        name: 'table_estimates',
        comment: 'per-table range size estimates',
        cql: `CREATE TABLE table_estimates (keyspace_name text, table_name text, range_type text, range_start text,
          range_end text, mean_partition_size bigint, partitions_count bigint,
          PRIMARY KEY ((keyspace_name), table_name, range_type, range_start, range_end))`,
      },
      {
        name: 'prepared_statements',
        comment: 'prepared statements',
        cql: `CREATE TABLE prepared_statements (prepared_id blob, logged_keyspace text, query_string text,
          PRIMARY KEY ((prepared_id)))`,
      },
      {
        name: 'built_views',
        comment: 'built views',
        cql: `CREATE TABLE built_views (keyspace_name text, view_name text, status_replicated boolean,
          PRIMARY KEY ((keyspace_name), view_name))`,
      },
      {
        name: 'available_ranges',
        comment: 'available keyspace/ranges during bootstrap/replace that are ready to be served',
        cql: 'CREATE TABLE available_ranges (keyspace_name text, ranges set<blob>, PRIMARY KEY ((keyspace_name)))',
      },
    ],
  },
  {
    name: 'system_schema',
    virtual: false,
    replication: LOCAL,
    durableWrites: true,
    tables: [
      {
        name: 'keyspaces',
        comment: 'keyspace definitions',
        cql: `CREATE TABLE keyspaces (keyspace_name text, durable_writes boolean, replication frozen<map<text, text>>,
          PRIMARY KEY ((keyspace_name)))`,
      },
      {
        name: 'tables',
        comment: 'table definitions',
        cql: `CREATE TABLE tables (keyspace_name text, table_name text, additional_write_policy text,
          allow_auto_snapshot boolean, bloom_filter_fp_chance double, caching frozen<map<text, text>>, cdc boolean,
          comment text, compaction frozen<map<text, text>>, compression frozen<map<text, text>>,
          crc_check_chance double, dclocal_read_repair_chance double, default_time_to_live int,
          extensions frozen<map<text, blob>>, flags frozen<set<text>>, gc_grace_seconds int, id uuid,
          incremental_backups boolean, max_index_interval int, memtable text, memtable_flush_period_in_ms int,
          min_index_interval int, read_repair text, read_repair_chance double, speculative_retry text,
          PRIMARY KEY ((keyspace_name), table_name))`,
      },
      {
        name: 'columns',
        comment: 'column definitions',
        cql: `CREATE TABLE columns (keyspace_name text, table_name text, column_name text, clustering_order text,
          column_name_bytes blob, kind text, position int, type text,
          PRIMARY KEY ((keyspace_name), table_name, column_name))`,
      },
      {
        name: 'column_masks',
        comment: 'column dynamic data masks',
        cql: `CREATE TABLE column_masks (keyspace_name text, table_name text, column_name text,
          function_keyspace text, function_name text, function_argument_types frozen<list<text>>,
          function_argument_values frozen<list<text>>, function_argument_nulls frozen<list<boolean>>,
          PRIMARY KEY ((keyspace_name), table_name, column_name))`,
      },
      {
        name: 'dropped_columns',
        comment: 'dropped column registry',
        cql: `CREATE TABLE dropped_columns (keyspace_name text, table_name text, column_name text,
          dropped_time timestamp, kind text, type text, PRIMARY KEY ((keyspace_name), table_name, column_name))`,
      },
      {
        name: 'triggers',
        comment: 'trigger definitions',
        cql: `CREATE TABLE triggers (keyspace_name text, table_name text, trigger_name text,
          options frozen<map<text, text>>, PRIMARY KEY ((keyspace_name), table_name, trigger_name))`,
      },
      {
        name: 'views',
        comment: 'view definitions',
        cql: `CREATE TABLE views (keyspace_name text, view_name text, additional_write_policy text,
          allow_auto_snapshot boolean, base_table_id uuid, base_table_name text, bloom_filter_fp_chance double,
          caching frozen<map<text, text>>, cdc boolean, comment text, compaction frozen<map<text, text>>,
          compression frozen<map<text, text>>, crc_check_chance double, dclocal_read_repair_chance double,
          default_time_to_live int, extensions frozen<map<text, blob>>, gc_grace_seconds int, id uuid,
          include_all_columns boolean, incremental_backups boolean, max_index_interval int, memtable text,
          memtable_flush_period_in_ms int, min_index_interval int, read_repair text, read_repair_chance double,
          speculative_retry text, where_clause text, PRIMARY KEY ((keyspace_name), view_name))`,
      },
      {
        name: 'types',
        comment: 'user defined type definitions',
        cql: `CREATE TABLE types (keyspace_name text, type_name text, field_names frozen<list<text>>,
          field_types frozen<list<text>>, PRIMARY KEY ((keyspace_name), type_name))`,
      },
      {
        name: 'functions',
        comment: 'user defined function definitions',
        cql: `CREATE TABLE functions (keyspace_name text, function_name text, argument_types frozen<list<text>>,
          argument_names frozen<list<text>>, body text, called_on_null_input boolean, language text,
          return_type text, PRIMARY KEY ((keyspace_name), function_name, argument_types))`,
      },
      {
        name: 'aggregates',
        comment: 'user defined aggregate definitions',
        cql: `CREATE TABLE aggregates (keyspace_name text, aggregate_name text, argument_types frozen<list<text>>,
          final_func text, initcond text, return_type text, state_func text, state_type text,
          PRIMARY KEY ((keyspace_name), aggregate_name, argument_types))`,
      },
      {
        name: 'indexes',
        comment: 'secondary index definitions',
        cql: `CREATE TABLE indexes (keyspace_name text, table_name text, index_name text, kind text,
          options frozen<map<text, text>>, PRIMARY KEY ((keyspace_name), table_name, index_name))`,
      },
    ],
  },
  {
    name: 'system_auth',
    virtual: false,
    replication: simple(1),
    durableWrites: true,
    tables: [
      {
        name: 'roles',
        comment: 'role definitions',
        cql: `CREATE TABLE roles (role text, can_login boolean, is_superuser boolean, member_of set<text>,
          salted_hash text, PRIMARY KEY (role))`,
      },
      {
        name: 'role_members',
        comment: 'role memberships lookup table',
        cql: 'CREATE TABLE role_members (role text, member text, PRIMARY KEY (role, member))',
      },
      {
        name: 'role_permissions',
        comment: 'permissions granted to db roles',
        cql: `CREATE TABLE role_permissions (role text, resource text, permissions set<text>,
          PRIMARY KEY (role, resource))`,
      },
      {
        name: 'resource_role_permissons_index',
        comment: 'index of db roles with permissions granted on a resource',
        cql: 'CREATE TABLE resource_role_permissons_index (resource text, role text, PRIMARY KEY (resource, role))',
      },
      {
        name: 'network_permissions',
        comment: 'user network permissions',
        cql: 'CREATE TABLE network_permissions (role text, dcs frozen<set<text>>, PRIMARY KEY (role))',
      },
    ],
  },
  {
    name: 'system_distributed',
    virtual: false,
    replication: simple(3),
    durableWrites: true,
    tables: [
      {
        name: 'repair_history',
        comment: 'Repair history',
        cql: `CREATE TABLE repair_history (keyspace_name text, columnfamily_name text, id timeuuid,
          parent_id timeuuid, range_begin text, range_end text, coordinator inet, coordinator_port int,
          participants set<inet>, participants_v2 set<text>, exception_message text, exception_stacktrace text,
          status text, started_at timestamp, finished_at timestamp,
          PRIMARY KEY ((keyspace_name, columnfamily_name), id))`,
      },
      {
        name: 'view_build_status',
        comment: 'Materialized View build status',
        cql: `CREATE TABLE view_build_status (keyspace_name text, view_name text, host_id uuid, status text,
          PRIMARY KEY ((keyspace_name, view_name), host_id))`,
      },
    ],
  },
  {
    name: 'system_traces',
    virtual: false,
    replication: simple(2),
    durableWrites: true,
    tables: [
      {
        name: 'sessions',
        comment: 'tracing sessions',
        cql: `CREATE TABLE sessions (session_id uuid, command text, client inet, coordinator inet,
          coordinator_port int, duration int, parameters map<text, text>, request text, started_at timestamp,
          PRIMARY KEY ((session_id)))`,
      },
      {
        name: 'events',
        comment: 'tracing events',
        cql: `CREATE TABLE events (session_id uuid, event_id timeuuid, activity text, source inet,
          source_port int, source_elapsed int, thread text, PRIMARY KEY ((session_id), event_id))`,
      },
    ],
  },
  {
    name: 'system_views',
    virtual: true,
    replication: LOCAL,
    durableWrites: false,
    tables: [
      {
        name: 'clients',
        comment: 'currently connected clients',
        cql: `CREATE TABLE clients (address inet, port int, client_options frozen<map<text, text>>,
          connection_stage text, driver_name text, driver_version text, hostname text, protocol_version int,
          request_count bigint, ssl_cipher_suite text, ssl_enabled boolean, ssl_protocol text, username text,
          keyspace_name text, PRIMARY KEY ((address), port))`,
      },
      {
        name: 'settings',
        comment: 'current settings',
        cql: 'CREATE TABLE settings (name text, value text, PRIMARY KEY (name))',
      },
      {
        name: 'sstable_tasks',
        comment: 'current sstable tasks',
        cql: `CREATE TABLE sstable_tasks (keyspace_name text, table_name text, task_id timeuuid, completion_ratio double,
          kind text, progress bigint, sstables int, target_directory text, total bigint, unit text,
          PRIMARY KEY (keyspace_name, table_name, task_id))`,
      },
    ],
  },
  {
    name: 'system_virtual_schema',
    virtual: true,
    replication: LOCAL,
    durableWrites: false,
    tables: [
      {
        name: 'keyspaces',
        comment: 'virtual keyspace definitions',
        cql: 'CREATE TABLE keyspaces (keyspace_name text, PRIMARY KEY (keyspace_name))',
      },
      {
        name: 'tables',
        comment: 'virtual table definitions',
        cql: 'CREATE TABLE tables (keyspace_name text, table_name text, comment text, PRIMARY KEY (keyspace_name, table_name))',
      },
      {
        name: 'columns',
        comment: 'virtual column definitions',
        cql: `CREATE TABLE columns (keyspace_name text, table_name text, column_name text, clustering_order text,
          column_name_bytes blob, kind text, position int, type text,
          PRIMARY KEY (keyspace_name, table_name, column_name))`,
      },
    ],
  },
  ARROW_KEYSPACE_DEFINITION,
];
