// Lenient v0.3 -> v1.0 card normalizer: the fallback for legacy cards the strict a2a-types translator refuses.
import type { V03Translators } from './v0_3-loader.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const LEGACY_BINDINGS: Record<string, string> = { JSONRPC: 'JSONRPC', 'HTTP+JSON': 'HTTP+JSON', GRPC: 'GRPC', REST: 'HTTP+JSON' };

/** Converts a v0.3 card (`url`, `preferredTransport`, `additionalInterfaces`) to the v1.0 shape; v1.0 cards pass through. */
export function normalizeLegacyCard(value: unknown): unknown {
  if (!isObject(value) || Array.isArray(value.supportedInterfaces)) return value;
  const version = typeof value.protocolVersion === 'string' ? value.protocolVersion.split('.').slice(0, 2).join('.') : '0.3';
  const interfaces: { url: string; protocolBinding: string; protocolVersion: string }[] = [];
  const add = (url: unknown, transport: unknown): void => {
    if (typeof url !== 'string' || url === '') return;
    const binding = LEGACY_BINDINGS[typeof transport === 'string' ? transport.toUpperCase() : 'JSONRPC'] ?? String(transport);
    if (!interfaces.some((i) => i.url === url && i.protocolBinding === binding)) {
      interfaces.push({ url, protocolBinding: binding, protocolVersion: version });
    }
  };
  add(value.url, value.preferredTransport ?? 'JSONRPC');
  if (Array.isArray(value.additionalInterfaces)) {
    for (const iface of value.additionalInterfaces) if (isObject(iface)) add(iface.url, iface.transport);
  }
  const capabilities = isObject(value.capabilities) ? { ...value.capabilities } : {};
  if (value.supportsAuthenticatedExtendedCard === true) capabilities.extendedAgentCard = true;
  delete capabilities.stateTransitionHistory;
  const {
    url: _url,
    preferredTransport: _p,
    additionalInterfaces: _a,
    protocolVersion: _v,
    supportsAuthenticatedExtendedCard: _s,
    security: _sec,
    securitySchemes: _schemes,
    ...rest
  } = value;
  // v0.3 security shapes differ from v1.0; callers needing them should read the raw card.
  return {
    ...rest,
    supportedInterfaces: interfaces,
    capabilities,
  };
}

/**
 * A legacy card as v1.0, read by discovery (part of its lazy boundary) for legacy agents: the strict a2a-types
 * translator first when given (`v0_3` support), this normalizer for what it refuses or without it.
 */
export async function readLegacyCard(value: unknown, translators?: Promise<V03Translators>): Promise<unknown> {
  const translated = translators ? (await translators).agentCardFromV03(value) : undefined;
  return translated?.success ? translated.data : normalizeLegacyCard(value);
}
