/** What every suite hands back to main: a markdown section plus raw data for latest.json. */
export interface SuiteResult {
  /** Section heading in docs/benchmarks.md. */
  title: string;
  /** Markdown body (tables, notes); no heading. */
  markdown: string;
  /** Raw figures for results/latest.json. */
  data: unknown;
}

export interface RunOptions {
  quick: boolean;
  /** Throughput only: the server rows to run (ids of its TARGETS); default all. */
  targets?: string[];
}

export interface Suite {
  id: string;
  title: string;
  run(options: RunOptions): Promise<SuiteResult>;
}
