/** A writable text sink: `process.stdout` or a test buffer. */
export interface CliStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

/** Everything the CLI touches outside its arguments, so tests run it in-process. */
export interface CliIo {
  stdout: CliStream;
  stderr: CliStream;
  env: Record<string, string | undefined>;
  fetch: typeof fetch;
  /** Aborting stops a long-running command (`serve`, `subscribe`, `send --stream`). */
  signal?: AbortSignal;
}

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const wrap =
  (enabled: boolean, open: number, close: number) =>
  (text: string): string =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;

/** ANSI colors only when stdout is a terminal and `NO_COLOR` is unset (https://no-color.org). */
function createStyle(io: Pick<CliIo, 'stdout' | 'env'>): Style {
  const noColor = io.env.NO_COLOR;
  const enabled = io.stdout.isTTY === true && (noColor === undefined || noColor === '');
  return {
    bold: wrap(enabled, 1, 22),
    dim: wrap(enabled, 2, 22),
    red: wrap(enabled, 31, 39),
    green: wrap(enabled, 32, 39),
    yellow: wrap(enabled, 33, 39),
    cyan: wrap(enabled, 36, 39),
  };
}

/** What a command gets: the io, a style and line writers. */
export interface CommandContext {
  io: CliIo;
  style: Style;
  out(line?: string): void;
  err(line?: string): void;
}

export function createCommandContext(io: CliIo): CommandContext {
  return {
    io,
    style: createStyle(io),
    out: (line = '') => {
      io.stdout.write(`${line}\n`);
    },
    err: (line = '') => {
      io.stderr.write(`${line}\n`);
    },
  };
}
