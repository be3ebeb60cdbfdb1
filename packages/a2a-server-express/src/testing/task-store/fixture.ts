import { randomUUID } from 'node:crypto';
import type { Task, TaskState } from '@a2aplane/a2a-types';
import { type SendKey, type TaskRecord, TaskRevisionConflictError, type TaskStore } from '../../store/task-store.js';

/** The limits a contract test asks its store for. */
export interface TaskStoreContractLimits {
  /** How long a terminal task is kept after its last change. */
  terminalTtlMs: number;
  /** Most tasks kept (only asked with a small value when `capacity` is on). */
  maxTasks: number;
}

export interface TaskStoreContractOptions {
  /** A fresh, empty store with these limits. Each test makes its own and uses tenants of its own. */
  create(limits: TaskStoreContractLimits): TaskStore | Promise<TaskStore>;
  /** Releases a store made by `create` (connections, keys). */
  dispose?(store: TaskStore): void | Promise<void>;
  /** The store bounds its task count as `InMemoryTaskStore` does (evicts terminal tasks, refuses new ones over live ones). Default `true`. */
  capacity?: boolean;
}

export type State = Exclude<TaskState, 'TASK_STATE_UNSPECIFIED'>;

const LARGE: TaskStoreContractLimits = { terminalTtlMs: 10 * 60_000, maxTasks: 10_000 };

/** Keys that differ from `key` in one part each: owner, tenant, message (its fingerprint, decision 0105). */
const otherSendKeys = (key: SendKey, otherTenant: string): SendKey[] => [
  { ...key, owner: 'other' },
  { ...key, tenant: otherTenant },
  { ...key, fingerprint: 'other' },
];

/** What every part of the TaskStore contract shares: the stores a test opened, fresh tenants, task and record builders. */
export function storeFixture(options: TaskStoreContractOptions) {
  const made: TaskStore[] = [];
  const open = async (limits: Partial<TaskStoreContractLimits> = {}): Promise<TaskStore> => {
    const store = await options.create({ ...LARGE, ...limits });
    made.push(store);
    return store;
  };
  // Tenants of their own per test: a shared backend never mixes runs.
  const tenant = (): string => `contract-${randomUUID()}`;
  const task = (id: string, state: State, timestamp = new Date().toISOString(), contextId = 'c'): Task => ({
    id,
    contextId,
    status: { state, timestamp },
  });
  const record = (tenantId: string, owner: string, value: Task, updatedAt = Date.now()): TaskRecord => ({
    tenant: tenantId,
    owner,
    task: value,
    updatedAt,
  });
  const isConflict = (error: unknown): boolean => TaskRevisionConflictError.isInstance(error);
  return { options, made, open, tenant, task, record, isConflict, otherSendKeys };
}

export type StoreFixture = ReturnType<typeof storeFixture>;
