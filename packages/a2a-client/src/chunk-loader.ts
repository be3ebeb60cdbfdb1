import { A2ATransportError } from './errors.js';

/**
 * A loader of a chunk the client downloads on demand (decisions 0038-0052): the first call starts
 * `load` and later calls share it. A failed load is an `A2ATransportError` ("Could not load the
 * `what`", the load error as `cause`, retryable unless `retryable` is false: nothing was sent), and
 * the next call loads again.
 */
export function chunkLoader<T>(load: () => Promise<T>, what: string, retryable = true): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw new A2ATransportError(`Could not load the ${what}`, { cause: error, retryable });
    }));
}
