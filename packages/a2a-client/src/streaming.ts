// The client's streaming code, one chunk loaded by the first stream (load-streaming.ts, decision 0090).
// It imports what it needs statically; a bundler puts modules it shares with the initial code in a shared chunk.
export { streamWithResume } from './stream-calls.js';
export { readEventStream } from './transports/event-stream.js';
