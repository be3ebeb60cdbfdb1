// The chunk that turns error responses into the a2a-types classes (decision 0050): the a2a-types
// converters, built into this package (tsup `noExternal`) so that the chunk imports nothing.
export { createErrorConverters } from '@a2aplane/a2a-types/error-convert';
