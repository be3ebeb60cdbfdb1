import { A2ATransportError } from '@a2aplane/a2a-client';
import { TaskNotFoundError } from '@a2aplane/a2a-types';
import type { AgentCard } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { describeCallError } from '../src/errors.js';
import { partToContent, toolsFromCard } from '../src/index.js';
import { resultContent } from '../src/content.js';

const card = (ids: string[]): AgentCard => ({
  name: 'a',
  description: 'd',
  version: '1.0.0',
  supportedInterfaces: [],
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: ids.map((id) => ({ id, name: id, description: `does ${id}`, tags: [], inputModes: ['text/plain'] })),
});

describe('skills to tools', () => {
  it('names a tool after its skill id (other characters as _) and describes it with the input modes', () => {
    const [tool] = toolsFromCard(card(['summarize text/v2']));
    expect(tool).toMatchObject({ name: 'summarize_text_v2', description: 'does summarize text/v2 Accepts: text/plain.' });
    expect(tool?.toParts({ text: 'hi', data: { a: 1 } })).toEqual([{ text: 'hi' }, { data: { a: 1 } }]);
    expect(tool?.toParts({ text: 5, data: [1] })).toEqual([]);
  });

  it('applies an operator mapping and refuses one that names an unknown skill, an invalid or a duplicate name', () => {
    const [tool] = toolsFromCard(card(['s']), { s: { name: 'search', description: 'Searches.' } });
    expect(tool).toMatchObject({ name: 'search', description: 'Searches.' });
    expect(() => toolsFromCard(card(['s']), { t: {} })).toThrow(TypeError);
    expect(() => toolsFromCard(card(['s']), { s: { name: 'has space' } })).toThrow(TypeError);
    expect(() => toolsFromCard(card(['a', 'b']), { b: { name: 'a' } })).toThrow(TypeError);
  });
});

describe('parts to MCP content', () => {
  it('text as text, data as JSON text, a URL as a resource link, bytes as an embedded resource', () => {
    expect(partToContent({ text: 't' }, 'a1')).toEqual({ type: 'text', text: 't' });
    expect(partToContent({ data: { n: 1 } }, 'a1')).toEqual({ type: 'text', text: '{"n":1}' });
    expect(partToContent({ url: 'https://x.example/f.pdf', filename: 'f.pdf', mediaType: 'application/pdf' }, 'a1')).toEqual({
      type: 'resource_link',
      uri: 'https://x.example/f.pdf',
      name: 'f.pdf',
      mimeType: 'application/pdf',
    });
    expect(partToContent({ raw: 'AAEC', filename: 'b.bin', mediaType: 'application/octet-stream' }, 'a1')).toEqual({
      type: 'resource',
      resource: { uri: 'a2a-artifact:a1/b.bin', blob: 'AAEC', mimeType: 'application/octet-stream' },
    });
  });

  it('joins adjacent text parts of one artifact and gives one data object as structured content', () => {
    const { content, structured } = resultContent(
      [
        { artifactId: 'a', parts: [{ text: 'x' }, { text: 'y' }] },
        { artifactId: 'b', parts: [{ text: 'z' }, { data: { k: true } }] },
      ],
      undefined,
    );
    expect(content).toEqual([
      { type: 'text', text: 'xy' },
      { type: 'text', text: 'z' },
      { type: 'text', text: '{"k":true}' },
    ]);
    expect(structured).toEqual([{ k: true }]);
  });
});

describe('what a failing call tells the MCP caller', () => {
  it('our typed errors by their message; anything else by a fixed text', () => {
    const notFound = new TaskNotFoundError();
    expect(describeCallError(notFound)).toBe(`The agent refused the call: ${notFound.message}`);
    expect(describeCallError(new A2ATransportError('connection refused', { retryable: true }))).toBe(
      'The call to the agent failed: connection refused',
    );
    expect(describeCallError(new Error('secret internals at /srv/app.js:12'))).toBe('The call to the agent failed.');
  });
});
