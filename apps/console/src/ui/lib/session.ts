import { type A2AClient, type AuthProvider, createA2AClient, type FetchLike, type TransportBinding } from '@a2aplane/a2a-client';
import { v0_3 } from '@a2aplane/a2a-client/v0_3';
import type { AgentCard } from '@a2aplane/a2a-types';

/** The protocol to speak: 1.0 when the card has a 1.0 interface, else 0.3 (a legacy agent). */
export function protocolOf(card: AgentCard): '1.0' | '0.3' {
  return card.supportedInterfaces.some((iface) => (iface.protocolVersion ?? '').startsWith('1')) ? '1.0' : '0.3';
}

/** Origins of the card's interfaces (the relay and the credential binding need them). */
export function interfaceOrigins(card: AgentCard): string[] {
  const origins = new Set<string>();
  for (const iface of card.supportedInterfaces) {
    try {
      origins.add(new URL(iface.url).origin);
    } catch {
      // an interface URL that does not parse is reported by the card checks
    }
  }
  return [...origins];
}

export interface SessionOptions {
  card: AgentCard;
  fetch: FetchLike;
  auth: AuthProvider | undefined;
  protocolVersion: '1.0' | '0.3';
  /** Call this binding first (JSONRPC, HTTP+JSON, ...); default the card's order. */
  binding?: TransportBinding;
}

/** A client for the inspected card (given as is: discovery already ran, with its verdict shown). */
export function createSessionClient(options: SessionOptions): A2AClient {
  return createA2AClient({
    card: options.card,
    fetch: options.fetch,
    protocolVersion: options.protocolVersion,
    v0_3,
    timeoutMs: 30_000,
    streamIdleTimeoutMs: false,
    retry: { retries: 0 },
    circuitBreaker: false,
    ...(options.auth ? { auth: options.auth } : {}),
    ...(options.binding ? { preferredBindings: [options.binding] } : {}),
  });
}
