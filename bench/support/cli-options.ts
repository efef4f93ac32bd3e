// Command-line options of the benches: `--name value` numbers and bare `--flag`s.

const args = process.argv.slice(2);

/** Whether `--name` was given. */
export function flag(name: string): boolean {
  return args.includes(name);
}

/** The number after `--name`, or `dflt` when the option is absent. */
export function numberOption(name: string, dflt: number): number {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
}

/** The text after `--name`, or undefined when the option is absent. */
export function stringOption(name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}
