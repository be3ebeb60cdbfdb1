import type { Artifact, Message, Part } from '@a2aplane/a2a-types';

type Meta = Record<string, unknown> | undefined;
/** The typed-artifact kind (a2a-rulake-artifacts: `metadata.ruvector.artifact_kind`), if any. */
function kindOf(metadata: Meta): string | undefined {
  const ruvector = metadata?.ruvector as Record<string, unknown> | undefined;
  const kind = ruvector?.artifact_kind;
  if (typeof kind !== 'string') return undefined;
  return typeof ruvector?.artifact_kind_version === 'string' ? `${kind} v${ruvector.artifact_kind_version}` : kind;
}

function safeHref(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** One part: text, data (JSON), a file by bytes (download, images inline) or by URL (a link). */
export function PartView({ part }: { part: Part }) {
  const kind = kindOf(part.metadata as Meta);
  const badge = kind ? <span class="badge">{kind}</span> : null;
  if (typeof part.text === 'string')
    return (
      <span class="part text" data-testid="part-text">
        {badge}
        {part.text}
      </span>
    );
  if (part.raw !== undefined) {
    const base64 = String(part.raw);
    const href = `data:${part.mediaType ?? 'application/octet-stream'};base64,${base64}`;
    const isImage = part.mediaType?.startsWith('image/') && part.mediaType !== 'image/svg+xml';
    return (
      <div class="part file" data-testid="part-file">
        {badge} file {part.filename ?? ''} <span class="muted">{part.mediaType}</span>{' '}
        <a href={href} download={part.filename ?? 'part'}>
          download
        </a>
        {isImage ? <img src={href} alt={part.filename ?? 'image part'} style="max-width: 100%" /> : null}
      </div>
    );
  }
  if (typeof part.url === 'string') {
    const href = safeHref(part.url);
    return (
      <div class="part file" data-testid="part-url">
        {badge} file {part.filename ?? ''} <span class="muted">{part.mediaType}</span>{' '}
        {href ? (
          <a href={href} target="_blank" rel="noopener noreferrer">
            {part.url}
          </a>
        ) : (
          <code>{part.url}</code>
        )}
      </div>
    );
  }
  return (
    <div class="part data" data-testid="part-data">
      {badge} <span class="muted">data {part.mediaType ?? ''}</span>
      <pre>{JSON.stringify(part.data, null, 2)}</pre>
    </div>
  );
}

export function MessageView({ message }: { message: Message }) {
  const user = message.role === 'ROLE_USER';
  return (
    <div class={`msg ${user ? 'user' : 'agent'}`} data-testid={user ? 'message-user' : 'message-agent'}>
      <span class="muted">{user ? 'you' : 'agent'}</span>
      {message.parts.map((part, index) => (
        <PartView key={index} part={part} />
      ))}
    </div>
  );
}

export function ArtifactView({ artifact }: { artifact: Artifact }) {
  const kind = kindOf(artifact.metadata as Meta);
  return (
    <div class="msg agent" data-testid="artifact">
      <span class="muted">
        artifact <code>{artifact.name ?? artifact.artifactId}</code>
      </span>{' '}
      {kind ? (
        <span class="badge" data-testid="artifact-kind">
          {kind}
        </span>
      ) : null}
      {artifact.parts.map((part, index) => (
        <PartView key={index} part={part} />
      ))}
    </div>
  );
}
