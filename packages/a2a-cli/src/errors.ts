import { A2AError, createErrorBrand } from '@a2aplane/a2a-types';
import {
  A2AAbortError,
  A2ATimeoutError,
  A2ATransportError,
  AgentCardDiscoveryError,
  CardSignatureInvalidError,
  StreamResumeExhaustedError,
} from '@a2aplane/a2a-client';
import { ConfigError } from '@a2aplane/a2a-governance';

/** Process exit codes of the `a2a` command. */
export const EXIT_CODES = {
  ok: 0,
  /** Network failure, agent error, unreadable or invalid file. */
  failure: 1,
  /** Card signature tampered, by an untrusted key, unsupported algorithm, malformed, or AgentID mismatch. */
  invalidSignature: 2,
  /** Card has no signature. */
  unsigned: 3,
  /** `a2a send`: the task ended FAILED, REJECTED or CANCELED. */
  taskUnsuccessful: 4,
  /** Unknown command or option, missing argument, malformed URL or number. */
  usage: 64,
  /** Stopped by SIGINT/SIGTERM while streaming. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

const CLI_ERROR = /*#__PURE__*/ createErrorBrand('@a2aplane/a2a-cli/CliError');

/** An expected failure with a one-line message and the exit code to end with. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number = EXIT_CODES.failure) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
    CLI_ERROR.mark(this);
  }
  static isInstance(value: unknown): value is CliError {
    return CLI_ERROR.is(value);
  }
}

export const usageError = (message: string): CliError => new CliError(message, EXIT_CODES.usage);

/** The first `code` (ECONNREFUSED, ENOTFOUND, ...) along the `cause` chain. */
function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) {
      const inner = networkCode(errors[0]);
      if (inner) return inner;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
};

function originOf(url: string | undefined): string {
  if (!url) return 'the agent';
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** The innermost message along the `cause` chain (undici hides the reason there). */
function innermostMessage(error: unknown): string | undefined {
  let message: string | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    if (current.message) message = current.message;
    current = current.cause;
  }
  return message;
}

function unreachable(url: string | undefined, error: unknown): string {
  const code = networkCode(error);
  const why = code ? `${NETWORK_WORDS[code] ?? code}` : (innermostMessage((error as { cause?: unknown })?.cause) ?? 'network error');
  return `cannot reach ${originOf(url)}: ${why}`;
}

/**
 * A card 404. When the URL given had a path (the JSON-RPC or REST endpoint, say), the likely mistake
 * is passing an endpoint instead of the agent's base URL: say what to pass.
 */
function notFound(cardUrl: string | undefined): string {
  const base = cardUrl?.replace(/\/\.well-known\/agent(?:-card)?\.json$/, '');
  let hint = '';
  try {
    const parsed = base === undefined ? undefined : new URL(base);
    if (parsed && parsed.pathname !== '/' && parsed.pathname !== '') {
      hint = `; ${base} looks like an endpoint URL: pass the agent's base URL, the one serving /.well-known/agent-card.json (such as ${parsed.origin})`;
    }
  } catch {
    // not a URL: no hint
  }
  return `no agent card at ${cardUrl} (HTTP 404)${hint}`;
}

/** Turns anything thrown into one line and an exit code; never a stack trace. */
export function describeError(error: unknown): { message: string; exitCode: number } {
  if (CliError.isInstance(error)) return { message: error.message, exitCode: error.exitCode };
  if (AgentCardDiscoveryError.isInstance(error)) {
    if (error.kind === 'network') return { message: unreachable(error.url, error), exitCode: EXIT_CODES.failure };
    if (error.kind === 'not-found') return { message: notFound(error.url), exitCode: EXIT_CODES.failure };
    return { message: error.message, exitCode: EXIT_CODES.failure };
  }
  if (CardSignatureInvalidError.isInstance(error)) return { message: error.message, exitCode: EXIT_CODES.invalidSignature };
  if (A2ATransportError.isInstance(error)) {
    if (error.status === undefined) return { message: unreachable(error.url, error), exitCode: EXIT_CODES.failure };
    return { message: `${error.message}`, exitCode: EXIT_CODES.failure };
  }
  if (A2ATimeoutError.isInstance(error) || A2AAbortError.isInstance(error) || StreamResumeExhaustedError.isInstance(error)) {
    return { message: error.message, exitCode: EXIT_CODES.failure };
  }
  if (A2AError.isInstance(error)) {
    const meta = Object.entries(error.metadata ?? {})
      .map(([key, value]) => `${key}=${value}`)
      .join(', ');
    return {
      message: `agent error ${error.reason ?? error.code}: ${error.message}${meta ? ` (${meta})` : ''}`,
      exitCode: EXIT_CODES.failure,
    };
  }
  if (ConfigError.isInstance(error)) return { message: error.message, exitCode: EXIT_CODES.failure };
  if (error instanceof Error) return { message: error.message, exitCode: EXIT_CODES.failure };
  return { message: String(error), exitCode: EXIT_CODES.failure };
}
