// The a2a-client's root exports beyond `createA2AClient` (push parsing, the call context codec) take
// these from here rather than from the root barrel, which reaches the error classes the client loads
// on demand (decision 0052). The same modules as the root's.
export { parseStreamResponse } from './parse.js';
export { taskContextToWire, traceparentFor, withTaskContext } from './task-context.js';
