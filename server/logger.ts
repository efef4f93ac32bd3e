// pino logger: JSON lines by default, pretty output when stdout is a terminal.
import { type Logger, pino } from 'pino';

export async function createLogger(level: string): Promise<Logger> {
  const options = { level, base: undefined };
  if (!process.stdout.isTTY || process.env.PMEMCQL_LOG_JSON) return pino(options);
  // A terminal: pino-pretty formats in-process. Loaded only here (it is big), and not as a pino transport,
  // which would start a worker thread during start-up.
  const { default: pretty } = await import('pino-pretty');
  return pino(options, pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', sync: true }));
}
