import { createHash } from 'node:crypto';
import {
  A2A_PROTOCOL_VERSION,
  type AgentCard,
  AgentCardSchema,
  DEFAULT_JSON_RPC_PATH,
  DEFAULT_REST_PATH,
  PROTOCOL_BINDING,
  parseWith,
} from '@a2aplane/a2a-types';

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
  body: Buffer;
  etag: string;
}

/** A strong ETag of served bytes (`prefix` keeps two representations of one resource apart). */
export function etagOf(body: Buffer, prefix = ''): string {
  return `"${prefix}${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** Validates a card, signs it when a signer is given, and freezes the served bytes. */
export async function prepareAgentCard(card: AgentCard, signer?: CardSigner): Promise<PreparedCard> {
  const parsed = parseWith(AgentCardSchema, card);
  if (!parsed.success) throw new TypeError(`expected a valid AgentCard, got: ${parsed.error.message}`);
  const json = signer ? (await signer.sign(card)).json : JSON.stringify(card);
  const body = Buffer.from(json, 'utf8');
  return { card: JSON.parse(json) as AgentCard, body, etag: etagOf(body) };
}
