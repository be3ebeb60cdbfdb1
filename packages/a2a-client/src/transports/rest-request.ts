// The chunk the REST transport loads on demand (decision 0044): the a2a-types route table and
// request builder, built into this package (tsup `noExternal`) so that the chunk imports nothing.
export { paramsToRestRequest } from '@a2aplane/a2a-types/rest-routes';
