// Every row of a query through the npm cassandra-driver, page by page (crash tests read whole tables back).
import type cassandra from 'cassandra-driver';

export async function readAllPages(client: cassandra.Client, query: string): Promise<cassandra.types.Row[]> {
  const rows: cassandra.types.Row[] = [];
  let pageState: string | undefined;
  do {
    const rs = await client.execute(query, [], { prepare: true, fetchSize: 5000, pageState });
    rows.push(...rs.rows);
    pageState = rs.pageState ?? undefined;
  } while (pageState);
  return rows;
}
