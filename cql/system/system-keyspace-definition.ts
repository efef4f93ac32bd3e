// The shape in which a built-in keyspace is declared: its tables as CQL, parsed at start-up into TableMetadata.

export interface SystemKeyspaceDefinition {
  name: string;
  /** Virtual keyspaces (system_views, system_virtual_schema) are listed in system_virtual_schema only. */
  virtual: boolean;
  replication: Record<string, string>;
  durableWrites: boolean;
  tables: { name: string; comment: string; cql: string }[];
}
