/**
 * The test-runner functions a contract suite registers its tests with: vitest's, node:test's or
 * jest's `describe`/`it`/`afterEach` fit. The suites assert with `node:assert/strict`, so they
 * need no runner as a dependency.
 */
export interface ContractTestApi {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<void>, timeoutMs?: number): unknown;
  afterEach(body: () => Promise<void>): unknown;
}

/** Rejects when `promise` takes longer than `ms`: a contract failure must not hang the run. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds or `ms` pass. */
export async function eventually(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within ${ms} ms: ${what}`);
    await sleep(5);
  }
}
