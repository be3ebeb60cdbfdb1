/** Markdown table from a header row and data rows. */
export function table(header: string[], rows: Array<Array<string | number>>): string {
  const line = (cells: Array<string | number>) => `| ${cells.map(String).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The goal rows a suite is judged by: what, measured, target, **PASS** or **FAIL**. */
export function goalTable(rows: Array<[goal: string, measured: string, target: string, pass: boolean]>): string {
  return table(
    ['goal', 'measured', 'target', 'result'],
    rows.map(([goal, measured, target, pass]) => [goal, measured, target, `**${passFail(pass)}**`]),
  );
}

/** 1234567 -> "1,234,567"; fractional values keep `digits` decimals. */
export function num(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export const ratio = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(2)}x` : 'n/a');
export const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
export const passFail = (ok: boolean): string => (ok ? 'PASS' : 'FAIL');
export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The nearest-rank percentile `p` of ascending `sorted`. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** A markdown table of `rows`, one column per `[header, cell of a row]`. */
export function columns<T>(rows: T[], cols: Array<[header: string, cell: (row: T) => string | number]>): string {
  return table(
    cols.map(([header]) => header),
    rows.map((row) => cols.map(([, cell]) => cell(row))),
  );
}
