import type { A2AClient } from '@a2aplane/a2a-client';
import type { Task } from '@a2aplane/a2a-types';
import { useState } from 'preact/hooks';
import { ErrorBox } from './error-box.js';

const STATES = ['', 'SUBMITTED', 'WORKING', 'INPUT_REQUIRED', 'AUTH_REQUIRED', 'COMPLETED', 'CANCELED', 'FAILED', 'REJECTED'];

/** ListTasks with its filters (context, state, page size, pages); a row opens the task. */
export function TasksList({ client, onOpen }: { client: A2AClient; onOpen(id: string): void }) {
  const [contextId, setContextId] = useState('');
  const [status, setStatus] = useState('');
  const [pageSize, setPageSize] = useState(20);
  const [tasks, setTasks] = useState<Task[] | undefined>();
  const [next, setNext] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const load = async (pageToken?: string) => {
    setError(undefined);
    try {
      const result = await client.listTasks({
        pageSize,
        ...(contextId ? { contextId } : {}),
        ...(status ? { status: `TASK_STATE_${status}` as Task['status']['state'] } : {}),
        ...(pageToken ? { pageToken } : {}),
      });
      setTasks((list) => (pageToken ? [...(list ?? []), ...result.tasks] : result.tasks));
      setNext(result.nextPageToken || undefined);
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <section class="panel" data-testid="tasks-list">
      <h3>Tasks</h3>
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          void load();
        }}
      >
        <input
          placeholder="context id"
          value={contextId}
          onInput={(e) => setContextId((e.target as HTMLInputElement).value)}
          aria-label="Context id filter"
        />
        <select
          value={status}
          onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}
          aria-label="State filter"
          data-testid="tasks-state"
        >
          {STATES.map((s) => (
            <option key={s} value={s}>
              {s ? s.toLowerCase() : 'any state'}
            </option>
          ))}
        </select>
        <input
          type="number"
          min={1}
          max={100}
          value={pageSize}
          onInput={(e) => setPageSize(Number((e.target as HTMLInputElement).value) || 20)}
          aria-label="Page size"
          style="width: 5rem"
        />
        <button type="submit" data-testid="tasks-list-button">
          List
        </button>
      </form>
      {error ? <ErrorBox error={error} title="ListTasks failed" /> : null}
      {tasks ? (
        <table class="log">
          <tbody>
            {tasks.map((task) => (
              <tr key={task.id} data-testid="task-row">
                <td>
                  <button type="button" class="secondary" onClick={() => onOpen(task.id)}>
                    <code>{task.id}</code>
                  </button>
                </td>
                <td>{task.status.state.replace('TASK_STATE_', '').toLowerCase()}</td>
                <td class="muted">{task.contextId}</td>
              </tr>
            ))}
            {tasks.length === 0 ? (
              <tr>
                <td class="muted">no tasks</td>
              </tr>
            ) : null}
          </tbody>
        </table>
      ) : null}
      {next ? (
        <button type="button" class="secondary" onClick={() => void load(next)}>
          More
        </button>
      ) : null}
    </section>
  );
}
