// UUID text forms: 8-4-4-4-12 hex, lower case, as java.util.UUID.toString prints.

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export function isUuidText(s: string): boolean {
  return UUID_RE.test(s);
}

/** Parses 8-4-4-4-12 hex; undefined if malformed. */
export function uuidFromText(s: string): Buffer | undefined {
  if (!UUID_RE.test(s)) return undefined;
  return Buffer.from(s.replaceAll('-', ''), 'hex');
}

export function uuidToText(b: Uint8Array): string {
  const h = Buffer.from(b.buffer, b.byteOffset, b.length).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** UUID version: the top nibble of byte 6. */
export function uuidVersion(b: Uint8Array): number {
  return b[6]! >> 4;
}
