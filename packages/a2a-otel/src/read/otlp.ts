import type { SpanAttributeValue, TraceSpan } from './spans.js';

/** Bounds of one OTLP request as `readOtlpTraces` reads it. */
export interface OtlpReadLimits {
  /** Spans in one request; more is refused. Default 5000. */
  maxSpans?: number;
  /** Attributes kept per span (the rest are dropped). Default 128. */
  maxAttributes?: number;
  /** Characters kept of a string (name, attribute value, status message). Default 4096. */
  maxStringLength?: number;
}

/** Thrown by `readOtlpTraces`: `path` names the field (`resourceSpans[0].scopeSpans[1].spans[2].traceId`). */
export class OtlpReadError extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = 'OtlpReadError';
  }
}

type Json = Record<string, unknown>;

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const UNSIGNED = /^[0-9]{1,20}$/;
const SIGNED = /^-?[0-9]{1,19}$/;
const MAX_U64 = 2n ** 64n - 1n;
/** Nesting of `arrayValue` kept; deeper arrays are refused (OTel attributes are flat arrays). */
const MAX_ARRAY_DEPTH = 2;
const MAX_ARRAY_VALUES = 128;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function objectAt(value: unknown, path: string): Json {
  if (!isObject(value)) throw new OtlpReadError(path, 'expected an object');
  return value;
}

/** An optional array field: absent or null reads as empty. */
function arrayAt(parent: Json, key: string, path: string): unknown[] {
  const value = parent[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OtlpReadError(`${path}.${key}`, 'expected an array');
  return value;
}

function idAt(value: unknown, pattern: RegExp, path: string, what: string): string {
  if (typeof value !== 'string') throw new OtlpReadError(path, `expected ${what} as a hex string`);
  const id = value.toLowerCase();
  if (!pattern.test(id) || /^0+$/.test(id)) throw new OtlpReadError(path, `expected ${what} (non-zero hex)`);
  return id;
}

function timeAt(value: unknown, path: string): bigint {
  const text = typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? String(value) : value;
  if (typeof text !== 'string' || !UNSIGNED.test(text)) throw new OtlpReadError(path, 'expected unsigned nanoseconds');
  const ns = BigInt(text);
  if (ns > MAX_U64) throw new OtlpReadError(path, 'expected unsigned 64-bit nanoseconds');
  return ns;
}

function intAt(value: unknown, path: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new OtlpReadError(path, `expected an integer from ${min} to ${max}`);
  }
  return value;
}

const clip = (text: string, max: number): string => (text.length > max ? text.slice(0, max) : text);

function anyValue(value: unknown, path: string, maxString: number, depth: number): SpanAttributeValue | undefined {
  const v = objectAt(value, path);
  if (typeof v.stringValue === 'string') return clip(v.stringValue, maxString);
  if (typeof v.boolValue === 'boolean') return v.boolValue;
  if (typeof v.doubleValue === 'number' && Number.isFinite(v.doubleValue)) return v.doubleValue;
  if (v.intValue !== undefined) {
    const text = typeof v.intValue === 'number' && Number.isSafeInteger(v.intValue) ? String(v.intValue) : v.intValue;
    if (typeof text !== 'string' || !SIGNED.test(text)) throw new OtlpReadError(`${path}.intValue`, 'expected a signed 64-bit integer');
    return Number(text);
  }
  if (v.arrayValue !== undefined) {
    if (depth >= MAX_ARRAY_DEPTH) throw new OtlpReadError(`${path}.arrayValue`, 'arrays nested too deep');
    const values = arrayAt(objectAt(v.arrayValue, `${path}.arrayValue`), 'values', `${path}.arrayValue`);
    if (values.length > MAX_ARRAY_VALUES) throw new OtlpReadError(`${path}.arrayValue.values`, `over ${MAX_ARRAY_VALUES} values`);
    const out: SpanAttributeValue[] = [];
    values.forEach((item, i) => {
      const read = anyValue(item, `${path}.arrayValue.values[${i}]`, maxString, depth + 1);
      if (read !== undefined) out.push(read);
    });
    return out;
  }
  // bytesValue, kvlistValue, an empty value or a non-finite double: nothing the console shows.
  return undefined;
}

function attributesAt(parent: Json, path: string, limits: Required<OtlpReadLimits>): Record<string, SpanAttributeValue> {
  const out: Record<string, SpanAttributeValue> = Object.create(null) as Record<string, SpanAttributeValue>;
  let kept = 0;
  arrayAt(parent, 'attributes', path).forEach((item, i) => {
    const at = `${path}.attributes[${i}]`;
    const attribute = objectAt(item, at);
    if (typeof attribute.key !== 'string' || attribute.key.length === 0 || attribute.key.length > 256) {
      throw new OtlpReadError(`${at}.key`, 'expected a key of 1 to 256 characters');
    }
    const value = anyValue(attribute.value, `${at}.value`, limits.maxStringLength, 0);
    if (value === undefined || kept >= limits.maxAttributes) return;
    if (!(attribute.key in out)) kept += 1;
    out[attribute.key] = value;
  });
  return out;
}

function spanAt(value: unknown, path: string, service: string | undefined, limits: Required<OtlpReadLimits>): TraceSpan {
  const span = objectAt(value, path);
  const parent = span.parentSpanId;
  const startNs = timeAt(span.startTimeUnixNano, `${path}.startTimeUnixNano`);
  const endNs = timeAt(span.endTimeUnixNano, `${path}.endTimeUnixNano`);
  if (endNs < startNs) throw new OtlpReadError(`${path}.endTimeUnixNano`, 'ends before it starts');
  if (typeof span.name !== 'string' || span.name.length === 0) throw new OtlpReadError(`${path}.name`, 'expected a non-empty string');
  const status = span.status === undefined || span.status === null ? {} : objectAt(span.status, `${path}.status`);
  const code = status.code === undefined ? 0 : intAt(status.code, `${path}.status.code`, 0, 2);
  if (status.message !== undefined && typeof status.message !== 'string')
    throw new OtlpReadError(`${path}.status.message`, 'expected a string');
  return {
    traceId: idAt(span.traceId, TRACE_ID, `${path}.traceId`, 'a 16-byte trace id'),
    spanId: idAt(span.spanId, SPAN_ID, `${path}.spanId`, 'an 8-byte span id'),
    parentSpanId:
      parent === undefined || parent === null || parent === ''
        ? undefined
        : idAt(parent, SPAN_ID, `${path}.parentSpanId`, 'an 8-byte span id'),
    name: clip(span.name, limits.maxStringLength),
    kind: span.kind === undefined ? 0 : intAt(span.kind, `${path}.kind`, 0, 5),
    startNs,
    endNs,
    error: code === 2,
    statusMessage: typeof status.message === 'string' && status.message !== '' ? clip(status.message, limits.maxStringLength) : undefined,
    attributes: attributesAt(span, path, limits),
    service,
  };
}

/**
 * The spans of an OTLP/HTTP JSON `ExportTraceServiceRequest` (what `@opentelemetry/exporter-trace-otlp-http`
 * sends: hex ids, integers as strings or numbers, enums as integers). Every field is checked before
 * use and a malformed one throws `OtlpReadError` naming it; over-long strings are cut and extra
 * attributes dropped, a request over `maxSpans` spans is refused. Unknown fields are ignored.
 */
export function readOtlpTraces(body: unknown, options: OtlpReadLimits = {}): TraceSpan[] {
  const limits: Required<OtlpReadLimits> = { maxSpans: 5000, maxAttributes: 128, maxStringLength: 4096, ...options };
  const request = objectAt(body, 'request');
  const out: TraceSpan[] = [];
  arrayAt(request, 'resourceSpans', 'request').forEach((resourceItem, r) => {
    const resourcePath = `resourceSpans[${r}]`;
    const resourceSpans = objectAt(resourceItem, resourcePath);
    const resource = resourceSpans.resource === undefined ? undefined : objectAt(resourceSpans.resource, `${resourcePath}.resource`);
    const serviceName = resource === undefined ? undefined : attributesAt(resource, `${resourcePath}.resource`, limits)['service.name'];
    const service = typeof serviceName === 'string' ? serviceName : undefined;
    arrayAt(resourceSpans, 'scopeSpans', resourcePath).forEach((scopeItem, s) => {
      const scopePath = `${resourcePath}.scopeSpans[${s}]`;
      const spans = arrayAt(objectAt(scopeItem, scopePath), 'spans', scopePath);
      if (out.length + spans.length > limits.maxSpans)
        throw new OtlpReadError(`${scopePath}.spans`, `over ${limits.maxSpans} spans in one request`);
      spans.forEach((spanItem, i) => {
        out.push(spanAt(spanItem, `${scopePath}.spans[${i}]`, service, limits));
      });
    });
  });
  return out;
}

/** `readOtlpTraces` of a JSON text; text that is not JSON throws `OtlpReadError`. */
export function readOtlpJson(json: string, options?: OtlpReadLimits): TraceSpan[] {
  let body: unknown;
  try {
    body = JSON.parse(json);
  } catch {
    throw new OtlpReadError('request', 'not JSON');
  }
  return readOtlpTraces(body, options);
}

function otlpValue(value: SpanAttributeValue): Json {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  return { arrayValue: { values: value.map(otlpValue) } };
}

/**
 * Spans back as an OTLP JSON request (one resource per service), which `readOtlpTraces` reads
 * to the same spans: how the console's backend hands a stored trace to its UI.
 */
export function toOtlpJson(spans: readonly TraceSpan[]): Json {
  const byService = new Map<string | undefined, TraceSpan[]>();
  for (const span of spans) {
    const list = byService.get(span.service);
    if (list === undefined) byService.set(span.service, [span]);
    else list.push(span);
  }
  return {
    resourceSpans: [...byService].map(([service, list]) => ({
      resource: { attributes: service === undefined ? [] : [{ key: 'service.name', value: { stringValue: service } }] },
      scopeSpans: [
        {
          spans: list.map((span) => ({
            traceId: span.traceId,
            spanId: span.spanId,
            ...(span.parentSpanId === undefined ? {} : { parentSpanId: span.parentSpanId }),
            name: span.name,
            kind: span.kind,
            startTimeUnixNano: String(span.startNs),
            endTimeUnixNano: String(span.endNs),
            attributes: Object.entries(span.attributes).map(([key, value]) => ({ key, value: otlpValue(value) })),
            status: { code: span.error ? 2 : 0, ...(span.statusMessage === undefined ? {} : { message: span.statusMessage }) },
          })),
        },
      ],
    })),
  };
}
