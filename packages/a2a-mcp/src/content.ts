import type { Artifact, Message, Part } from '@a2aplane/a2a-types';

/** The MCP content blocks the bridge produces (a subset of the SDK's `ContentBlock`). */
export type BridgeContent =
  | { type: 'text'; text: string }
  | { type: 'resource_link'; uri: string; name: string; mimeType?: string }
  | { type: 'resource'; resource: { uri: string; blob: string; mimeType?: string } };

function dataText(data: unknown): string {
  try {
    return JSON.stringify(data) ?? 'null';
  } catch {
    return '"[unserializable data]"';
  }
}

/** One part as MCP content: text as text, data as JSON text, a URL as a resource link, bytes as an embedded resource. */
export function partToContent(part: Part, where: string): BridgeContent {
  if (part.text !== undefined) return { type: 'text', text: part.text };
  if (part.url !== undefined) {
    return {
      type: 'resource_link',
      uri: part.url,
      name: part.filename ?? where,
      ...(part.mediaType ? { mimeType: part.mediaType } : {}),
    };
  }
  if (part.raw !== undefined) {
    const name = encodeURIComponent(part.filename ?? 'file');
    return {
      type: 'resource',
      resource: { uri: `a2a-artifact:${where}/${name}`, blob: part.raw, ...(part.mediaType ? { mimeType: part.mediaType } : {}) },
    };
  }
  return { type: 'text', text: dataText(part.data) };
}

/** Artifacts (in order), or a direct message reply, as MCP content; `structured` collects the data parts. */
export function resultContent(
  artifacts: readonly Artifact[],
  message: Message | undefined,
): { content: BridgeContent[]; structured: unknown[] } {
  const content: BridgeContent[] = [];
  const structured: unknown[] = [];
  const add = (parts: readonly Part[], where: string) => {
    let joinable = false;
    for (const part of parts) {
      const last = content.at(-1);
      // Adjacent text parts of one artifact (streamed chunks, or a store's appended parts) read as one text.
      if (joinable && part.text !== undefined && last?.type === 'text') last.text += part.text;
      else content.push(partToContent(part, where));
      joinable = part.text !== undefined;
      if (part.data !== undefined) structured.push(part.data);
    }
  };
  for (const artifact of artifacts) add(artifact.parts, encodeURIComponent(artifact.artifactId));
  if (message) add(message.parts, encodeURIComponent(message.messageId));
  return { content, structured };
}

/** Folds artifact updates into the task's artifacts: `append` extends the parts of the same artifact id. */
export function applyArtifactUpdate(artifacts: Artifact[], update: Artifact, append: boolean | undefined): void {
  const index = artifacts.findIndex((a) => a.artifactId === update.artifactId);
  if (index < 0) {
    artifacts.push({ ...update, parts: [...update.parts] });
    return;
  }
  const current = artifacts[index] as Artifact;
  if (!append) {
    artifacts[index] = { ...update, parts: [...update.parts] };
    return;
  }
  artifacts[index] = { ...current, parts: [...current.parts, ...update.parts] };
}

/** The text of a status message, for progress and errors. */
export function messageText(message: Message | undefined): string | undefined {
  if (!message) return undefined;
  const text = message.parts
    .map((p) => p.text ?? (p.data !== undefined ? dataText(p.data) : ''))
    .filter(Boolean)
    .join(' ');
  return text === '' ? undefined : text;
}
