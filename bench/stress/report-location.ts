// Where the HTML report goes when neither -log file=*.html nor -graph file= says: a folder of its
// own, stress-reports/ in the working directory (git and the linter skip it in this repository, so
// runs from its root leave nothing to commit or lint), or in the temporary directory when the
// working directory is not writable (a container's /app).

import { accessSync, constants, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REPORT_FOLDER = 'stress-reports';

function timestamp(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

export function defaultReportFile(command: string, startedAt: Date, cwd = '.'): string {
  const name = `pmemcql-stress-${command}-${timestamp(startedAt)}.html`;
  for (const dir of [join(cwd, REPORT_FOLDER), join(tmpdir(), REPORT_FOLDER)]) {
    try {
      mkdirSync(dir, { recursive: true });
      accessSync(dir, constants.W_OK);
      return join(dir, name);
    } catch {
      // Not writable: the next place.
    }
  }
  return join(tmpdir(), name);
}
