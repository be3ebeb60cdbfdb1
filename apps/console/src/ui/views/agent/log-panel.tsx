import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { runtime } from '../../lib/runtime.js';
import { useLog } from './use-log.js';

/** Every HTTP exchange with the agent (JSON-RPC and REST), with timing and the route it took. */
export function LogPanel() {
  const entries = useLog();
  const [open, setOpen] = useState<number | undefined>();
  return (
    <section class="panel" data-testid="log-panel">
      <h3>
        Raw log <span class="muted">({entries.length})</span>{' '}
        <button type="button" class="secondary" onClick={() => runtime.log.clear()}>
          Clear
        </button>
      </h3>
      <table class="log">
        <thead>
          <tr>
            <th>#</th>
            <th>operation</th>
            <th>via</th>
            <th>status</th>
            <th>headers</th>
            <th>total</th>
            <th>url</th>
          </tr>
        </thead>
        <tbody>
          {[...entries].reverse().map((entry) => (
            <Fragment key={entry.id}>
              <tr data-testid="log-row" onClick={() => setOpen(open === entry.id ? undefined : entry.id)} style="cursor: pointer">
                <td>{entry.id}</td>
                <td>
                  <code>{entry.operation}</code>
                </td>
                <td data-testid="log-via">{entry.via}</td>
                <td class={entry.error || (entry.status ?? 0) >= 400 ? 'bad' : ''}>{entry.error ? 'error' : (entry.status ?? '…')}</td>
                <td>{entry.headersMs !== undefined ? `${entry.headersMs} ms` : ''}</td>
                <td>{entry.totalMs !== undefined ? `${entry.totalMs} ms` : '…'}</td>
                <td class="muted">{entry.url}</td>
              </tr>
              {open === entry.id ? (
                <tr>
                  <td colSpan={7}>
                    <strong>request</strong>
                    <pre data-testid="log-request">{JSON.stringify(entry.requestHeaders, null, 2)}</pre>
                    {entry.requestBody ? <pre>{entry.requestBody}</pre> : null}
                    <strong>response</strong>
                    {entry.lastEventId !== undefined ? <span class="muted"> · last event id {entry.lastEventId}</span> : null}
                    <pre>{JSON.stringify(entry.responseHeaders ?? {}, null, 2)}</pre>
                    {entry.responseBody ? <pre>{entry.responseBody}</pre> : null}
                    {entry.error ? <pre class="bad">{entry.error}</pre> : null}
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </tbody>
      </table>
    </section>
  );
}
