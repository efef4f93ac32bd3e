// pino logger: JSON lines by default, pretty output when stdout is a terminal.
import { createRequire } from 'node:module';
import { type Logger, pino } from 'pino';

export function createLogger(level: string): Logger {
  const options = { level, base: undefined };
  if (!process.stdout.isTTY || process.env.PMEMCQL_LOG_JSON) return pino(options);
  // A terminal: pino-pretty formats in-process. Required only here (it is big), and not run as a pino transport,
  // which would start a worker thread during start-up.
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return pino(options, pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', sync: true }));
}
