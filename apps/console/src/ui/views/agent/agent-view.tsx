import type { TransportBinding } from '@a2aplane/a2a-client';
import { useMemo, useState } from 'preact/hooks';
import { runtime } from '../../lib/runtime.js';
import { credentialStore, type StoredCredential } from '../../lib/secrets.js';
import { createSessionClient, protocolOf } from '../../lib/session.js';
import { AuthPanel } from './auth-panel.js';
import { CardPanel } from './card-panel.js';
import { ChatPanel } from './chat-panel.js';
import { type ConnectRequest, ConnectBar } from './connect-bar.js';
import { ErrorBox } from './error-box.js';
import { LogPanel } from './log-panel.js';
import { authForOpened, type OpenedAgent, openAgent } from './open-agent.js';
import { TaskPanel } from './task-panel.js';
import { TasksList } from './tasks-list.js';
import { useConversation } from './use-conversation.js';

/** Talking to one opened agent: its client is rebuilt when the credential changes. */
function AgentSession({ agent, request }: { agent: OpenedAgent; request: ConnectRequest }) {
  const [credential, setCredential] = useState<StoredCredential | undefined>(agent.credential);
  const [binding, setBinding] = useState<TransportBinding | ''>('');
  const card = agent.inspection.discovered.card;
  const bindings = [...new Set(card.supportedInterfaces.map((iface) => iface.protocolBinding))];
  const client = useMemo(
    () =>
      createSessionClient({
        card,
        fetch: runtime.fetch,
        auth: authForOpened(agent, credential, request.allowInsecureLoopback),
        protocolVersion: protocolOf(card),
        ...(binding ? { binding } : {}),
      }),
    [agent, credential, card, request.allowInsecureLoopback, binding],
  );
  const conversation = useConversation(client);
  const apply = (next: StoredCredential | undefined) => {
    if (next) credentialStore.save(agent.origin, next);
    else credentialStore.forget(agent.origin);
    setCredential(next);
  };
  return (
    <>
      <div class="grid">
        <div>
          <CardPanel inspection={agent.inspection} />
          <AuthPanel schemes={agent.schemes} origin={agent.origin} credential={credential} onApply={apply} />
          {agent.relayRefused.length > 0 ? (
            <section class="panel warn" data-testid="relay-refused">
              The relay will not reach {agent.relayRefused.map((r) => `${r.url} (${r.reason})`).join('; ')}: only direct calls (the agent’s
              CORS) work there.
            </section>
          ) : null}
        </div>
        <div>
          {bindings.length > 1 ? (
            <label class="row">
              binding
              <select
                value={binding}
                onChange={(e) => setBinding((e.target as HTMLSelectElement).value)}
                aria-label="Binding"
                data-testid="binding"
              >
                <option value="">the card’s order</option>
                {bindings.map((b) => (
                  <option key={b} value={b}>
                    {b}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          <ChatPanel card={card} conversation={conversation} />
          <TaskPanel conversation={conversation} />
          <TasksList client={client} onOpen={(id) => void conversation.open(id)} />
        </div>
      </div>
      <LogPanel />
    </>
  );
}

/** Any agent by URL: the card and its verdict, then a conversation with it. */
export function AgentView() {
  const [busy, setBusy] = useState(false);
  const [opened, setOpened] = useState<{ agent: OpenedAgent; request: ConnectRequest; serial: number } | undefined>();
  const [error, setError] = useState<unknown>();
  const open = async (request: ConnectRequest) => {
    setBusy(true);
    setError(undefined);
    try {
      const agent = await openAgent(request);
      setOpened((previous) => ({ agent, request, serial: (previous?.serial ?? 0) + 1 }));
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div data-testid="agent-view">
      <ConnectBar busy={busy} onOpen={(request) => void open(request)} />
      {busy ? <p class="muted">Reading the card…</p> : null}
      {error ? <ErrorBox error={error} title="Could not open this agent" /> : null}
      {opened ? <AgentSession key={opened.serial} agent={opened.agent} request={opened.request} /> : null}
      {!opened && !error ? <LogPanel /> : null}
    </div>
  );
}
