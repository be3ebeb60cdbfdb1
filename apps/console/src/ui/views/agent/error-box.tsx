import { describeError } from '../../lib/errors.js';

/** A failed call: its error name and code, the refusal reason when the agent gave one, the message. */
export function ErrorBox({ error, title }: { error: unknown; title?: string }) {
  const shown = describeError(error);
  return (
    <div class="msg refused" role="alert" data-testid="error">
      <strong class="bad">{title ?? 'Refused'}</strong>{' '}
      <code>
        {shown.name}
        {shown.code !== undefined ? ` (${shown.code})` : ''}
      </code>
      {shown.reason ? (
        <div>
          reason: <strong data-testid="error-reason">{shown.reason}</strong>
        </div>
      ) : null}
      <div data-testid="error-message">{shown.message}</div>
      {shown.details ? <pre>{JSON.stringify(shown.details, null, 2)}</pre> : null}
    </div>
  );
}
