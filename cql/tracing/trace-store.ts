// Request tracing (TRACING ON in cqlsh, the tracing flag of drivers): each traced request gets a
// session id and a list of timed events, served as system_traces.sessions and system_traces.events.
// Kept in memory, bounded, and expired after a day like Cassandra's tracing TTL: traces are
// diagnostics, not data.

import { newTimeUuid } from '../functions/timeuuid-generator.js';
import type { RowObject } from '../system/virtual-table.js';
import { uuidToText } from '../types/uuid-text.js';

const MAX_SESSIONS = 1000;
const TTL_MS = 24 * 3600 * 1000;

export interface TraceEvent {
  id: Buffer;
  activity: string;
  elapsedMicros: number;
}

export class TraceSession {
  readonly id = newTimeUuid();
  readonly startedAt = Date.now();
  private readonly t0 = performance.now();
  readonly events: TraceEvent[] = [];
  durationMicros: number | undefined;

  constructor(
    readonly request: string,
    readonly client: string,
    readonly parameters: Record<string, string>,
  ) {}

  event(activity: string): void {
    this.events.push({ id: newTimeUuid(), activity, elapsedMicros: Math.round((performance.now() - this.t0) * 1000) });
  }

  finish(): void {
    this.durationMicros = Math.round((performance.now() - this.t0) * 1000);
  }
}

export class TraceStore {
  private readonly sessions = new Map<string, TraceSession>();

  constructor(
    private readonly coordinator: string,
    private readonly port: number,
  ) {}

  start(request: string, client: string, parameters: Record<string, string>): TraceSession {
    const s = new TraceSession(request, client, parameters);
    this.sessions.set(s.id.toString('hex'), s);
    this.expire();
    return s;
  }

  private expire(): void {
    const oldest = Date.now() - TTL_MS;
    for (const [k, s] of this.sessions) {
      if (this.sessions.size <= MAX_SESSIONS && s.startedAt >= oldest) break;
      this.sessions.delete(k);
    }
  }

  sessionRows(): RowObject[] {
    return [...this.sessions.values()].map((s) => ({
      session_id: uuidToText(s.id),
      client: s.client,
      command: 'QUERY',
      coordinator: this.coordinator,
      coordinator_port: this.port,
      duration: s.durationMicros ?? null,
      parameters: new Map(Object.entries(s.parameters)),
      request: s.request,
      started_at: new Date(s.startedAt),
    }));
  }

  eventRows(): RowObject[] {
    const rows: RowObject[] = [];
    for (const s of this.sessions.values()) {
      for (const e of s.events) {
        rows.push({
          session_id: uuidToText(s.id),
          event_id: uuidToText(e.id),
          activity: e.activity,
          source: this.coordinator,
          source_port: this.port,
          source_elapsed: e.elapsedMicros,
          thread: 'Native-Transport-Requests-1',
        });
      }
    }
    return rows;
  }
}
