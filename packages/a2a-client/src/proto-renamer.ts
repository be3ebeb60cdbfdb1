// The chunk the structural validator loads on demand (decision 0044): the a2a-types ProtoJSON
// renamer, built into this package (tsup `noExternal`) so that the chunk imports nothing.
export { OPERATION_MESSAGES, renameProtoFields } from '@a2aplane/a2a-types/proto-rename';
