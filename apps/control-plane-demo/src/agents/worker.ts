import { type AgentExecutor, createTaskUpdater } from '@a2aplane/a2a-server-express';

/**
 * The agent of scenario 1: the same code runs in process (local executor) and behind HTTP
 * (remote executor). Deterministic output, a failure path, and a cooperative stop on cancel.
 */
export function createWorkerExecutor(options: { stepDelayMs?: number } = {}): AgentExecutor {
  const delay = options.stepDelayMs ?? 0;
  const pause = (signal: AbortSignal): Promise<void> =>
    new Promise((resolve) => {
      if (delay === 0 || signal.aborted) return resolve();
      const timer = setTimeout(resolve, delay);
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  return {
    async execute(context, events) {
      const task = createTaskUpdater(context, events);
      const text = context.message.parts.map((part) => part.text ?? '').join(' ').trim();
      task.submit();
      task.startWork('analysing');
      await pause(context.signal);
      if (context.signal.aborted) return;
      if (/\bfail\b/i.test(text)) {
        task.fail('the input asked to fail');
        return;
      }
      const words = text.split(/\s+/).filter(Boolean);
      task.addArtifact([{ text: text.toUpperCase() }], { artifactId: 'summary', name: 'summary' });
      await pause(context.signal);
      if (context.signal.aborted) return;
      task.addArtifact([{ data: { words: words.length, characters: text.length } }], { artifactId: 'stats', name: 'stats', lastChunk: true });
      events.reportUsage({ tokens: words.length, usd: 0.001 * words.length });
      task.complete('done');
    },
  };
}
