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
