/** What every suite hands back to main: its section of the report (under the title main gives it) and raw figures for the git-ignored results/. */
export type SuiteResult = { markdown: string; data: unknown };

export interface RunOptions {
  quick: boolean;
  /** Throughput only: the server rows to run (ids of its TARGETS); default all. */
  targets?: string[] | undefined;
}
