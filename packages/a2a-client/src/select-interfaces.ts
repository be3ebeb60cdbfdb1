import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentInterface } from '@a2aplane/a2a-types';
import { defaultTransports } from './transports/registry.js';
import type { TransportBinding } from './transports/types.js';

const majorMinor = (version: string): string => version.split('.').slice(0, 2).join('.');

/**
 * Orders the card's interfaces for this client (spec §8.3.2): the caller's binding preference when
 * given (bindings not listed are left out), then card order, which is the agent's preference. Only
 * bindings in `available` (default: the built-in `JSONRPC` and `HTTP+JSON`) and the protocol
 * version's major.minor are kept.
 */
export function selectInterfaces(
  card: AgentCard,
  options: { preferredBindings?: readonly TransportBinding[]; protocolVersion?: string; available?: readonly string[] } = {},
): AgentInterface[] {
  const preferred = options.preferredBindings;
  const available = options.available ?? Object.keys(defaultTransports);
  const version = majorMinor(options.protocolVersion ?? A2A_PROTOCOL_VERSION);
  return card.supportedInterfaces
    .filter(
      (i) =>
        available.includes(i.protocolBinding) &&
        (!preferred || preferred.includes(i.protocolBinding)) &&
        majorMinor(i.protocolVersion) === version,
    )
    .map((i, index) => ({ i, index, rank: preferred ? preferred.indexOf(i.protocolBinding) : 0 }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ i }) => i);
}
