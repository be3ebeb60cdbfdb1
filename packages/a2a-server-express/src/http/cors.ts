import { A2A_EXTENSIONS_HEADER, A2A_VERSION_HEADER } from '@a2aplane/a2a-types';
import type { HttpExchange, Reply } from './exchange.js';

/** Cross-origin access for browser pages; every field is explicit, nothing is allowed by default. */
export interface CorsOptions {
  /**
   * The origins allowed to call (`https://app.example.com`: scheme, host and port, as browsers send
   * `Origin`), or `'*'` for any origin (never together with `credentials`).
   */
  origins: readonly string[] | '*';
  /** Methods a preflight allows. Default `GET, POST, DELETE` (the A2A bindings' verbs). */
  methods?: readonly string[];
  /** Request headers a preflight allows. Default the A2A ones: `content-type`, `a2a-version`, `a2a-extensions`, `last-event-id`. */
  headers?: readonly string[];
  /** Response headers the page may read. Default `retry-after`, `a2a-extensions` (the activated extensions) and `www-authenticate`. */
  exposeHeaders?: readonly string[];
  /** How long a browser may cache a preflight answer (`Access-Control-Max-Age`). Default 600 seconds. */
  maxAgeSeconds?: number;
  /** Lets pages send cookies and HTTP auth (`Access-Control-Allow-Credentials: true`). Default false. */
  credentials?: boolean;
}

/** The CORS policy of one handler. */
interface Cors {
  /** The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`), or `undefined` when it is not one. */
  preflight(exchange: HttpExchange): Reply | undefined;
  /** Adds the headers of an allowed origin to a reply (in place). */
  decorate(exchange: HttpExchange, reply: Reply): Reply;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function tokens(name: string, values: readonly string[]): string {
  if (!Array.isArray(values) || values.some((value) => typeof value !== 'string' || !TOKEN.test(value))) {
    throw new TypeError(`expected cors.${name} to be an array of header or method names, got ${JSON.stringify(values)}`);
  }
  return values.join(', ');
}

function checkOrigins(origins: readonly string[] | '*', credentials: boolean): ReadonlySet<string> | '*' {
  if (origins === '*') {
    if (credentials) throw new TypeError("expected explicit cors.origins with cors.credentials, got '*' (browsers refuse the pair)");
    return '*';
  }
  if (!Array.isArray(origins)) throw new TypeError(`expected cors.origins to be an array of origins or '*', got ${typeof origins}`);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = typeof origin === 'string' ? new URL(origin) : undefined;
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || parsed.origin !== origin) {
      throw new TypeError(
        `expected each cors.origins entry to be an origin such as https://app.example.com, got ${JSON.stringify(origin)}`,
      );
    }
  }
  return new Set(origins);
}

/** Resolves the `cors` option; `undefined` (the default) sends no CORS header at all. */
export function createCors(options: CorsOptions | undefined): Cors | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) throw new TypeError(`expected cors to be an object, got ${typeof options}`);
  const credentials = options.credentials === true;
  const origins = checkOrigins(options.origins, credentials);
  const methods = tokens('methods', options.methods ?? ['GET', 'POST', 'DELETE']);
  const headers = tokens('headers', options.headers ?? ['content-type', A2A_VERSION_HEADER, A2A_EXTENSIONS_HEADER, 'last-event-id']);
  const expose = tokens('exposeHeaders', options.exposeHeaders ?? ['retry-after', A2A_EXTENSIONS_HEADER, 'www-authenticate']);
  const maxAge = options.maxAgeSeconds ?? 600;
  if (!Number.isInteger(maxAge) || maxAge < 0) throw new RangeError(`expected cors.maxAgeSeconds to be an integer >= 0, got ${maxAge}`);

  /** The CORS headers for an origin, or `undefined` when it is not allowed. */
  const allowed = (origin: string | undefined): Record<string, string> | undefined => {
    if (origin === undefined) return undefined;
    if (origins !== '*' && !origins.has(origin)) return undefined;
    // With a list the answer depends on Origin: caches must keep one copy per origin.
    const out: Record<string, string> = { 'access-control-allow-origin': origins === '*' ? '*' : origin };
    if (origins !== '*') out.vary = 'origin';
    if (credentials) out['access-control-allow-credentials'] = 'true';
    return out;
  };

  return {
    preflight(exchange) {
      if (exchange.method !== 'OPTIONS' || exchange.header('access-control-request-method') === undefined) return undefined;
      exchange.skipBody(0);
      const base = allowed(exchange.header('origin'));
      // A disallowed origin gets no CORS header: the browser refuses the call before it is made.
      if (base === undefined) return { kind: 'bytes', status: 403, headers: { vary: 'origin' } };
      base['access-control-allow-methods'] = methods;
      base['access-control-allow-headers'] = headers;
      base['access-control-max-age'] = String(maxAge);
      return { kind: 'bytes', status: 204, headers: base };
    },
    decorate(exchange, reply) {
      const base = allowed(exchange.header('origin'));
      if (base === undefined) return reply;
      if (expose !== '') base['access-control-expose-headers'] = expose;
      reply.headers = reply.headers === undefined ? base : Object.assign(reply.headers, base);
      return reply;
    },
  };
}
