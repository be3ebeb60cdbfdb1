/** What every suite hands back to main: a markdown section (no heading) and raw figures for the git-ignored results/. */
export interface SuiteResult {
  title: string;
  markdown: string;
  data: unknown;
}

export interface RunOptions {
  quick: boolean;
  /** Throughput only: the server rows to run (ids of its TARGETS); default all. */
  targets?: string[] | undefined;
}
