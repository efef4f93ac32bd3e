// Cassandra's error kinds with their native-protocol codes. Each layer throws the one it knows;
// only server/ turns them into ERROR frames (see server/error-encoder.ts).

export const ErrorCode = {
  SERVER_ERROR: 0x0000,
  PROTOCOL_ERROR: 0x000a,
  BAD_CREDENTIALS: 0x0100,
  UNAVAILABLE: 0x1000,
  OVERLOADED: 0x1001,
  IS_BOOTSTRAPPING: 0x1002,
  TRUNCATE_ERROR: 0x1003,
  WRITE_TIMEOUT: 0x1100,
  READ_TIMEOUT: 0x1200,
  READ_FAILURE: 0x1300,
  FUNCTION_FAILURE: 0x1400,
  WRITE_FAILURE: 0x1500,
  CDC_WRITE_FAILURE: 0x1600,
  CAS_WRITE_UNKNOWN: 0x1700,
  SYNTAX_ERROR: 0x2000,
  UNAUTHORIZED: 0x2100,
  INVALID: 0x2200,
  CONFIG_ERROR: 0x2300,
  ALREADY_EXISTS: 0x2400,
  UNPREPARED: 0x2500,
} as const;
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Consistency levels as protocol [short] values. */
export const Consistency = {
  ANY: 0x0000,
  ONE: 0x0001,
  TWO: 0x0002,
  THREE: 0x0003,
  QUORUM: 0x0004,
  ALL: 0x0005,
  LOCAL_QUORUM: 0x0006,
  EACH_QUORUM: 0x0007,
  SERIAL: 0x0008,
  LOCAL_SERIAL: 0x0009,
  LOCAL_ONE: 0x000a,
} as const;

export type WriteType = 'SIMPLE' | 'BATCH' | 'UNLOGGED_BATCH' | 'COUNTER' | 'BATCH_LOG' | 'CAS' | 'VIEW' | 'CDC';

export class CqlError extends Error {
  constructor(
    readonly code: ErrorCodeValue,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ServerError extends CqlError {
  constructor(message: string) {
    super(ErrorCode.SERVER_ERROR, message);
  }
}

export class ProtocolError extends CqlError {
  constructor(
    message: string,
    /** True when the byte stream can no longer be trusted and the connection must close. */
    readonly fatal = false,
  ) {
    super(ErrorCode.PROTOCOL_ERROR, message);
  }
}

export class AuthenticationError extends CqlError {
  constructor(message: string) {
    super(ErrorCode.BAD_CREDENTIALS, message);
  }
}

export class Unavailable extends CqlError {
  constructor(
    message: string,
    readonly consistency: number,
    readonly required: number,
    readonly alive: number,
  ) {
    super(ErrorCode.UNAVAILABLE, message);
  }
}

export class Overloaded extends CqlError {
  constructor(message: string) {
    super(ErrorCode.OVERLOADED, message);
  }
}

export class TruncateError extends CqlError {
  constructor(message: string) {
    super(ErrorCode.TRUNCATE_ERROR, message);
  }
}

export class WriteTimeout extends CqlError {
  constructor(
    message: string,
    readonly consistency: number,
    readonly received: number,
    readonly blockFor: number,
    readonly writeType: WriteType,
    readonly contentions = 0,
  ) {
    super(ErrorCode.WRITE_TIMEOUT, message);
  }
}

export class ReadTimeout extends CqlError {
  constructor(
    message: string,
    readonly consistency: number,
    readonly received: number,
    readonly blockFor: number,
    readonly dataPresent: boolean,
  ) {
    super(ErrorCode.READ_TIMEOUT, message);
  }
}

export class ReadFailure extends CqlError {
  constructor(
    message: string,
    readonly consistency: number,
    readonly received: number,
    readonly blockFor: number,
    readonly failures: number,
    readonly dataPresent: boolean,
  ) {
    super(ErrorCode.READ_FAILURE, message);
  }
}

export class FunctionFailure extends CqlError {
  constructor(
    message: string,
    readonly keyspace: string,
    readonly functionName: string,
    readonly argTypes: string[],
  ) {
    super(ErrorCode.FUNCTION_FAILURE, message);
  }
}

export class WriteFailure extends CqlError {
  constructor(
    message: string,
    readonly consistency: number,
    readonly received: number,
    readonly blockFor: number,
    readonly failures: number,
    readonly writeType: WriteType,
  ) {
    super(ErrorCode.WRITE_FAILURE, message);
  }
}

export class CasWriteUnknown extends CqlError {
  constructor(
    message: string,
    readonly consistency: number,
    readonly received: number,
    readonly blockFor: number,
  ) {
    super(ErrorCode.CAS_WRITE_UNKNOWN, message);
  }
}

export class SyntaxError extends CqlError {
  constructor(message: string) {
    super(ErrorCode.SYNTAX_ERROR, message);
  }
}

export class Unauthorized extends CqlError {
  constructor(message: string) {
    super(ErrorCode.UNAUTHORIZED, message);
  }
}

export class InvalidRequest extends CqlError {
  constructor(message: string) {
    super(ErrorCode.INVALID, message);
  }
}

export class ConfigurationError extends CqlError {
  constructor(message: string) {
    super(ErrorCode.CONFIG_ERROR, message);
  }
}

export class AlreadyExists extends CqlError {
  constructor(
    message: string,
    readonly keyspace: string,
    /** Empty when the keyspace itself exists. */
    readonly table: string,
  ) {
    super(ErrorCode.ALREADY_EXISTS, message);
  }
}

export class Unprepared extends CqlError {
  constructor(
    message: string,
    readonly id: Buffer,
  ) {
    super(ErrorCode.UNPREPARED, message);
  }
}
