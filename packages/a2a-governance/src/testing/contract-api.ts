/**
 * The test-runner functions a contract suite registers its tests with: vitest's, node:test's or
 * jest's `describe`/`it`/`afterEach` fit. The suites assert with their own few checks
 * (`ContractAssertionError`), so they need no runner and no `node:` module. (The same shape as `@a2aplane/a2a-server-express/testing`'s,
 * which this package does not depend on.)
 */
export interface ContractTestApi {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<void>, timeoutMs?: number): unknown;
  afterEach(body: () => Promise<void>): unknown;
}

/** Whether `promise` is still pending after the current macrotask's queued work has run. */
export async function isPending(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending');
  const result = await Promise.race([
    promise.then(
      () => undefined,
      () => undefined,
    ),
    new Promise((resolve) => setTimeout(resolve, 50, marker)),
  ]);
  return result === marker;
}

/** The rejection of `promise`, or a failure when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, got a resolution');
}
