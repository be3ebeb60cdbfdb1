import assert from 'node:assert/strict';
import type { TaskCancelRequest } from '../../bus/task-event-bus.js';
import { type ContractTestApi, eventually } from '../contract-api.js';
import type { BusFixture } from './fixture.js';

/** The TaskEventBus contract: cancel fan-out to the replica running the task. */
export function cancelContract(t: ContractTestApi, { timeout, replicas, key }: BusFixture): void {
  t.it('routes a cancel request to the replica running the task, and says when none is', async () => {
    const [runner, other] = await replicas();
    const k = key();
    assert.equal(await other.requestCancel(k, {}), false);
    const received: TaskCancelRequest[] = [];
    const stop = runner.onCancel(k, (request) => received.push(request));
    // Registration may take a moment on a remote backend.
    await eventually(
      async () => (received.length > 0 ? true : await other.requestCancel(k, { metadata: { reason: 'user' } })),
      timeout,
      'a runner to be found',
    );
    await eventually(() => received.length > 0, timeout, 'the runner to get the request');
    assert.deepEqual(received[0], { metadata: { reason: 'user' } });
    // Another task's cancel does not reach it.
    assert.equal(await other.requestCancel(key(), {}), false);
    stop();
    await eventually(async () => !(await other.requestCancel(k, {})), timeout, 'the runner to be gone');
    // A runner whose bus closes is gone too.
    runner.onCancel(k, (request) => received.push(request));
    await eventually(async () => await other.requestCancel(k, {}), timeout, 'the runner to be back');
    await runner.close();
    await eventually(async () => !(await other.requestCancel(k, {})), timeout, 'the closed runner to be gone');
  });
}
