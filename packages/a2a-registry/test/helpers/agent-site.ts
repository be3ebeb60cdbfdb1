import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  agentIdFromPublicKey,
  createJwks,
  generateKeyPair,
  type KeyPair,
  signAgentCard,
  withAgentIdExtension,
} from '@a2aplane/a2a-identity';
import type { AgentCard } from '@a2aplane/a2a-types';

/** A tiny agent origin: serves whatever card text and JWKS the test sets, plus an optional handler. */
export interface AgentSite {
  url: string;
  origin: string;
  cardText: string;
  jwks: { keys: object[] };
  /** Extra routes (e.g. A2A); return true when handled. */
  handle?: (req: IncomingMessage, res: ServerResponse) => boolean;
  close(): Promise<void>;
}

export async function startAgentSite(): Promise<AgentSite> {
  const site: AgentSite = { url: '', origin: '', cardText: '{}', jwks: { keys: [] }, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    if (site.handle?.(req, res)) return;
    if (req.url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(site.cardText);
    } else if (req.url === '/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(site.jwks));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  site.origin = `http://127.0.0.1:${port}`;
  site.url = site.origin;
  site.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return site;
}

export function baseCard(origin: string, overrides: Partial<AgentCard> = {}): AgentCard {
  return {
    name: 'weather',
    description: 'Forecasts for any city',
    version: '1.0.0',
    supportedInterfaces: [{ url: `${origin}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'forecast', name: 'Forecast', description: 'weather forecast', tags: ['weather', 'geo'] }],
    ...overrides,
  } as AgentCard;
}

/** A card declaring `key`'s AgentID, signed by `signer` (default: the same key), with `jku` on the origin. */
export function signedCard(origin: string, key: KeyPair, options: { signer?: KeyPair; card?: Partial<AgentCard>; jku?: string } = {}) {
  const agentId = agentIdFromPublicKey(key.publicKey);
  const card = withAgentIdExtension(baseCard(origin, options.card), agentId);
  const signed = signAgentCard(card, options.signer ?? key, { jku: options.jku ?? `${origin}/.well-known/jwks.json` });
  return { agentId, text: signed.json, jwks: createJwks([key]) };
}

/** Serves a freshly signed card for a new key at `site`; returns the key and the enrollment fields. */
export function publishAgent(site: AgentSite, card: Partial<AgentCard> = {}) {
  const key = generateKeyPair('EdDSA');
  const signed = signedCard(site.origin, key, { card });
  site.cardText = signed.text;
  site.jwks = signed.jwks;
  return { key, ...signed };
}
