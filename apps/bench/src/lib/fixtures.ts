import { A2A_VERSION_HEADER, type SendMessageRequest } from '@a2aplane/a2a-types';

/**
 * The params of a SendMessage request. Servers may deduplicate by `messageId` (ours does, spec
 * §3.3.1), so every request that must run the agent needs its own: the default is a fresh UUID.
 */
export function sendMessageParams(text = 'hello', messageId: string = globalThis.crypto.randomUUID()): SendMessageRequest {
  return { message: { messageId, role: 'ROLE_USER', parts: [{ text }] } } as SendMessageRequest;
}

/** The JSON-RPC body of that request, as sent on the wire. */
export function sendMessageBody(text = 'hello', messageId?: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendMessageParams(text, messageId) });
}

export type JsonRpcReply = { result?: { task?: { status?: { state?: string } } }; error?: { data?: Array<{ reason?: string }> } };

/** A JSON-RPC `SendMessage` with `params` POSTed to `${baseUrl}/a2a/jsonrpc`; the parsed reply. */
export async function postSendMessage(baseUrl: string, params: object): Promise<JsonRpcReply> {
  const response = await fetch(`${baseUrl}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [A2A_VERSION_HEADER]: '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params }),
  });
  return (await response.json()) as JsonRpcReply;
}
