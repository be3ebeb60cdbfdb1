import { type AgentCard, WELL_KNOWN_AGENT_CARD_PATH } from '@a2aplane/a2a-types';
import type { ClientSettings } from './client-settings.js';
import type { A2AClientOptions, BoundTransport } from './client-types.js';
import { CardResolver } from './discovery.js';
import { AgentCardDiscoveryError } from './errors.js';
import { createJsonRpcTransport } from './transports/json-rpc.js';
import type { TransportContext, TransportFactory } from './transports/types.js';
import { selectInterfaces } from './select-interfaces.js';
import { loadV03Translators, type V03Support } from './v0_3-loader.js';

/** A client's agent card (given, or discovered on first use) and the transports bound to its interfaces. */
export interface InterfaceBinding {
  getCard(signal?: AbortSignal): Promise<AgentCard>;
  /** The bound transports, in the order to try them (made on first use). */
  bind(signal?: AbortSignal): Promise<BoundTransport[]>;
  /** The bound transports once `bind` has made them: no promise hop on every call. */
  readonly bound: BoundTransport[] | undefined;
  /** Puts the transport that answered last first. */
  promote(bound: BoundTransport): void;
  /**
   * Verifies GetExtendedAgentCard's raw result as discovery verifies the public card, as if read
   * from the public card's location; rejects with `CardSignatureInvalidError`.
   */
  verifyExtendedCard(value: unknown): Promise<void>;
}

/** Where a given card (not discovered) would be read from: the well-known path of its first HTTP interface. */
function givenCardUrl(card: AgentCard): string {
  const http = card.supportedInterfaces.find((i) => /^https?:\/\//i.test(i.url));
  return http ? new URL(WELL_KNOWN_AGENT_CARD_PATH, http.url).toString() : WELL_KNOWN_AGENT_CARD_PATH;
}

export function createInterfaceBinding(options: A2AClientOptions, settings: ClientSettings): InterfaceBinding {
  const { protocolVersion, v03, registry, limitsFor } = settings;
  const http: TransportContext = { fetch: options.fetch, auth: options.auth, interceptors: settings.interceptors };
  const resolver =
    options.cardResolver ??
    // Absent options stay undefined: the resolver reads undefined as not given.
    new CardResolver({
      fetch: options.fetch,
      headers: options.headers,
      timeoutMs: settings.unaryTimeout,
      trustedKeys: options.trustedKeys,
      jkuPrefixes: options.jkuPrefixes,
      allowInsecureLoopback: options.allowInsecureLoopback,
      requireSignedCard: options.requireSignedCard,
      cardVerifier: options.cardVerifier,
      unsignedCardPolicy: options.unsignedCardPolicy,
      validator: options.validator,
      v0_3: options.v0_3,
    });

  let cardPromise: Promise<AgentCard> | undefined = options.card ? Promise.resolve(options.card) : undefined;
  let transports: BoundTransport[] | undefined;
  // The auth of a discovered agent: its provider's `forPeer`, told what discovery verified.
  let peerHttp: TransportContext = http;
  // The URL the public card was read from, once discovered.
  let cardUrl: string | undefined;

  const getCard = async (signal?: AbortSignal): Promise<AgentCard> => {
    if (!cardPromise) {
      const baseUrl = options.baseUrl as string;
      cardPromise = resolver.resolve(baseUrl, signal ? { signal } : {}).then((d) => {
        cardUrl = d.url;
        const auth = options.auth?.forPeer?.({ card: d.card, verification: d.verification });
        if (auth !== undefined) peerHttp = { ...http, auth };
        return d.card;
      });
      // A failed discovery is retried on the next call rather than cached.
      cardPromise.catch(() => {
        cardPromise = undefined;
      });
    }
    return cardPromise;
  };

  const bind = async (signal?: AbortSignal): Promise<BoundTransport[]> => {
    if (transports) return transports;
    const card = await getCard(signal);
    // v0.3 mode speaks JSON-RPC only: the v0.3 REST paths differ from v1.0.
    const available = v03 ? ['JSONRPC'] : Object.keys(registry);
    const preferredBindings = options.preferredBindings;
    const selected = selectInterfaces(card, { protocolVersion, available, ...(preferredBindings ? { preferredBindings } : {}) });
    if (selected.length === 0) {
      throw new AgentCardDiscoveryError(
        'no-compatible-interface',
        options.baseUrl ?? card.supportedInterfaces[0]?.url ?? '',
        `Agent "${card.name}" has no ${(preferredBindings ?? available).join(' or ')} interface for protocol ${protocolVersion}`,
      );
    }
    const v03Operations = v03 ? (await loadV03Translators(options.v0_3 as V03Support)).V03_OPERATIONS : undefined;
    transports = selected.map((i) => ({
      transport: v03Operations
        ? createJsonRpcTransport(i.url, peerHttp, { v03: v03Operations })
        : (registry[i.protocolBinding] as TransportFactory)(i, peerHttp),
      // Proto3 JSON may serialize an unset tenant as "".
      tenant: i.tenant || options.tenant,
      limits: limitsFor(i.url),
    }));
    return transports;
  };

  return {
    getCard,
    bind,
    get bound() {
      return transports;
    },
    async verifyExtendedCard(value) {
      const card = await getCard();
      await resolver.verify(value, cardUrl ?? givenCardUrl(card));
    },
    promote(bound) {
      if (!transports || transports[0] === bound) return;
      transports = [bound, ...transports.filter((t) => t !== bound)];
    },
  };
}
