import { A2A_METHODS, type A2AMethod, type HttpVerb, type QueryParamKind, REST_BINDINGS } from './methods.js';

type Segment = { kind: 'literal'; value: string } | { kind: 'param'; name: string; suffix: string };

interface CompiledRoute {
  method: A2AMethod;
  verbs: ReadonlySet<string>;
  segments: readonly Segment[];
}

function compile(template: string): Segment[] {
  return template
    .split('/')
    .filter(Boolean)
    .map((raw) => {
      const match = /^\{(\w+)\}(:\w+)?$/.exec(raw);
      if (!match) return { kind: 'literal', value: raw };
      return { kind: 'param', name: match[1]!, suffix: match[2] ?? '' };
    });
}

// Pure: a client that only builds requests (never matches them) drops the compiled routes.
const ROUTES: readonly CompiledRoute[] = /* @__PURE__ */ A2A_METHODS.map((method) => {
  const rest = REST_BINDINGS[method];
  return { method, verbs: new Set([rest.verb, ...rest.alternateVerbs]), segments: compile(rest.path) };
});

export interface RestRouteMatch {
  method: A2AMethod;
  /** Decoded path parameters, such as `{ id }` or `{ taskId, id }`. */
  pathParams: Record<string, string>;
  /** The `/{tenant}` prefix, when the path had one. */
  tenant?: string;
}

function safeDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

function matchSegments(segments: readonly Segment[], parts: readonly string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const part = parts[i]!;
    if (segment.kind === 'literal') {
      if (part !== segment.value) return undefined;
      continue;
    }
    if (!part.endsWith(segment.suffix)) return undefined;
    const raw = part.slice(0, part.length - segment.suffix.length);
    // A raw ':' marks a custom verb (`:cancel`); ids that contain one arrive percent-encoded.
    if (raw === '' || raw.includes(':')) return undefined;
    const decoded = safeDecode(raw);
    if (decoded === undefined) return undefined;
    params[segment.name] = decoded;
  }
  return params;
}

/**
 * Finds the operation for a REST request path (relative to the REST base, query string removed).
 * Paths without a tenant win over tenant-prefixed ones, so `/tasks/x` is always GetTask.
 * Returns `undefined` when no route matches, `{ allowedVerbs }` when the path matches with another verb.
 */
export function matchRestRoute(verb: string, path: string): RestRouteMatch | { method?: undefined; allowedVerbs: HttpVerb[] } | undefined {
  const parts = path.split('/').filter(Boolean);
  const upperVerb = verb.toUpperCase();
  const allowed = new Set<HttpVerb>();
  for (const withTenant of [false, true]) {
    if (withTenant && parts.length < 2) break;
    const rest = withTenant ? parts.slice(1) : parts;
    for (const route of ROUTES) {
      const params = matchSegments(route.segments, rest);
      if (!params) continue;
      if (!route.verbs.has(upperVerb)) {
        for (const v of route.verbs) allowed.add(v as HttpVerb);
        continue;
      }
      if (!withTenant) return { method: route.method, pathParams: params };
      const tenant = safeDecode(parts[0]!);
      if (tenant === undefined) continue;
      return { method: route.method, pathParams: params, tenant };
    }
  }
  return allowed.size > 0 ? { allowedVerbs: [...allowed] } : undefined;
}

/** Builds the REST path of an operation: fills the template and adds the `/{tenant}` prefix when given. */
export function buildRestPath(method: A2AMethod, pathParams: Readonly<Record<string, string>>, tenant?: string): string {
  const path = REST_BINDINGS[method].path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = pathParams[name];
    if (value === undefined || value === '') throw new TypeError(`expected path parameter "${name}" for ${method}`);
    return encodeURIComponent(value);
  });
  return tenant ? `/${encodeURIComponent(tenant)}${path}` : path;
}

/** `historyLength` -> `history_length`: the proto name of a query parameter. */
const protoNameOf = (jsonName: string): string => jsonName.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function readQueryValue(kind: QueryParamKind, value: string): unknown {
  switch (kind) {
    case 'int':
      // Leave non-integers as strings so that schema validation reports them with the field name.
      return /^-?\d{1,10}$/.test(value) ? Number(value) : value;
    case 'bool':
      return value === 'true' ? true : value === 'false' ? false : value;
    default:
      return value;
  }
}

/**
 * Assembles the params object of an operation from the parts of a REST request (spec §11.5):
 * path parameters, the tenant, query parameters converted by kind, and the JSON body of POSTs.
 * The result is still untrusted: validate it with `parseOperationParams` (which also renames proto names).
 */
export function restRequestToParams(
  method: A2AMethod,
  parts: {
    pathParams: Readonly<Record<string, string>>;
    tenant?: string;
    query?: URLSearchParams;
    body?: unknown;
  },
): unknown {
  const rest = REST_BINDINGS[method];
  const params: Record<string, unknown> = {};
  if (rest.body && parts.body !== undefined) {
    if (typeof parts.body !== 'object' || parts.body === null || Array.isArray(parts.body)) return parts.body;
    // Own properties only, and never `__proto__`: Object.assign would set the prototype through it,
    // and the body's fields would then be read through the prototype chain.
    for (const key of Object.keys(parts.body)) {
      if (key !== '__proto__') params[key] = (parts.body as Record<string, unknown>)[key];
    }
  }
  if (parts.query) {
    for (const [name, kind] of Object.entries(rest.query)) {
      const value = parts.query.get(name);
      if (value !== null) params[name] = readQueryValue(kind, value);
      // ProtoJSON: the proto name (`history_length`) is accepted too; the params parse renames it
      // and refuses a field given under both names.
      const protoName = protoNameOf(name);
      const protoValue = protoName === name ? null : parts.query.get(protoName);
      if (protoValue !== null) params[protoName] = readQueryValue(kind, protoValue);
    }
  }
  Object.assign(params, parts.pathParams);
  if (parts.tenant !== undefined) params.tenant = parts.tenant;
  return params;
}

export interface RestRequestParts {
  verb: HttpVerb;
  /** Path relative to the REST base, with the tenant prefix when the params name one. */
  path: string;
  query: URLSearchParams;
  /** JSON body for POST operations; `undefined` otherwise. */
  body: Record<string, unknown> | undefined;
}

/** The inverse of `restRequestToParams`: how a client sends an operation over the REST binding. */
export function paramsToRestRequest<M extends A2AMethod>(method: M, params: Readonly<Record<string, unknown>>): RestRequestParts {
  const rest = REST_BINDINGS[method];
  const pathParamNames = [...rest.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const pathParams: Record<string, string> = {};
  for (const name of pathParamNames) pathParams[name] = String(params[name] ?? '');
  const tenant = typeof params.tenant === 'string' && params.tenant !== '' ? params.tenant : undefined;
  const path = buildRestPath(method, pathParams, tenant);
  const query = new URLSearchParams();
  let body: Record<string, unknown> | undefined;
  if (rest.body) {
    body = {};
    for (const [key, value] of Object.entries(params)) {
      if (key !== 'tenant' && !pathParamNames.includes(key) && value !== undefined) body[key] = value;
    }
  } else {
    for (const name of Object.keys(rest.query)) {
      const value = params[name];
      if (value !== undefined && value !== null) query.set(name, String(value));
    }
  }
  return { verb: rest.verb, path, query, body };
}
