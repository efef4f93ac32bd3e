// Which materialized views this node has built, in the two tables Cassandra records it in and tools poll:
// system.built_views (one row per built view, status_replicated once system_distributed knows; ViewBuilder.finish,
// SystemKeyspace.setViewBuilt) and system_distributed.view_build_status (STARTED when the build begins, SUCCESS
// when it ends, per host; SystemDistributedKeyspace.startViewBuild / successfulViewBuild). A view is built when it
// is created, before CREATE MATERIALIZED VIEW returns, so every view in the schema whose build is not under way is
// built; dropping a view drops its rows with it (setViewRemoved).

import type { SchemaCatalog } from '../schema/schema-catalog.js';
import type { NodeInfo } from '../system/node-info.js';
import type { SystemRows } from '../system/system-rows.js';
import type { RowObject } from '../system/virtual-table.js';

export class ViewBuilds {
  /** `keyspace.view` of the builds under way. */
  private readonly running = new Set<string>();

  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly node: NodeInfo,
  ) {}

  /** Runs a view's build, recorded as STARTED until it ends. */
  async build(keyspace: string, view: string, run: () => Promise<void>): Promise<void> {
    const id = `${keyspace}.${view}`;
    this.running.add(id);
    try {
      await run();
    } finally {
      this.running.delete(id);
    }
  }

  registerSystemTables(rows: SystemRows): void {
    rows.register('system', 'built_views', () =>
      this.views()
        .filter((v) => !v.building)
        .map((v) => ({ keyspace_name: v.keyspace, view_name: v.name, status_replicated: true })),
    );
    rows.register('system_distributed', 'view_build_status', () =>
      this.views().map(
        (v): RowObject => ({
          keyspace_name: v.keyspace,
          view_name: v.name,
          host_id: this.node.hostId,
          status: v.building ? 'STARTED' : 'SUCCESS',
        }),
      ),
    );
  }

  private views(): { keyspace: string; name: string; building: boolean }[] {
    const out: { keyspace: string; name: string; building: boolean }[] = [];
    for (const ks of this.catalog.keyspaces()) {
      for (const name of ks.views?.keys() ?? []) {
        out.push({ keyspace: ks.name, name, building: this.running.has(`${ks.name}.${name}`) });
      }
    }
    return out;
  }
}
