// The chunk a call with a `context` loads on demand (decision 0044): the a2a-types lineage writer
// and traceparent, built into this package (tsup `noExternal`) so that the chunk imports nothing.
export { traceparentFor, withTaskContext } from '@a2aplane/a2a-types/task-context';
