// Which native protocol versions this server speaks, and how it refuses the others so that
// drivers step down (the Python driver only retries on this exact PROTOCOL_ERROR wording).

export const MIN_PROTOCOL_VERSION = 3;
export const MAX_PROTOCOL_VERSION = 5;

/** The PROTOCOL_VERSIONS entry of SUPPORTED. v5 is final, not beta, as in Cassandra 5.0. */
export const PROTOCOL_VERSION_DESCRIPTIONS: readonly string[] = ['3/v3', '4/v4', '5/v5'];

export function isSupportedVersion(version: number): boolean {
  return version >= MIN_PROTOCOL_VERSION && version <= MAX_PROTOCOL_VERSION;
}

export function unsupportedVersionMessage(version: number): string {
  return (
    `Invalid or unsupported protocol version (${version}); ` +
    `the lowest supported version is ${MIN_PROTOCOL_VERSION} and the greatest is ${MAX_PROTOCOL_VERSION}`
  );
}

/**
 * The version to frame the refusal in: the client's own when we can write its framing
 * (v1/v2 have an 8-byte header), else the highest supported version below it.
 */
export function refusalVersion(version: number): number {
  if (version === 1 || version === 2) return version;
  if (version > MAX_PROTOCOL_VERSION) return MAX_PROTOCOL_VERSION;
  if (version < MIN_PROTOCOL_VERSION) return MIN_PROTOCOL_VERSION;
  return version;
}
