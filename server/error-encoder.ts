// Writes the body of an ERROR message: [int] code, [string] message, then the extra fields
// of each code. Codes a version does not know are sent as their closest older form, as
// Cassandra's ErrorMessage does (failures as timeouts before v4, CAS_WRITE_UNKNOWN as a CAS
// write timeout before v5), and v5 replaces <numfailures> with a <reasonmap>.

import {
  AlreadyExists,
  CasWriteUnknown,
  type CqlError,
  ErrorCode,
  FunctionFailure,
  ReadFailure,
  ReadTimeout,
  Unavailable,
  Unprepared,
  WriteFailure,
  WriteTimeout,
} from '../cql/errors.js';
import type { ByteWriter } from './byte-writer.js';

/** Replicas of the reason map: this single node; failure code 0x0000 is UNKNOWN. */
const LOCAL_NODE = '127.0.0.1';

export function writeError(w: ByteWriter, e: CqlError, version: number): void {
  const code = e.code;
  if (version < 4) {
    if (e instanceof ReadFailure) {
      header(w, ErrorCode.READ_TIMEOUT, e.message);
      w.short(e.consistency);
      w.int(e.received);
      w.int(e.blockFor);
      w.byte(e.dataPresent ? 1 : 0);
      return;
    }
    if (e instanceof WriteFailure) {
      header(w, ErrorCode.WRITE_TIMEOUT, e.message);
      w.short(e.consistency);
      w.int(e.received);
      w.int(e.blockFor);
      w.string(e.writeType);
      return;
    }
    if (code === ErrorCode.FUNCTION_FAILURE) {
      header(w, ErrorCode.INVALID, e.message);
      return;
    }
  }
  if (version < 5) {
    if (e instanceof CasWriteUnknown) {
      header(w, ErrorCode.WRITE_TIMEOUT, e.message);
      w.short(e.consistency);
      w.int(e.received);
      w.int(e.blockFor);
      w.string('CAS');
      return;
    }
    if (code === ErrorCode.CDC_WRITE_FAILURE && version < 4) {
      header(w, ErrorCode.SERVER_ERROR, e.message);
      return;
    }
  }

  header(w, code, e.message);
  if (e instanceof Unavailable) {
    w.short(e.consistency);
    w.int(e.required);
    w.int(e.alive);
  } else if (e instanceof WriteTimeout) {
    w.short(e.consistency);
    w.int(e.received);
    w.int(e.blockFor);
    w.string(e.writeType);
    if (version >= 5 && e.writeType === 'CAS') w.short(e.contentions);
  } else if (e instanceof ReadTimeout) {
    w.short(e.consistency);
    w.int(e.received);
    w.int(e.blockFor);
    w.byte(e.dataPresent ? 1 : 0);
  } else if (e instanceof ReadFailure) {
    w.short(e.consistency);
    w.int(e.received);
    w.int(e.blockFor);
    failures(w, e.failures, version);
    w.byte(e.dataPresent ? 1 : 0);
  } else if (e instanceof WriteFailure) {
    w.short(e.consistency);
    w.int(e.received);
    w.int(e.blockFor);
    failures(w, e.failures, version);
    w.string(e.writeType);
  } else if (e instanceof FunctionFailure) {
    w.string(e.keyspace);
    w.string(e.functionName);
    w.stringList(e.argTypes);
  } else if (e instanceof CasWriteUnknown) {
    w.short(e.consistency);
    w.int(e.received);
    w.int(e.blockFor);
  } else if (e instanceof AlreadyExists) {
    w.string(e.keyspace);
    w.string(e.table);
  } else if (e instanceof Unprepared) {
    w.shortBytes(e.id);
  }
}

function header(w: ByteWriter, code: number, message: string): void {
  w.int(code);
  // A [string] holds at most 65535 bytes; cut long messages rather than fail the response.
  w.string(message.length > 16000 ? `${message.slice(0, 16000)}...` : message);
}

/** <numfailures> before v5, a <reasonmap> of endpoint -> failure code from v5. */
function failures(w: ByteWriter, count: number, version: number): void {
  if (version < 5) {
    w.int(count);
    return;
  }
  // One endpoint on a single node: the map has at most one entry.
  const n = count > 0 ? 1 : 0;
  w.int(n);
  for (let i = 0; i < n; i++) {
    w.inetAddr(LOCAL_NODE);
    w.short(0x0000);
  }
}
