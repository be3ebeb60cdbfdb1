export {
  type ContractTestApi,
  describeRegistryStoreContract,
  type RegistryStoreContractOptions,
  sampleAgentRecord,
} from './registry-store-contract.js';
