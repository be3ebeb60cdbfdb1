import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Governor } from '@a2aplane/a2a-governance';
import {
  agentIdFromPublicKey,
  createCallerKeyResolver,
  createHttpSignatureVerifier,
  generateKeyPair,
  type KeyPair,
  type PublicJwk,
  type HttpSignatureVerifier,
  type HttpSignatureVerifierOptions,
  signAgentCard,
  withAgentIdExtension,
  withRequestSignaturesExtension,
} from '@a2aplane/a2a-identity';
import {
  type A2AServer,
  type AgentExecutor,
  type Authenticator,
  createA2AServer,
  createAgentCard,
  createHttpSignatureAuthenticator,
  createNodeHttpHandler,
  type RequestContext,
  nodeSignatureCrypto,
  type ServerInstrumentation,
} from '@a2aplane/a2a-server-express';
import { artifactCardParams, type MemoryExtensionParamsOptions, SUPPORTED_ARTIFACT_KIND_VERSIONS } from '@a2aplane/a2a-rulake-artifacts';
import type { AgentCard, AgentSkill } from '@a2aplane/a2a-types';

export interface HostedAgent {
  name: string;
  url: string;
  agentId: string;
  key: KeyPair;
  server: A2AServer;
  /** Requests that reached this agent's executor. */
  readonly executions: number;
  /** Who sent each request that reached the executor, as the server authenticated it, in order. */
  readonly served: readonly ServedCall[];
  close(): Promise<void>;
}

/** One request an agent's executor ran: who the server says sent it, and who the task's lineage says. */
export interface ServedCall {
  /** The caller's AgentID as verified by the server (its RFC 9421 signature); absent for an unverified caller. */
  verifiedAgentId?: string;
  /** The agent before this one in the task's lineage (`visitedAgents`); absent for a root task. */
  lineageCaller?: string;
  /** The verified request signature's `alg` (`hmac-sha256`: the fast path of decision 0028). */
  alg?: string;
}

export interface HostAgentOptions {
  name: string;
  skill: AgentSkill;
  /** Builds the executor once the agent knows its own id and URL. */
  executor: (self: { agentId: string; url: string }) => AgentExecutor;
  /** Builds the inbound governor once the agent knows its own id. */
  governor?: (agentId: string) => Governor;
  /** Cost the governor reserves against the global budget for each task. */
  estimatedCostUsd?: number;
  /** The memory tier the agent reads or writes witnesses on, advertised on its card; none by default. */
  memory?: MemoryExtensionParamsOptions;
  /** Typed-artifact versions the agent speaks. Default `SUPPORTED_ARTIFACT_KIND_VERSIONS`. */
  artifactKindVersions?: readonly string[];
  /** The agent's signing key (default: a fresh Ed25519 key), for a scenario that must know AgentIDs up front. */
  key?: KeyPair;
  /** Who is calling: its principal (and verified AgentID) feeds the governor's trust gate. Default: anonymous callers. */
  authenticate?: Authenticator;
  /**
   * Signed callers only: the public keys of every agent that may call this one (the operator's key
   * directory). Each request must carry an RFC 9421 signature by one of them, addressed to this
   * agent's authority; the verified AgentID becomes the principal. Not with `authenticate`.
   */
  callerKeys?: readonly PublicJwk[];
  /**
   * Signed callers only, their keys looked up as each request arrives (e.g. in the registry:
   * `createRegistryTrust(reader).resolveKey`). Not with `authenticate` or `callerKeys`.
   */
  resolveCallerKey?: HttpSignatureVerifierOptions['resolveKey'];
  /** What the card declares callers must present (OAuth 2 / OpenID Connect schemes); `authenticate` checks it. */
  security?: Pick<AgentCard, 'securitySchemes' | 'securityRequirements'>;
  /** Tracing and metrics of the agent's server, built once it knows its AgentID. */
  instrumentation?: (self: { agentId: string; name: string }) => ServerInstrumentation;
}

/**
 * The ruvector card params of a demo agent: the typed-artifact versions it speaks (what peers
 * negotiate on discovery) and, when it has one, its memory tier.
 */
function cardParams(options: HostAgentOptions) {
  const versions = [...(options.artifactKindVersions ?? SUPPORTED_ARTIFACT_KIND_VERSIONS)];
  return options.memory === undefined
    ? { artifact_kind_versions_supported: versions }
    : artifactCardParams({ ...options.memory, artifactKindVersions: versions });
}

/**
 * A verifier of requests signed (RFC 9421, `keyid` = AgentID) by one of `keys`, sent to
 * `authority`. With the agent's own key it also accepts the fast path (hmac-sha256, decision
 * 0028), which the agent's card then advertises, so callers that verified the card sign with it.
 */
function signedCallersVerifier(
  resolveKey: HttpSignatureVerifierOptions['resolveKey'],
  authority: string,
  ownKey: KeyPair,
): HttpSignatureVerifier {
  return createHttpSignatureVerifier({
    resolveKey,
    ownKey,
    ...nodeSignatureCrypto,
    authorities: [authority],
  });
}

function servedCall(context: RequestContext): ServedCall {
  const call: ServedCall = {};
  const verified = context.principal?.agentId;
  if (verified !== undefined) call.verifiedAgentId = verified;
  const alg = context.principal?.claims?.alg;
  if (typeof alg === 'string') call.alg = alg;
  const visited = context.taskContext?.visitedAgents ?? [];
  const lineageCaller = visited.length >= 2 ? visited[visited.length - 2] : undefined;
  if (lineageCaller !== undefined) call.lineageCaller = lineageCaller;
  return call;
}

/**
 * Starts one agent of the demo on 127.0.0.1 with an ephemeral port: a fresh Ed25519 key, the
 * AgentID it names, a signed card served from cached bytes, and (optionally) inbound governance
 * and signed callers only.
 */
export async function hostAgent(options: HostAgentOptions): Promise<HostedAgent> {
  const ways = [options.authenticate, options.callerKeys, options.resolveCallerKey].filter((way) => way !== undefined);
  if (ways.length > 1) throw new TypeError('expected one of authenticate, callerKeys and resolveCallerKey, got several');
  const key = options.key ?? generateKeyPair('EdDSA');
  const agentId = agentIdFromPublicKey(key.publicKey);
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const resolveKey = options.callerKeys ? createCallerKeyResolver({ keys: options.callerKeys }) : options.resolveCallerKey;
  const verifier = resolveKey ? signedCallersVerifier(resolveKey, new URL(url).host, key) : undefined;
  const declared = withAgentIdExtension(
    createAgentCard({
      baseUrl: url,
      name: options.name,
      description: `${options.name} (a2aplane control-plane demo)`,
      capabilities: { streaming: true, pushNotifications: false },
      skills: [options.skill],
      ...options.security,
    }),
    agentId,
    cardParams(options),
  );
  const card = verifier ? withRequestSignaturesExtension(declared, verifier) : declared;
  let executions = 0;
  const served: ServedCall[] = [];
  const inner = options.executor({ agentId, url });
  const executor: AgentExecutor = {
    execute: (context, events) => {
      executions += 1;
      served.push(servedCall(context));
      return inner.execute(context, events);
    },
    ...(inner.cancel ? { cancel: inner.cancel.bind(inner) } : {}),
  };
  const governor = options.governor?.(agentId);
  const estimatedCostUsd = options.estimatedCostUsd;
  // Signed callers only: an unsigned request or an unknown signer is refused before the executor.
  const authenticate = verifier ? createHttpSignatureAuthenticator({ verifier }) : options.authenticate;
  const server = createA2AServer({
    card,
    executor,
    ...(governor
      ? {
          governance:
            estimatedCostUsd === undefined
              ? governor
              : {
                  admit: (input) => governor.admit({ ...input, estimatedCostUsd }),
                  readTaskContext: (metadata) => governor.readTaskContext(metadata),
                },
        }
      : {}),
    ...(authenticate ? { authenticate } : {}),
    ...(options.instrumentation ? { instrumentation: options.instrumentation({ agentId, name: options.name }) } : {}),
  });
  http.on('request', createNodeHttpHandler(server, { cardSigner: { sign: (c) => signAgentCard(c, key) } }));
  return {
    name: options.name,
    url,
    agentId,
    key,
    server,
    get executions() {
      return executions;
    },
    served,
    close: async () => {
      await server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
