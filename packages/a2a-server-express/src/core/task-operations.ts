import {
  type A2ARequestMap,
  type AgentCard,
  ExtendedAgentCardNotConfiguredError,
  InvalidParamsError,
  type ListTasksResponse,
  PushNotificationNotSupportedError,
  type TaskPushNotificationConfig,
  TaskNotFoundError,
  UnauthenticatedError,
  UnsupportedOperationError,
} from '@a2aplane/a2a-types';
import { redactPushConfig } from '../push/redact.js';
import { checkWebhookUrl } from '../push/webhook-url.js';
import type { TaskKey } from '../store/task-store.js';
import type { Caller } from './caller.js';
import { type ServerContext, trimHistory } from './server-context.js';
import type { TaskRegistry } from './task-registry.js';
import type { WebhookUrlCheck } from './types.js';
import { newId } from '../agent/new-id.js';

/** The task reads and push-config operations, and the extended card. */
export function createTaskOperations(ctx: ServerContext, registry: TaskRegistry) {
  const { options, card, store } = ctx;
  const { loadOwned } = registry;
  async function listTasks(params: A2ARequestMap['ListTasks'], caller: Caller): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? 50;
    const after = params.statusTimestampAfter === undefined ? undefined : Date.parse(params.statusTimestampAfter);
    const page = await store.list({
      tenant: params.tenant ?? '',
      owner: caller.owner,
      pageSize,
      ...(params.contextId === undefined ? {} : { contextId: params.contextId }),
      ...(params.status === undefined ? {} : { status: params.status }),
      ...(after === undefined ? {} : { statusTimestampAfter: after }),
      ...(params.pageToken ? { pageToken: params.pageToken } : {}),
    });
    if (!page) throw new InvalidParamsError({ message: 'pageToken is not valid' });
    const tasks = page.records.map(({ task }) => {
      let out = trimHistory(task, params.historyLength);
      if (params.includeArtifacts !== true && out.artifacts !== undefined) {
        const { artifacts: _omit, ...rest } = out;
        out = rest;
      }
      return out;
    });
    return { tasks, nextPageToken: page.nextPageToken, pageSize, totalSize: page.totalSize };
  }

  // Safe by default: the sender's own check (so create and delivery agree), else the strict one.
  const checkUrl: WebhookUrlCheck | undefined =
    options.checkWebhookUrl === false
      ? undefined
      : (options.checkWebhookUrl ?? options.pushSender?.checkUrl ?? ((url) => checkWebhookUrl(url)));

  /** Every push config, created or inline in SendMessage, passes the same webhook URL check. */
  async function vetWebhookUrl(url: string): Promise<void> {
    if (!checkUrl) return;
    const verdict = await checkUrl(url);
    if (!verdict.ok) throw new InvalidParamsError({ message: `Webhook URL rejected: ${verdict.reason}`, metadata: { field: 'url' } });
  }

  function requirePush(): void {
    if (!card.capabilities.pushNotifications) throw new PushNotificationNotSupportedError();
  }

  async function createPushConfig(
    params: A2ARequestMap['CreateTaskPushNotificationConfig'],
    caller: Caller,
  ): Promise<TaskPushNotificationConfig> {
    requirePush();
    const key = { tenant: params.tenant ?? '', taskId: params.taskId };
    await loadOwned(key, caller);
    await vetWebhookUrl(params.url);
    const config = { ...params, id: params.id ?? newId() };
    await store.putPushConfig(key, config);
    return config;
  }

  /** The push config `id` of a task of `caller`, its secrets redacted (TaskNotFoundError when either is not there). */
  async function getPushConfig(
    params: A2ARequestMap['GetTaskPushNotificationConfig'],
    caller: Caller,
  ): Promise<TaskPushNotificationConfig> {
    const key = await ownedPushKey(params.tenant, params.taskId, caller);
    const found = (await store.listPushConfigs(key)).find((c) => c.id === params.id);
    if (!found)
      throw new TaskNotFoundError({ message: 'Push notification config not found', metadata: { taskId: params.taskId.slice(0, 128) } });
    return redactPushConfig(found);
  }

  async function listPushConfigs(params: A2ARequestMap['ListTaskPushNotificationConfigs'], caller: Caller) {
    const key = await ownedPushKey(params.tenant, params.taskId, caller);
    return { configs: (await store.listPushConfigs(key)).map(redactPushConfig), nextPageToken: '' };
  }

  async function deletePushConfig(params: A2ARequestMap['DeleteTaskPushNotificationConfig'], caller: Caller): Promise<object> {
    await store.deletePushConfig(await ownedPushKey(params.tenant, params.taskId, caller), params.id);
    return {};
  }

  /** The key of a task of `caller` whose push configs are read or deleted (push must be on). */
  async function ownedPushKey(tenant: string | undefined, taskId: string, caller: Caller): Promise<TaskKey> {
    requirePush();
    const key = { tenant: tenant ?? '', taskId };
    await loadOwned(key, caller);
    return key;
  }

  async function getExtendedCard(caller: Caller): Promise<AgentCard> {
    if (!card.capabilities.extendedAgentCard) throw new UnsupportedOperationError({ message: 'This agent has no extended agent card' });
    if (!caller.principal) throw new UnauthenticatedError({ message: 'The extended agent card requires authentication' });
    const extended = options.extendedCard;
    if (!extended) throw new ExtendedAgentCardNotConfiguredError();
    return typeof extended === 'function' ? extended(caller.principal) : extended;
  }

  return { listTasks, vetWebhookUrl, createPushConfig, getPushConfig, listPushConfigs, deletePushConfig, getExtendedCard };
}
