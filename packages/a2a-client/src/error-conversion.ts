// The chunk that turns error responses into the a2a-types classes (decisions 0050, 0052): the root's
// converters and classes (so that `instanceof` holds). Only this chunk imports the a2a-types root:
// the classes, their code table and the converters load with it, and calls that succeed with a
// valid result never load them.
export { fromJsonRpcError, fromRestError, InvalidAgentResponseError } from '@a2aplane/a2a-types';
