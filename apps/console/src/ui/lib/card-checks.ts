import type { AgentCard } from '@a2aplane/a2a-types';
import type { CardVerdict } from './inspect.js';

/** One check of the card against the spec and good practice. */
export interface CardCheck {
  level: 'ok' | 'warn' | 'error';
  text: string;
}

const isHttps = (url: string) => url.startsWith('https://');
const isLoopback = (url: string) => /^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:|\/|$)/.test(url);

/**
 * The console's checks of a card the client's discovery accepted (its structural validator already
 * refused malformed ones): what the spec requires or recommends and a person should see at a glance.
 * The full schema check (a2a-types, zod) runs on demand (`schemaCheck`).
 */
export function checkCard(card: AgentCard, verdict: CardVerdict, protocolVersion: '1.0' | '0.3'): CardCheck[] {
  const checks: CardCheck[] = [];
  const add = (level: CardCheck['level'], text: string) => checks.push({ level, text });
  add(
    protocolVersion === '1.0' ? 'ok' : 'warn',
    protocolVersion === '1.0' ? 'A2A v1.0 card' : 'v0.3 card (read through the v0.3 translator)',
  );
  if (card.supportedInterfaces.length === 0) add('error', 'no supportedInterfaces: nothing to call');
  for (const iface of card.supportedInterfaces) {
    if (!isHttps(iface.url) && !isLoopback(iface.url))
      add('warn', `interface ${iface.url} is not https (spec §7.1: production agents use TLS)`);
    if (!['JSONRPC', 'HTTP+JSON', 'GRPC'].includes(iface.protocolBinding))
      add('warn', `interface binding ${iface.protocolBinding} is not a standard binding`);
  }
  if (!card.skills || card.skills.length === 0) add('warn', 'no skills declared');
  const skillIds = new Set<string>();
  for (const skill of card.skills ?? []) {
    if (skillIds.has(skill.id)) add('error', `skill id ${skill.id} is declared twice`);
    skillIds.add(skill.id);
  }
  if (!card.defaultInputModes?.length || !card.defaultOutputModes?.length) add('warn', 'default input/output modes missing');
  const schemes = new Set(Object.keys(card.securitySchemes ?? {}));
  for (const requirement of card.securityRequirements ?? []) {
    for (const name of Object.keys((requirement as { schemes?: Record<string, unknown> }).schemes ?? {})) {
      if (!schemes.has(name)) add('error', `security requirement names scheme "${name}", which securitySchemes does not define`);
    }
  }
  if (verdict.status === 'valid') add('ok', `signed by key ${verdict.kid} (${verdict.algorithm})`);
  else if (verdict.status === 'no-signature') add('warn', 'unsigned card: its origin is its only proof of identity');
  else add('error', `signature: ${verdict.status}`);
  if (verdict.declaredAgentId && verdict.status === 'valid' && verdict.agentId !== verdict.declaredAgentId)
    add('error', 'declared AgentID is not the signing key’s');
  return checks;
}

/** The full a2a-types schema check of the card, loaded on demand (it brings zod). */
export async function schemaCheck(card: unknown): Promise<CardCheck[]> {
  const { parseAgentCard } = await import('@a2aplane/a2a-types');
  const parsed = parseAgentCard(card);
  if (parsed.success) return [{ level: 'ok', text: 'the card parses against the a2a-types AgentCard schema' }];
  return parsed.error.violations.map((v) => ({ level: 'error' as const, text: `${v.field}: ${v.description}` }));
}
