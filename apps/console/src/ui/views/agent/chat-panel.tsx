import type { AgentCard } from '@a2aplane/a2a-types';
import { useState } from 'preact/hooks';
import { ErrorBox } from './error-box.js';
import { MessageView } from './parts.js';
import type { Conversation } from './use-conversation.js';

/** Compose and send (or stream) a message; the conversation below, events and refusals included. */
export function ChatPanel({ card, conversation }: { card: AgentCard; conversation: Conversation }) {
  const [text, setText] = useState('');
  const [data, setData] = useState('');
  const [skillId, setSkillId] = useState('');
  const [stream, setStream] = useState(card.capabilities?.streaming === true);
  const [continueContext, setContinueContext] = useState(true);
  const [returnImmediately, setReturnImmediately] = useState(false);
  const [dataError, setDataError] = useState<string | undefined>();
  const submit = (event: Event) => {
    event.preventDefault();
    if (data.trim()) {
      try {
        JSON.parse(data);
      } catch {
        setDataError('the data part is not JSON');
        return;
      }
    }
    setDataError(undefined);
    void conversation.send({ text, data, skillId, stream, continueContext, returnImmediately });
    setText('');
  };
  return (
    <section class="panel" data-testid="chat-panel">
      <h3>Talk</h3>
      <form onSubmit={submit}>
        <textarea
          placeholder="Message text"
          value={text}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          aria-label="Message"
          data-testid="chat-text"
        />
        <details>
          <summary>Data part (JSON)</summary>
          <textarea
            placeholder='{"key": "value"}'
            value={data}
            onInput={(e) => setData((e.target as HTMLTextAreaElement).value)}
            aria-label="Data part"
          />
        </details>
        {dataError ? <p class="bad">{dataError}</p> : null}
        <div class="row">
          <select
            value={skillId}
            onChange={(e) => setSkillId((e.target as HTMLSelectElement).value)}
            aria-label="Skill"
            data-testid="chat-skill"
          >
            <option value="">(agent’s choice of skill)</option>
            {(card.skills ?? []).map((skill) => (
              <option key={skill.id} value={skill.id}>
                {skill.name}
              </option>
            ))}
            <option value="not-a-skill">other (not on the card)</option>
          </select>
          <label>
            <input
              type="checkbox"
              checked={stream}
              onChange={(e) => setStream((e.target as HTMLInputElement).checked)}
              data-testid="chat-stream"
            />{' '}
            stream
          </label>
          {stream ? null : (
            <label>
              <input
                type="checkbox"
                checked={returnImmediately}
                onChange={(e) => setReturnImmediately((e.target as HTMLInputElement).checked)}
                data-testid="chat-return-immediately"
              />{' '}
              return immediately
            </label>
          )}
          <label>
            <input type="checkbox" checked={continueContext} onChange={(e) => setContinueContext((e.target as HTMLInputElement).checked)} />{' '}
            same context
          </label>
          <button type="submit" disabled={conversation.busy || (!text && !data)} data-testid="chat-send">
            Send
          </button>
          {conversation.busy ? (
            <button type="button" class="secondary" onClick={() => conversation.detach()}>
              Stop reading
            </button>
          ) : null}
        </div>
      </form>
      <div data-testid="conversation">
        {conversation.entries.map((entry, index) => {
          const key = `${index}`;
          if (entry.kind === 'user' || entry.kind === 'agent') return <MessageView key={key} message={entry.message} />;
          if (entry.kind === 'error') return <ErrorBox key={key} error={entry.error} />;
          return (
            <div key={key} class="muted" data-testid="event">
              · {entry.label}
            </div>
          );
        })}
      </div>
    </section>
  );
}
