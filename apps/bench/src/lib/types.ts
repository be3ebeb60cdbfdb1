/** What every suite hands back to main: a markdown section plus raw data (git-ignored results/*.json). */
export interface SuiteResult {
  /** Section heading in docs/benchmarks.md. */
  title: string;
  /** Markdown body (tables, notes); no heading. */
  markdown: string;
  /** Raw figures, written to the git-ignored results/ directory. */
  data: unknown;
}

export interface RunOptions {
  quick: boolean;
  /** Throughput only: the server rows to run (ids of its TARGETS); default all. */
  targets?: string[];
}
