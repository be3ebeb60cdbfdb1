import { parseArgs, type ParseArgsConfig } from 'node:util';
import { usageError } from './errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** `node:util` parseArgs with strict options; a bad flag becomes a one-line usage error. */
export function parseCommandArgs(command: string, argv: string[], options: Options): ParsedArgs {
  try {
    const parsed = parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    return { values: parsed.values as ParsedArgs['values'], positionals: parsed.positionals };
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw usageError(`${command}: ${message}; see a2a ${command} --help`);
  }
}

export const stringValue = (args: ParsedArgs, name: string): string | undefined => {
  const value = args.values[name];
  return typeof value === 'string' ? value : undefined;
};

export const flag = (args: ParsedArgs, name: string): boolean => args.values[name] === true;

/** Exactly `names.length` positionals, else a usage error naming the missing one. */
export function positionals(command: string, args: ParsedArgs, names: string[]): string[] {
  if (args.positionals.length < names.length) {
    throw usageError(`${command}: missing <${names[args.positionals.length]}>; see a2a ${command} --help`);
  }
  if (args.positionals.length > names.length) {
    throw usageError(`${command}: unexpected argument ${JSON.stringify(args.positionals[names.length])}; see a2a ${command} --help`);
  }
  return args.positionals;
}

/** An absolute http(s) URL, else a usage error. */
export function agentUrl(command: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(`${command}: invalid URL ${JSON.stringify(value)}; expected an absolute http:// or https:// URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    // "localhost:8080" parses as scheme "localhost:": a host and port without the scheme.
    if (/^[a-z0-9.-]+:\d+(\/|$)/i.test(value)) {
      throw usageError(
        `${command}: invalid URL ${JSON.stringify(value)}; expected an absolute http:// or https:// URL, such as http://${value}`,
      );
    }
    throw usageError(`${command}: invalid URL ${JSON.stringify(value)}; expected http:// or https://, got ${url.protocol}`);
  }
  return url.href;
}

/** A non-negative integer option (port, page size), else a usage error. */
export function integerOption(command: string, args: ParsedArgs, name: string, range: { min: number; max: number }): number | undefined {
  const raw = stringValue(args, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < range.min || value > range.max) {
    throw usageError(`${command}: --${name} expects an integer from ${range.min} to ${range.max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}
