// pino logger: JSON lines by default, pretty output when stdout is a terminal.
import { type Logger, pino } from 'pino';

export function createLogger(level: string): Logger {
  const pretty = process.stdout.isTTY && !process.env.PMEMCQL_LOG_JSON;
  return pino({
    level,
    base: undefined,
    ...(pretty
      ? { transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } } }
      : {}),
  });
}
