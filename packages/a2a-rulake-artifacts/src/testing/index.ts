// The testing entry: the contract suite every `WitnessStore` runs, registered with any runner's describe/it.
export {
  describeWitnessStoreContract,
  type WitnessStoreContractApi,
  WitnessStoreContractError,
  type WitnessStoreContractOptions,
} from './witness-store-contract.js';
