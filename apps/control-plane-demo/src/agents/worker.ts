import { type AgentExecutor, createTaskUpdater } from '@a2aplane/a2a-server-express';

/**
 * The agent of scenario 1: the same code runs in process (local executor) and behind HTTP
 * (remote executor). Deterministic output, a failure path, and a cooperative stop on cancel.
 * A message asking for a "long" analysis pauses `longStepDelayMs` per step (default 5 s, cut
 * short by a cancel): long enough that a cancel sent over HTTP always arrives mid-step, so the
 * local and the remote task are canceled at the same point.
 */
export function createWorkerExecutor(options: { stepDelayMs?: number; longStepDelayMs?: number } = {}): AgentExecutor {
  const shortDelay = options.stepDelayMs ?? 0;
  const longDelay = options.longStepDelayMs ?? 5000;
  const pause = (signal: AbortSignal, delay: number): Promise<void> =>
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
      const text = context.message.parts
        .map((part) => part.text ?? '')
        .join(' ')
        .trim();
      task.submit();
      task.startWork('analysing');
      const delay = /\blong\b/i.test(text) ? longDelay : shortDelay;
      await pause(context.signal, delay);
      if (context.signal.aborted) return;
      if (/\bfail\b/i.test(text)) {
        task.fail('the input asked to fail');
        return;
      }
      const words = text.split(/\s+/).filter(Boolean);
      task.addArtifact([{ text: text.toUpperCase() }], { artifactId: 'summary', name: 'summary' });
      await pause(context.signal, delay);
      if (context.signal.aborted) return;
      task.addArtifact([{ data: { words: words.length, characters: text.length } }], {
        artifactId: 'stats',
        name: 'stats',
        lastChunk: true,
      });
      events.reportUsage({ tokens: words.length, usd: 0.001 * words.length });
      task.complete('done');
    },
  };
}
