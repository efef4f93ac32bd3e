// A QueryHandler that forwards to another one, replaceable at run time: the server starts serving
// before optional layers (metrics) have loaded, and wraps the handler once they have.

import type {
  BatchRequest,
  ClientState,
  QueryHandler,
  QueryOptions,
  ResultMessage,
  ServerEvent,
} from '../cql/query-handler.js';

export class HandlerSlot implements QueryHandler {
  constructor(public inner: QueryHandler) {}

  query(state: ClientState, cql: string, options: QueryOptions): ResultMessage | Promise<ResultMessage> {
    return this.inner.query(state, cql, options);
  }

  prepare(state: ClientState, cql: string, keyspace: string | undefined): ResultMessage | Promise<ResultMessage> {
    return this.inner.prepare(state, cql, keyspace);
  }

  execute(
    state: ClientState,
    id: Buffer,
    resultMetadataId: Buffer | undefined,
    options: QueryOptions,
  ): ResultMessage | Promise<ResultMessage> {
    return this.inner.execute(state, id, resultMetadataId, options);
  }

  batch(state: ClientState, batch: BatchRequest): ResultMessage | Promise<ResultMessage> {
    return this.inner.batch(state, batch);
  }

  onEvent(listener: (event: ServerEvent) => void): void {
    this.inner.onEvent(listener);
  }
}
