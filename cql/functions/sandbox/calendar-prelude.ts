// `__calendar` inside the sandbox: proleptic Gregorian dates from and to day counts, the host's own functions
// (cql/types/temporal.ts, self-contained) shipped as source, so both UDF value models print and parse dates as
// the server does.

import { civilFromDays, daysFromCivil } from '../../types/temporal.js';
import type { SandboxPrelude } from './sandbox-program.js';

export const CALENDAR_PRELUDE: SandboxPrelude = {
  name: 'calendar',
  source: `globalThis.__calendar = { civilFromDays: (${civilFromDays.toString()}), daysFromCivil: (${daysFromCivil.toString()}) };`,
};
