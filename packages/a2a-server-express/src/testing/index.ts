// The testing entry: contract suites every implementation of a seam runs (task store, event bus, push
// outbox), registered with any runner's describe/it/afterEach.
export type { ContractTestApi } from './contract-api.js';
export {
  describeTaskEventBusContract,
  type TaskEventBusContractBackend,
  type TaskEventBusContractOptions,
} from './task-event-bus-contract.js';
export { describeTaskStoreContract, type TaskStoreContractLimits, type TaskStoreContractOptions } from './task-store-contract.js';
export { describePushOutboxContract, type PushOutboxContractOptions } from './push-outbox-contract.js';
export {
  describeTaskAdmissionContract,
  type TaskAdmissionContractLimits,
  type TaskAdmissionContractOptions,
} from './task-admission-contract.js';
