// Message opcodes of the native protocol (header byte 4).

export const Opcode = {
  ERROR: 0x00,
  STARTUP: 0x01,
  READY: 0x02,
  AUTHENTICATE: 0x03,
  OPTIONS: 0x05,
  SUPPORTED: 0x06,
  QUERY: 0x07,
  RESULT: 0x08,
  PREPARE: 0x09,
  EXECUTE: 0x0a,
  REGISTER: 0x0b,
  EVENT: 0x0c,
  BATCH: 0x0d,
  AUTH_CHALLENGE: 0x0e,
  AUTH_RESPONSE: 0x0f,
  AUTH_SUCCESS: 0x10,
} as const;

const NAMES: string[] = [];
for (const [name, code] of Object.entries(Opcode)) NAMES[code] = name;

/** Requests a client may send; the rest are responses. */
const REQUESTS = new Set<number>([
  Opcode.STARTUP,
  Opcode.OPTIONS,
  Opcode.QUERY,
  Opcode.PREPARE,
  Opcode.EXECUTE,
  Opcode.REGISTER,
  Opcode.BATCH,
  Opcode.AUTH_RESPONSE,
]);

export function opcodeName(opcode: number): string | undefined {
  return NAMES[opcode];
}

export function isRequestOpcode(opcode: number): boolean {
  return REQUESTS.has(opcode);
}
