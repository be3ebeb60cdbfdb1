import { A2ATransportError } from './errors.js';

/**
 * A loader of one of the client's lazy boundaries (decision 0090: the streaming code, discovery): the
 * first call starts `load` and later calls share it. A failed load is an `A2ATransportError` ("Could
 * not load the `what`", the load error as `cause`, retryable: nothing was sent), and the next call
 * loads again.
 */
export function lazyLoad<T>(load: () => Promise<T>, what: string): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw new A2ATransportError(`Could not load the ${what}`, { cause: error, retryable: true });
    }));
}
