// Start-up failures an operator can fix (the port is taken, the pool is open in another process, the pool file
// cannot be opened): one line that says what and what to do, and an exit code, instead of a stack trace.
// Anything else is a bug and keeps its stack.

/** Exit code of a server that could not start because of its environment (a configuration error exits with 2). */
export const STARTUP_FAILURE_EXIT = 3;

interface CodedError {
  code?: unknown;
  message?: unknown;
  address?: unknown;
  port?: unknown;
}

/**
 * The one-line explanation of an expected start-up failure, or undefined for anything else; `portSetting` names the
 * setting that chooses the port that failed.
 */
export function startupFailureMessage(e: unknown, portSetting = 'native_transport_port'): string | undefined {
  const err = (e ?? {}) as CodedError;
  const where = err.address !== undefined ? `${String(err.address)}:${String(err.port)}` : 'its address';
  switch (err.code) {
    case 'EADDRINUSE':
      return `cannot listen on ${where}: the address is in use (another server running? set ${portSetting})`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${where}: no such local address (check listen_address)`;
    case 'EACCES':
      return `cannot listen on ${where}: permission denied (ports below 1024 need privileges)`;
    case 'POOL_BUSY':
      return `the pool is in use by another process (another server on the same data directory?): ${String(err.message)}`;
    case 'POOL_OPEN':
    case 'POOL_LAYOUT':
    case 'POOL_CORRUPT':
    case 'POOL_IO': // a journaled pool's files could not be read, written or synced (a full disk, say)
    case 'NO_ADDON':
      return `cannot open the pool: ${String(err.message)}`;
    default:
      return undefined;
  }
}
