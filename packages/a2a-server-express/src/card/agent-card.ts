import {
  A2A_PROTOCOL_VERSION,
  type AgentCard,
  AgentCardSchema,
  DEFAULT_JSON_RPC_PATH,
  DEFAULT_REST_PATH,
  PROTOCOL_BINDING,
  parseWith,
} from '@a2aplane/a2a-types';
import { bytesToBase64url, utf8Encode } from '../encoding/base64url.js';

export interface CreateAgentCardOptions
  extends Omit<AgentCard, 'supportedInterfaces' | 'capabilities' | 'defaultInputModes' | 'defaultOutputModes' | 'version'> {
  /** Public origin of the server, such as `https://agent.example.com`. */
  baseUrl: string;
  version?: string;
  capabilities?: AgentCard['capabilities'];
  defaultInputModes?: string[];
  defaultOutputModes?: string[];
  /** Mount points; they must match the node:http/express binding options. */
  jsonRpcPath?: string;
  restPath?: string;
  /** Which bindings to advertise. Default both. */
  bindings?: ('JSONRPC' | 'HTTP+JSON')[];
}

/** Builds a v1.0 card whose `supportedInterfaces` name the mounted JSON-RPC and REST URLs. */
export function createAgentCard(options: CreateAgentCardOptions): AgentCard {
  if (typeof options?.baseUrl !== 'string') throw new TypeError(`expected baseUrl to be a string, got ${typeof options?.baseUrl}`);
  const { baseUrl, jsonRpcPath, restPath, bindings, version, capabilities, defaultInputModes, defaultOutputModes, ...rest } = options;
  const base = baseUrl.replace(/\/+$/, '');
  const wanted = bindings ?? ['JSONRPC', 'HTTP+JSON'];
  const supportedInterfaces: AgentCard['supportedInterfaces'] = [];
  if (wanted.includes('JSONRPC')) {
    supportedInterfaces.push({
      url: base + (jsonRpcPath ?? DEFAULT_JSON_RPC_PATH),
      protocolBinding: PROTOCOL_BINDING.jsonRpc,
      protocolVersion: A2A_PROTOCOL_VERSION,
    });
  }
  if (wanted.includes('HTTP+JSON')) {
    supportedInterfaces.push({
      url: base + (restPath ?? DEFAULT_REST_PATH),
      protocolBinding: PROTOCOL_BINDING.httpJson,
      protocolVersion: A2A_PROTOCOL_VERSION,
    });
  }
  if (supportedInterfaces.length === 0) throw new RangeError('expected at least one binding, got none');
  return {
    ...rest,
    version: version ?? '1.0.0',
    supportedInterfaces,
    capabilities: capabilities ?? { streaming: true, pushNotifications: false },
    defaultInputModes: defaultInputModes ?? ['text/plain'],
    defaultOutputModes: defaultOutputModes ?? ['text/plain'],
  };
}

/** Signs a card; structurally compatible with `signAgentCard` of `@a2aplane/a2a-identity`. */
export interface CardSigner {
  sign(card: AgentCard): { json: string } | Promise<{ json: string }>;
}

/** A card ready to serve: the exact bytes and a strong ETag over them. */
export interface PreparedCard {
  card: AgentCard;
  /** The served bytes (UTF-8 JSON). */
  body: Uint8Array;
  etag: string;
}

/**
 * A strong ETag of served bytes (`prefix` keeps two representations of one resource apart). WebCrypto,
 * not `node:crypto`: the fetch binding serves the card where there is no Node.
 */
export async function etagOf(body: Uint8Array, prefix = ''): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', body as Uint8Array<ArrayBuffer>));
  return `"${prefix}${bytesToBase64url(digest).slice(0, 32)}"`;
}

/** Validates a card, signs it when a signer is given, and freezes the served bytes. */
export async function prepareAgentCard(card: AgentCard, signer?: CardSigner): Promise<PreparedCard> {
  const parsed = parseWith(AgentCardSchema, card);
  if (!parsed.success) throw new TypeError(`expected a valid AgentCard, got: ${parsed.error.message}`);
  const json = signer ? (await signer.sign(card)).json : JSON.stringify(card);
  const body = utf8Encode(json);
  return { card: JSON.parse(json) as AgentCard, body, etag: await etagOf(body) };
}
