import { type AgentExecutor, createTaskUpdater } from '@a2aplane/a2a-server-express';
import type { Part } from '@a2aplane/a2a-types';

export interface EchoExecutorOptions {
  /** Pause between streamed words, so streaming and cancel are visible. Default 0. */
  wordDelayMs?: number;
}

/** A data part as text; one `JSON.stringify` cannot render (too deep for the stack) is echoed as a marker. */
function dataText(data: unknown): string {
  try {
    return JSON.stringify(data) ?? '';
  } catch {
    return '[data]';
  }
}

const textOf = (parts: readonly Part[]): string =>
  parts
    .map((part) => (part.text !== undefined ? part.text : part.data !== undefined ? dataText(part.data) : ''))
    .filter(Boolean)
    .join(' ');

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * The smallest useful agent: a task that streams the input back word by word as one artifact
 * (append chunks, last chunk marked) and completes; it stops cooperatively when canceled.
 */
export function createEchoExecutor(options: EchoExecutorOptions = {}): AgentExecutor {
  const wordDelayMs = options.wordDelayMs ?? 0;
  return {
    async execute(context, events) {
      const task = createTaskUpdater(context, events);
      task.submit();
      task.startWork('echoing');
      const words = textOf(context.message.parts).split(/\s+/).filter(Boolean);
      const artifactId = `echo-${context.taskId}`;
      for (let i = 0; i < words.length; i++) {
        await sleep(wordDelayMs, context.signal);
        if (context.signal.aborted) return; // the server records CANCELED
        task.addArtifact([{ text: i === 0 ? words[i]! : ` ${words[i]}` }], {
          artifactId,
          name: 'echo',
          append: i > 0,
          lastChunk: i === words.length - 1,
        });
      }
      if (words.length === 0) task.addArtifact([{ text: '' }], { artifactId, name: 'echo', lastChunk: true });
      events.reportUsage({ tokens: words.length, usd: words.length * 0.000_001 });
      task.complete();
    },
  };
}
