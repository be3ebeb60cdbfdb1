import type { AgentCard, SendMessageRequest } from '@a2aplane/a2a-types';

/** A typical card: two interfaces, streaming, three skills. */
export function typicalCard(baseUrl = 'http://127.0.0.1:8080'): AgentCard {
  return {
    name: 'bench-agent',
    description: 'An agent used by the a2aplane benchmarks.',
    version: '1.0.0',
    provider: { organization: 'a2aplane', url: 'https://example.com' },
    supportedInterfaces: [
      { url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain'],
    skills: [
      { id: 'echo', name: 'Echo', description: 'Echoes its input.', tags: ['echo', 'test'] },
      { id: 'summarize', name: 'Summarize', description: 'Summarizes a document.', tags: ['text'], examples: ['summarize this'] },
      { id: 'search', name: 'Search', description: 'Searches the memory tier.', tags: ['memory', 'vectors'] },
    ],
  } as AgentCard;
}

/**
 * The params of a SendMessage request. Servers may deduplicate by `messageId` (ours does, spec
 * §3.3.1), so every request that must run the agent needs its own: the default is a fresh UUID.
 */
export function sendMessageParams(text = 'hello', messageId: string = globalThis.crypto.randomUUID()): SendMessageRequest {
  return {
    message: { messageId, role: 'ROLE_USER', parts: [{ text }] },
  } as SendMessageRequest;
}

/** The JSON-RPC body of that request, as sent on the wire. */
export function sendMessageBody(text = 'hello', messageId?: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendMessageParams(text, messageId) });
}

/** The smallest card of the in-process micro-benchmarks: one JSON-RPC interface, one echo skill. */
export const microCard: AgentCard = {
  name: 'bench',
  description: 'bench',
  version: '1.0.0',
  supportedInterfaces: [{ url: 'http://127.0.0.1:1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'echo', description: 'echo', tags: ['echo'] }],
};
