import { stateOf, TERMINAL_STATES } from '../../lib/task-follow.js';
import { ArtifactView, PartView } from './parts.js';
import type { Conversation } from './use-conversation.js';
import { cursorOf, useLog } from './use-log.js';

/** The followed task: status history, artifacts, cancel, refresh, and resubscribe from the resume cursor. */
export function TaskPanel({ conversation }: { conversation: Conversation }) {
  const log = useLog();
  const { task } = conversation;
  if (!task) return null;
  const state = stateOf(task);
  const cursor = cursorOf(log, task.id);
  const terminal = state !== undefined && TERMINAL_STATES.has(state);
  return (
    <section class="panel" data-testid="task-panel">
      <h3>
        Task <code data-testid="task-id">{task.id}</code>{' '}
        <span class={`badge ${state === 'TASK_STATE_COMPLETED' ? 'ok' : terminal ? 'bad' : 'warn'}`} data-testid="task-state">
          {state?.replace('TASK_STATE_', '').toLowerCase()}
        </span>
      </h3>
      <div class="row">
        <button type="button" class="secondary" onClick={() => void conversation.cancel()} disabled={terminal} data-testid="task-cancel">
          Cancel
        </button>
        <button type="button" class="secondary" onClick={() => void conversation.refresh()}>
          Refresh
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() => void conversation.resubscribe(cursor)}
          disabled={terminal || conversation.busy}
          data-testid="task-resubscribe"
        >
          Resubscribe
        </button>
        <span class="muted" data-testid="task-cursor">
          resume cursor: {cursor === undefined ? 'none (no event id seen)' : <code>{cursor}</code>}
        </span>
      </div>
      <h3>Status history</h3>
      <ol data-testid="task-statuses">
        {task.statuses.map((status, index) => (
          <li key={index}>
            <code>{status.state.replace('TASK_STATE_', '').toLowerCase()}</code> <span class="muted">{status.timestamp ?? ''}</span>{' '}
            {status.message?.parts.map((part, i) => (
              <PartView key={i} part={part} />
            ))}
          </li>
        ))}
      </ol>
      {task.artifacts.length > 0 ? <h3>Artifacts</h3> : null}
      {task.artifacts.map((artifact) => (
        <ArtifactView key={artifact.artifactId} artifact={artifact} />
      ))}
    </section>
  );
}
