import {
  createStreamingExecutor,
  type Executor,
  type MessageStreamSource,
  type PeerSnapshot,
  type RemoteExecutorFactory,
  type StreamingExecutorOptions,
} from '@a2aplane/a2a-routing';
import type { A2AClient } from '../client.js';

/** A MessageStreamSource over a remote agent: SendStreamingMessage through the client, with resume; `cancel` is CancelTask. */
export function createRemoteStreamSource(client: A2AClient): MessageStreamSource {
  if (typeof client?.sendStreamingMessage !== 'function') {
    throw new TypeError(`expected an A2AClient, got ${typeof client}`);
  }
  return {
    stream: (request, { context, signal }) => client.sendStreamingMessage(request, { context, signal }),
    // The caller's signal has aborted by now: CancelTask goes out on its own (the executor bounds the wait).
    cancel: (params) => client.cancelTask(params),
  };
}

/**
 * The remote Executor of ADR-159: the same aggregation as local execution
 * (`createStreamingExecutor`), fed by a remote stream.
 */
export function createRemoteExecutor(client: A2AClient, options?: StreamingExecutorOptions): Executor {
  return createStreamingExecutor('remote', createRemoteStreamSource(client), options);
}

export interface RemoteExecutorFactoryOptions {
  /** The client for a selected peer (typically cached per peer id). */
  clientFor: (peer: PeerSnapshot) => A2AClient;
  executorOptions?: StreamingExecutorOptions;
}

/** A `RemoteExecutorFactory` for the dispatcher: one remote executor per selected peer. */
export function createRemoteExecutorFactory(options: RemoteExecutorFactoryOptions): RemoteExecutorFactory {
  if (typeof options?.clientFor !== 'function') {
    throw new TypeError(`expected clientFor to be a function, got ${typeof options?.clientFor}`);
  }
  return (peer) => createRemoteExecutor(options.clientFor(peer), options.executorOptions);
}
