import type { A2AClient } from '@a2aplane/a2a-client';
import type { Message, StreamResponse } from '@a2aplane/a2a-types';
import { useRef, useState } from 'preact/hooks';
import { type Entry, type FollowedTask, foldEvent, foldTask } from '../../lib/task-follow.js';

export interface SendInput {
  text: string;
  /** JSON for a data part, or empty. */
  data: string;
  skillId: string;
  stream: boolean;
  /** Keep the conversation's context (and the task, when it waits for input). */
  continueContext: boolean;
  /** SendMessage answers at once with the task instead of waiting for it to finish. */
  returnImmediately: boolean;
}

/** The conversation with one agent: entries, the followed task, sending, streaming, cancel and resubscribe. */
export function useConversation(client: A2AClient) {
  const [entries, setEntries] = useState<Entry[]>([]);
  const [task, setTask] = useState<FollowedTask | undefined>();
  const [busy, setBusy] = useState(false);
  const taskRef = useRef<FollowedTask | undefined>(undefined);
  const contextRef = useRef<string | undefined>(undefined);
  const abortRef = useRef<AbortController | undefined>(undefined);

  const add = (entry: Entry) => setEntries((list) => [...list, entry]);
  const follow = (next: FollowedTask | undefined) => {
    taskRef.current = next;
    if (next?.contextId) contextRef.current = next.contextId;
    setTask(next);
  };
  const consume = async (events: AsyncIterable<StreamResponse>) => {
    for await (const event of events) {
      const folded = foldEvent(taskRef.current, event);
      follow(folded.task);
      if (folded.entry) add(folded.entry);
      if (event.message?.contextId) contextRef.current = event.message.contextId;
    }
  };
  const run = async (work: (signal: AbortSignal) => Promise<void>) => {
    const controller = new AbortController();
    abortRef.current = controller;
    setBusy(true);
    try {
      await work(controller.signal);
    } catch (error) {
      if (!controller.signal.aborted) add({ kind: 'error', error });
    } finally {
      setBusy(false);
    }
  };

  return {
    entries,
    task,
    busy,
    send(input: SendInput) {
      const parts: Message['parts'] = [];
      if (input.text) parts.push({ text: input.text });
      if (input.data.trim()) parts.push({ data: JSON.parse(input.data) as unknown, mediaType: 'application/json' });
      const message: Message = {
        messageId: crypto.randomUUID(),
        role: 'ROLE_USER',
        parts,
        ...(input.skillId ? { metadata: { skillId: input.skillId } } : {}),
        ...(input.continueContext && contextRef.current ? { contextId: contextRef.current } : {}),
      };
      add({ kind: 'user', message });
      return run(async (signal) => {
        if (input.stream) return consume(client.sendStreamingMessage({ message }, { signal }));
        const configuration = input.returnImmediately ? { configuration: { returnImmediately: true } } : {};
        const result = await client.sendMessage({ message, ...configuration }, { signal });
        if (result.task) {
          follow(foldTask(taskRef.current, result.task));
          add({ kind: 'event', label: `task ${result.task.id}: ${result.task.status.state}` });
          const last = result.task.status.message;
          if (last) add({ kind: 'agent', message: last });
        } else if (result.message) add({ kind: 'agent', message: result.message });
      });
    },
    async cancel() {
      const id = taskRef.current?.id;
      if (!id) return;
      try {
        follow(foldTask(taskRef.current, await client.cancelTask({ id })));
        add({ kind: 'event', label: `cancel requested for ${id}` });
      } catch (error) {
        add({ kind: 'error', error });
      }
    },
    /** Stops reading the current stream (the task goes on at the agent). */
    detach() {
      abortRef.current?.abort();
    },
    resubscribe(lastEventId: string | undefined) {
      const id = taskRef.current?.id;
      if (!id) return Promise.resolve();
      add({ kind: 'event', label: lastEventId ? `resubscribed after event ${lastEventId}` : 'resubscribed (from the current state)' });
      return run((signal) => consume(client.subscribeToTask({ id }, { signal, ...(lastEventId ? { lastEventId } : {}) })));
    },
    async refresh() {
      const id = taskRef.current?.id;
      if (!id) return;
      try {
        follow(foldTask(taskRef.current, await client.getTask({ id })));
      } catch (error) {
        add({ kind: 'error', error });
      }
    },
    open(id: string) {
      return run(async () => {
        follow(foldTask(undefined, await client.getTask({ id })));
      });
    },
  };
}

export type Conversation = ReturnType<typeof useConversation>;
