import { createPushSender, createTaskUpdater } from '@a2aplane/a2a-server-express';
import type { StreamResponse, Task } from '@a2aplane/a2a-types';
import { postSendMessage, sendMessageParams } from '../lib/fixtures.js';
import { num, table } from '../lib/format.js';
import { listen, listenA2A } from '../lib/listen.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

/** A webhook receiver answering 200 after `delayMs`; records the bodies by path. */
async function startReceiver(delayMs: number) {
  const bodies = new Map<string, StreamResponse[]>();
  let count = 0;
  const listening = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const reply = () => {
        bodies.set(req.url ?? '', [...(bodies.get(req.url ?? '') ?? []), JSON.parse(Buffer.concat(chunks).toString('utf8'))]);
        count++;
        res.writeHead(200).end();
      };
      if (delayMs > 0) setTimeout(reply, delayMs);
      else reply();
    });
  });
  return { ...listening, bodies, count: () => count };
}

const stateOf = (body: StreamResponse | undefined): string | undefined => body?.task?.status.state ?? body?.statusUpdate?.status.state;
const stepOf = (body: StreamResponse): number => Number(body.statusUpdate?.metadata?.step ?? body.task?.metadata?.step ?? 0);

/** 40 tasks × 13 events through a server (default push options) to one healthy receiver. */
async function burstThroughServer() {
  const receiver = await startReceiver(0);
  const server = await listenA2A(
    {
      executor: {
        async execute(context, events) {
          const task = createTaskUpdater(context, events);
          task.submit();
          for (let step = 1; step <= 11; step++) {
            const { taskId, contextId } = context;
            events.publish({ taskId, contextId, status: { state: 'TASK_STATE_WORKING' }, metadata: { step } });
            await new Promise((resolve) => setImmediate(resolve));
          }
          task.complete('done');
        },
      },
      pushSender: createPushSender({ ssrf: { allowLoopback: true } }),
    },
    { pushNotifications: true },
  );
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        postSendMessage(server.url, {
          ...sendMessageParams('go', `m-${i}`),
          configuration: { taskPushNotificationConfig: { url: `${receiver.url}/hook/${i}` } },
        }),
      ),
    );
    const deadline = Date.now() + 60_000;
    while (receiver.count() < 520 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    const ms = performance.now() - started;
    const tasks = [...receiver.bodies.values()];
    const inOrder = tasks.filter(
      (bodies) => bodies.length === 13 && bodies.slice(1, 12).every((body, index) => stepOf(body) === index + 1),
    );
    const completed = tasks.filter((bodies) => stateOf(bodies.at(-1)) === 'TASK_STATE_COMPLETED');
    return { delivered: receiver.count(), expected: 520, inOrderTasks: inOrder.length, completedTasks: completed.length, ms };
  } finally {
    await server.close();
    await receiver.close();
  }
}

/** 1 task × `events` events, one a millisecond, to a receiver taking 10 ms per request (default options). */
async function slowReceiver(events: number) {
  const receiver = await startReceiver(10);
  const sender = createPushSender({ ssrf: { allowLoopback: true, allowHttp: true } });
  const config = { id: 'cfg', url: `${receiver.url}/hook` };
  let highWater = 0;
  const heapBefore = process.memoryUsage().heapUsed;
  let heapPeak = heapBefore;
  const started = performance.now();
  for (let step = 1; step <= events; step++) {
    const state = step === events ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING';
    const task: Task = { id: 't', contextId: 'c', status: { state }, metadata: { step } };
    sender.notify({
      config,
      taskId: 't',
      task,
      payload: { statusUpdate: { taskId: 't', contextId: 'c', status: { state }, metadata: { step } } },
    });
    highWater = Math.max(highWater, sender.stats().pending);
    if (step % 10 === 0) {
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  await sender.flush();
  const ms = performance.now() - started;
  await sender.close();
  await receiver.close();
  const stats = sender.stats();
  return {
    events,
    delivered: stats.delivered,
    coalesced: stats.coalesced,
    dropped: stats.dropped,
    highWater,
    completedDelivered: stateOf(receiver.bodies.get('/hook')?.at(-1)) === 'TASK_STATE_COMPLETED',
    heapGrowthBytes: heapPeak - heapBefore,
    ms,
  };
}

/** Push bursts to real receivers on 127.0.0.1 (issue 31): what arrives, in order, and what is coalesced. */
export async function runPushBurst(options: RunOptions): Promise<SuiteResult> {
  const burst = await burstThroughServer();
  const slow = await slowReceiver(options.quick ? 1_000 : 5_000);
  const markdown = [
    table(
      ['scenario', 'delivered', 'in order', 'COMPLETED seen', 'coalesced', 'most waiting', 'time'],
      [
        [
          '40 tasks × 13 events, healthy receiver, through the server',
          `${burst.delivered} / ${burst.expected}`,
          `${burst.inOrderTasks} / 40 tasks`,
          `${burst.completedTasks} / 40`,
          '0',
          '',
          `${num(burst.ms)} ms`,
        ],
        [
          `1 task × ${num(slow.events)} events, 1 ms apart, receiver 10 ms each`,
          num(slow.delivered),
          'yes (lane order)',
          slow.completedDelivered ? 'yes' : 'NO',
          num(slow.coalesced),
          num(slow.highWater),
          `${num(slow.ms)} ms`,
        ],
      ],
    ),
    '',
    `Default push options. Every notification is delivered or coalesced (${num(slow.delivered + slow.coalesced)} of ${num(slow.events)}; dropped ${slow.dropped}); heap growth during the slow-receiver run ${num(slow.heapGrowthBytes / 1024)} KiB.`,
  ].join('\n');
  return { markdown, data: { burst, slow } };
}
