import { toArtifact } from '@a2aplane/a2a-rulake-artifacts';
import { type AgentExecutor, createA2AServer, createAgentCard, createTaskUpdater } from '@a2aplane/a2a-server-express';
import { startOurAgent, type TestAgent } from './agents.js';

// An agent whose one reply holds every part kind the console renders, plus agent-provided HTML.

export const HOSTILE_HTML = '<img src=x onerror="window.__partsXss = 1">';
export const INLINE_TEXT = 'hello from inline bytes';
/** A 1×1 transparent PNG. */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

function partsExecutor(fileUrl: string): AgentExecutor {
  return {
    async execute(context, events) {
      // "message": the reply is a Message, not a task, holding a data part and agent HTML.
      if (context.message.parts.some((part) => part.text === 'message')) {
        events.publish({
          messageId: globalThis.crypto.randomUUID(),
          contextId: context.contextId,
          role: 'ROLE_AGENT',
          parts: [{ text: `reply ${HOSTILE_HTML}` }, { data: { direct: true } }],
        });
        return;
      }
      const task = createTaskUpdater(context, events);
      task.submit();
      task.addArtifact(
        [
          { text: 'plain text part' },
          { data: { score: 0.9, tags: ['a', 'b'], note: HOSTILE_HTML }, mediaType: 'application/json' },
          { raw: Buffer.from(INLINE_TEXT).toString('base64'), mediaType: 'text/plain', filename: 'hello.txt' },
          { raw: PNG_BASE64, mediaType: 'image/png', filename: 'dot.png' },
          { url: fileUrl, mediaType: 'application/pdf', filename: 'report.pdf' },
          { url: 'javascript:window.__partsXss=2', filename: `not-a-link ${HOSTILE_HTML}` },
          { text: HOSTILE_HTML },
        ],
        { name: 'every-part' },
      );
      const typed = toArtifact({ kind: 'structured_json', value: { verdict: 'ok' }, schema: 'urn:verdict:v1' }, { name: 'typed-verdict' });
      task.addArtifact(typed.parts, { name: typed.name, ...(typed.metadata ? { metadata: typed.metadata } : {}) });
      task.complete([{ text: `done ${HOSTILE_HTML}` }]);
    },
  };
}

/** Our server on 127.0.0.1 (port 0); its reply names `fileUrl` in a URL file part. */
export function startPartsAgent(fileUrl: string): Promise<TestAgent> {
  return startOurAgent(
    (url) =>
      createAgentCard({
        baseUrl: url,
        name: 'Parts Agent',
        description: 'Answers with every part kind.',
        skills: [{ id: 'parts', name: 'Parts', description: 'every part kind', tags: ['parts'] }],
      }),
    (card) => createA2AServer({ card, executor: partsExecutor(fileUrl), onError: false }),
  );
}
