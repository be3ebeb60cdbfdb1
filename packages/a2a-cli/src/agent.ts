import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createA2AClient, type Interceptors } from '@a2aplane/a2a-client';
import {
  type BudgetLedger,
  type CallAuthorizer,
  createCallAuthorizer,
  createGovernanceEvents,
  createInMemoryBudgetLedger,
  type GovernanceEvents,
  type MaterializedConfig,
  createGovernor,
  createTaskPolicyEngine,
  createRecursionPolicy,
} from '@a2aplane/a2a-governance';
import {
  agentIdFromPublicKey,
  createAllowAllIdentityResolver,
  createAllowlistIdentityResolver,
  createCallerKeyResolver,
  createHttpRequestSigner,
  createHttpSignatureVerifier,
  createJwks,
  generateKeyPair,
  type CallerKeyResolver,
  type HttpSignatureVerifier,
  type KeyPair,
  signAgentCard,
  type VerificationKey,
  withAgentIdExtension,
  withRequestSignaturesExtension,
} from '@a2aplane/a2a-identity';
import {
  type A2AServer,
  type AgentExecutor,
  type Authenticator,
  createA2AServer,
  createAuthenticator,
  createJwtVerifier,
  createHttpSignatureAuthenticator,
  createStaticApiKeyVerifier,
  createNodeHttpHandler,
  DEFAULT_JWKS_PATH,
  createAgentCard,
  createTaskUpdater,
  nodeSignatureCrypto,
} from '@a2aplane/a2a-server-express';
import type { A2AGrpcBinding } from '@a2aplane/a2a-grpc/server';
import { SUPPORTED_ARTIFACT_KIND_VERSIONS } from '@a2aplane/a2a-rulake-artifacts';
import { type AgentCard, type Part, RUVECTOR_EXTENSION_URI, type SecurityScheme } from '@a2aplane/a2a-types';
import type { CardTrust } from './commands/verify.js';
import { describeError } from './errors.js';
import { partsText } from './format.js';

/** Where `a2a serve` publishes the public keys its card's `jku` points to. */
/** Where the agent serves the JWKS its signed card's `jku` points at. */
export const JWKS_PATH = DEFAULT_JWKS_PATH;

export interface ServeAgentOptions {
  host?: string;
  port?: number;
  /** Signing key; a fresh Ed25519 key when absent. */
  key?: KeyPair;
  /** Materialized operator config (budget, recursion, policy). */
  config: MaterializedConfig;
  /** Forward every message to this agent instead of echoing. */
  delegateTo?: string;
  /** How the delegate's card is verified (pinned keys, loopback jku, signed-only); default: same-origin HTTPS jku. */
  delegateTrust?: CardTrust;
  fetch?: typeof fetch;
  name?: string;
  /**
   * API keys the operator issued to agents: key -> the AgentID it is bound to. A request with
   * one (header `X-API-Key`) is that agent for governance; without keys (or `callerKeys`) every
   * caller is anonymous.
   */
  apiKeys?: Readonly<Record<string, string>>;
  /**
   * Signed callers: the Ed25519 public keys of the agents that may prove who they are by signing
   * their requests (RFC 9421, `keyid` = AgentID, addressed to this agent's URL). A verified
   * signature makes the caller that AgentID for governance; a signature that fails is refused
   * (UNAUTHENTICATED); an unsigned request goes to `apiKeys` (or is anonymous without them).
   */
  callerKeys?: readonly VerificationKey[];
  /** Info lines (the allow-all trust log); default: none. */
  log?: (line: string) => void;
  /** Also serve the A2A gRPC binding on this port (0 picks one), plaintext like the HTTP endpoint. */
  grpcPort?: number;
  /**
   * A Prometheus scrape endpoint (OpenTelemetry metrics of the server, governance and delegation
   * calls): at this path of the agent's own server, or on its own port (path `/metrics`, same host).
   */
  metrics?: { path: string } | { port: number };
  /**
   * Require a JWT bearer token from this OpenID provider (the card declares an `openIdConnect`
   * scheme at `<issuer>/.well-known/openid-configuration`), minted for `audience`.
   * Not combined with `apiKeys` or `callerKeys`.
   */
  oidc?: { issuer: string; audience: string; allowInsecureLoopback?: boolean };
}

/** `--oidc-issuer`: the card's openIdConnect scheme and its verifier; every request needs a token. */
function oidcAuth(oidc: NonNullable<ServeAgentOptions['oidc']>): {
  securitySchemes: Record<string, SecurityScheme>;
  authenticate: Authenticator;
} {
  const openIdConnectUrl = `${oidc.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const securitySchemes = { oidc: { openIdConnectSecurityScheme: { openIdConnectUrl } } };
  const verifier = createJwtVerifier({
    securitySchemes,
    audience: oidc.audience,
    issuer: oidc.issuer,
    allowInsecureLoopback: oidc.allowInsecureLoopback === true,
  });
  return { securitySchemes, authenticate: createAuthenticator({ securitySchemes, openIdConnect: verifier }) };
}

/** The header `a2a serve --api-keys` reads. */
export const API_KEY_HEADER = 'X-API-Key';

/**
 * The `authorize` gate of the operator config's `[trust]` block: the allowlist through a2a-identity's
 * allowlist resolver, else allow-all with an info line per new AgentID (ADR-159 default).
 */
export function trustAuthorizer(trust: MaterializedConfig['trust'], log: (line: string) => void = () => undefined): CallAuthorizer {
  const allowlist = trust?.allowlist;
  const identity =
    allowlist === undefined
      ? createAllowAllIdentityResolver({
          onAllow: (agentId) => log(`info: trust allow-all: serving caller ${agentId} (no trust.allowlist in the config)`),
        })
      : createAllowlistIdentityResolver(allowlist);
  return createCallAuthorizer({
    identity,
    requireVerifiedCaller: allowlist !== undefined,
    ...(trust?.rules ? { rules: trust.rules } : {}),
    ...(trust?.tiers ? { tiers: trust.tiers } : {}),
  });
}

/** Operator-issued API keys as an authenticator whose principals carry the bound AgentID; anonymous callers pass to governance. */
function apiKeyAuthenticator(apiKeys: Readonly<Record<string, string>>): Authenticator {
  const principals = Object.fromEntries(
    Object.entries(apiKeys).map(([key, agentId], index) => [key, { id: `api-key-${index + 1}`, scheme: 'apiKey', agentId }]),
  );
  return createAuthenticator({
    securitySchemes: { apiKey: { apiKeySecurityScheme: { location: 'header', name: API_KEY_HEADER } } },
    apiKey: createStaticApiKeyVerifier(principals),
    allowAnonymous: true,
  });
}

/**
 * Who is calling: with `callerKeys`, requests signed by one of them are that agent and unsigned
 * ones fall back to the API keys (or pass anonymously to governance, whose trust gate decides).
 */
function callerAuthenticator(
  options: ServeAgentOptions,
  resolveKey: CallerKeyResolver | undefined,
  key: KeyPair,
): { authenticate?: Authenticator; verifier?: HttpSignatureVerifier } {
  const byApiKey = options.apiKeys ? apiKeyAuthenticator(options.apiKeys) : undefined;
  if (resolveKey === undefined) return byApiKey ? { authenticate: byApiKey } : {};
  // A signature made for another server is refused by default: the server passes its card's
  // authorities (the HTTP URL and the gRPC target). Callers that know this agent's key may sign
  // with the fast path (hmac-sha256, decision 0028).
  // With a trust allowlist, the verifier asks it before recording a nonce: a caller whose key is
  // known but who is not listed is refused (FORBIDDEN) and takes no room in the replay cache.
  const allowlist = options.config.trust?.allowlist;
  const verifier = createHttpSignatureVerifier({
    resolveKey,
    ...nodeSignatureCrypto,
    ...(key.algorithm === 'EdDSA' ? { ownKey: key } : {}),
    ...(allowlist === undefined ? {} : { identity: createAllowlistIdentityResolver(allowlist) }),
  });
  return {
    authenticate: createHttpSignatureAuthenticator({ verifier, ...(byApiKey ? { fallback: byApiKey } : { allowAnonymous: true }) }),
    verifier,
  };
}

export interface ServedAgent {
  url: string;
  /** The AgentID (Ed25519 keys), else the key id. */
  agentId: string;
  key: KeyPair;
  server: A2AServer;
  events: GovernanceEvents;
  /** The gRPC target (`host:port`) the card advertises, when served with `grpcPort`. */
  grpcTarget?: string;
  /** The Prometheus scrape URL, when served with `metrics`. */
  metricsUrl?: string;
  close(): Promise<void>;
}

const echoText = (parts: readonly Part[]): string => partsText(parts);

function echoExecutor(): AgentExecutor {
  return {
    async execute(context, events) {
      const task = createTaskUpdater(context, events);
      task.submit();
      task.startWork('echoing');
      const text = echoText(context.message.parts);
      if (context.signal.aborted) return;
      task.addArtifact([{ text }], { artifactId: `echo-${context.taskId}`, name: 'echo', lastChunk: true });
      events.reportUsage({ tokens: text.split(/\s+/).filter(Boolean).length });
      task.complete();
    },
  };
}

/** Forwards the message to one peer, carrying the governed lineage, and returns its answer as an artifact. */
function delegatingExecutor(
  target: string,
  fetchImpl: typeof fetch | undefined,
  trust: CardTrust | undefined,
  interceptors: Interceptors | undefined,
  key: KeyPair,
): AgentExecutor {
  const client = createA2AClient({
    baseUrl: target,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
    // The agent proves its AgentID to the delegate (RFC 9421): with the fast path when the
    // delegate's verified card advertises it, else Ed25519.
    ...(key.algorithm === 'EdDSA' ? { auth: createHttpRequestSigner({ key }) } : {}),
    retry: { retries: 0 },
    ...trust,
    ...(interceptors ? { interceptors } : {}),
  });
  return {
    async execute(context, events) {
      const task = createTaskUpdater(context, events);
      task.submit();
      task.startWork(`delegating to ${target}`);
      try {
        const result = await client.sendMessage(
          { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [...context.message.parts] } },
          {
            signal: context.signal,
            ...(context.taskContext ? { context: { ...context.taskContext, parentTaskId: context.taskId } } : {}),
          },
        );
        if (context.signal.aborted) return;
        const parts = result.task ? (result.task.artifacts ?? []).flatMap((artifact) => artifact.parts) : (result.message?.parts ?? []);
        task.addArtifact(parts.length > 0 ? [...parts] : [{ text: '' }], {
          artifactId: `delegated-${context.taskId}`,
          name: 'delegated',
          lastChunk: true,
        });
        const state = result.task?.status.state;
        if (state !== undefined && state !== 'TASK_STATE_COMPLETED')
          task.fail(delegateFailure(state, result.task?.status.message?.parts ?? []));
        else task.complete();
      } catch (error) {
        if (context.signal.aborted) return;
        task.fail(`delegation failed: ${describeError(error).message}`);
      }
    },
  };
}

/**
 * Why a delegated task did not complete, in the caller's own task: the delegate's state and its account of why (the
 * text of its status message, and its `ErrorInfo` data part as is), so a refusal deep in a chain reaches the caller
 * with its reason instead of a bare state.
 */
export function delegateFailure(state: string, remote: readonly Part[]): Part[] {
  const reason = partsText(remote.filter((part) => part.text !== undefined)).trim();
  return [{ text: `delegate ended ${state}${reason === '' ? '' : `: ${reason}`}` }, ...remote.filter((part) => part.data !== undefined)];
}

/**
 * Binds the gRPC binding (loaded only when asked for: grpc-js is not part of every CLI start) before
 * the card is signed, so the card names the real port. Plaintext, like the HTTP endpoint.
 */
async function bindGrpc(card: AgentCard, host: string, port: number): Promise<{ grpc: A2AGrpcBinding; card: AgentCard }> {
  const [{ bindA2AGrpc, withGrpcInterface }, { ServerCredentials }] = await Promise.all([
    import('@a2aplane/a2a-grpc/server'),
    import('@grpc/grpc-js'),
  ]);
  const grpc = await bindA2AGrpc({ host, port, credentials: ServerCredentials.createInsecure() });
  return { grpc, card: withGrpcInterface(card, grpc.target) };
}

/** Throws a TypeError unless `path` can be the metrics path: absolute, and not one the agent itself serves. */
export function checkMetricsPath(path: string): void {
  if (!/^\/[A-Za-z0-9._~/-]{0,255}$/.test(path) || /^\/(a2a|\.well-known)(\/|$)/.test(path)) {
    throw new TypeError(
      `expected a metrics path such as /metrics, outside /a2a and /.well-known, got ${JSON.stringify(path.slice(0, 64))}`,
    );
  }
}

/**
 * The OpenTelemetry pieces of `--metrics` (loaded only when asked for): a Prometheus meter
 * provider, the server instrumentation fed by it, and client interceptors for delegation.
 */
async function startMetrics(
  metrics: { path: string } | { port: number },
  agentId: string,
  agentName: string,
  budget: BudgetLedger | undefined,
) {
  const path = 'path' in metrics ? metrics.path : '/metrics';
  checkMetricsPath(path);
  const [{ createClientInterceptors, createServerInstrumentation }, { createPrometheusMetrics }] = await Promise.all([
    import('@a2aplane/a2a-otel'),
    import('@a2aplane/a2a-otel/prometheus'),
  ]);
  const prometheus = createPrometheusMetrics({ path });
  const { meterProvider } = prometheus;
  return {
    prometheus,
    instrumentation: createServerInstrumentation({ agentId, agentName, meterProvider, ...(budget ? { budget } : {}) }),
    interceptors: createClientInterceptors({ meterProvider }),
  };
}

/** Starts an echo (or delegating) agent with a signed card, a JWKS and the operator's governance. */
export async function startServeAgent(options: ServeAgentOptions): Promise<ServedAgent> {
  // Checked before anything listens: a bad issuer URL leaves nothing running.
  if (options.oidc && (options.apiKeys || options.callerKeys)) throw new TypeError('oidc cannot be combined with apiKeys or callerKeys');
  const oidc = options.oidc ? oidcAuth(options.oidc) : undefined;
  const key = options.key ?? generateKeyPair('EdDSA');
  const agentId = key.algorithm === 'EdDSA' ? agentIdFromPublicKey(key.publicKey) : key.kid;
  const events = createGovernanceEvents();
  const { config } = options;
  const log = options.log ?? (() => undefined);
  // Checked before anything listens: a bad key throws a TypeError here.
  const resolveCallerKey = options.callerKeys === undefined ? undefined : createCallerKeyResolver({ keys: options.callerKeys });
  const delegating = options.delegateTo !== undefined;
  const name = options.name ?? (delegating ? 'Delegating Agent' : 'Echo Agent');
  const budget = config.budget ? createInMemoryBudgetLedger(config.budget) : undefined;
  const observed = options.metrics === undefined ? undefined : await startMetrics(options.metrics, agentId, name, budget);
  const governor = createGovernor({
    selfAgentId: agentId,
    authorize: trustAuthorizer(config.trust, log),
    ...(budget ? { budget } : {}),
    ...(observed ? { hooks: observed.instrumentation.governanceHooks } : {}),
    recursion: createRecursionPolicy(config.recursion),
    policy: createTaskPolicyEngine(config.policy),
    events,
    ...(config.estimateCost ? { estimateCost: config.estimateCost } : {}),
  });

  const http: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { address, port, family } = http.address() as AddressInfo;
  const url = `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
  let card = createAgentCard({
    baseUrl: url,
    name,
    description: delegating ? `Forwards each message to ${options.delegateTo}.` : 'Sends your message back.',
    capabilities: { streaming: true, pushNotifications: false },
    ...(options.apiKeys ? { securitySchemes: { apiKey: { apiKeySecurityScheme: { location: 'header', name: API_KEY_HEADER } } } } : {}),
    ...(oidc ? { securitySchemes: oidc.securitySchemes, securityRequirements: [{ schemes: { oidc: { list: [] } } }] } : {}),
    skills: [
      delegating
        ? { id: 'delegate', name: 'Delegate', description: 'Forwards the message to another agent.', tags: ['delegate'] }
        : { id: 'echo', name: 'Echo', description: 'Echoes the input text.', tags: ['echo'] },
    ],
  });
  let grpc: A2AGrpcBinding | undefined;
  if (options.grpcPort !== undefined) {
    try {
      ({ grpc, card } = await bindGrpc(card, options.host ?? '127.0.0.1', options.grpcPort));
    } catch (error) {
      http.close();
      throw error;
    }
  }
  // The typed-artifact versions it speaks, for negotiation on discovery; no memory tier (it keeps nothing).
  const ruvector = { artifact_kind_versions_supported: [...SUPPORTED_ARTIFACT_KIND_VERSIONS] };
  card =
    key.algorithm === 'EdDSA'
      ? withAgentIdExtension(card, agentId, ruvector)
      : { ...card, capabilities: { ...card.capabilities, extensions: [{ uri: RUVECTOR_EXTENSION_URI, params: ruvector }] } };
  const callers = callerAuthenticator(options, resolveCallerKey, key);
  const verifier = callers.verifier;
  const authenticate = oidc?.authenticate ?? callers.authenticate;
  // Signed callers learn from the card which signatures it accepts: with its own Ed25519 key, the
  // fast path (hmac-sha256) too, which a2a-client then uses by itself (decision 0037).
  if (verifier !== undefined) card = withRequestSignaturesExtension(card, verifier);
  const server = createA2AServer({
    card,
    executor: delegating
      ? delegatingExecutor(options.delegateTo as string, options.fetch, options.delegateTrust, observed?.interceptors, key)
      : echoExecutor(),
    governance: governor,
    ...(config.scopeRules ? { skillScopeRules: config.scopeRules } : {}),
    ...(authenticate ? { authenticate } : {}),
    ...(observed ? { instrumentation: observed.instrumentation } : {}),
  });
  const handler = createNodeHttpHandler(server, {
    cardSigner: { sign: (c) => signAgentCard(c, key, { jku: `${url}${JWKS_PATH}` }) },
    jwks: createJwks([key]),
    jwksPath: JWKS_PATH,
  });
  const prometheus = observed?.prometheus;
  let metricsEndpoint: { url: string; close(): Promise<void> } | undefined;
  if (prometheus !== undefined && options.metrics !== undefined && 'port' in options.metrics) {
    try {
      metricsEndpoint = await prometheus.listen({ port: options.metrics.port, host: options.host ?? '127.0.0.1' });
    } catch (error) {
      await grpc?.close(0);
      http.close();
      throw error;
    }
    http.on('request', handler);
  } else if (prometheus !== undefined) {
    http.on('request', (req, res) => {
      if (!prometheus.handle(req, res)) void handler(req, res);
    });
  } else http.on('request', handler);
  grpc?.serve(server);
  return {
    url,
    agentId,
    key,
    server,
    events,
    ...(grpc ? { grpcTarget: grpc.target } : {}),
    ...(prometheus ? { metricsUrl: metricsEndpoint?.url ?? `${url}${prometheus.path}` } : {}),
    close: async () => {
      await grpc?.close(1000);
      await server.close();
      await metricsEndpoint?.close();
      await prometheus?.shutdown();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
