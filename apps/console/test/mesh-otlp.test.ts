import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { readOtlpTraces, type TraceSummary } from '@a2aplane/a2a-otel/read';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { type ConsoleServer, createConsoleServer, createMesh, type MeshOptions } from '../src/server/index.js';
import { createTraceStore } from '../src/server/mesh/trace-store.js';

const TOKEN = 'test-session-token-0123456789';
const TRACE = '0af7651916cd43dd8448eb211c80319c';
let server: ConsoleServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: MeshOptions = {}) {
  const mesh = createMesh(options);
  server = createConsoleServer({ routes: mesh.routes, sessionToken: TOKEN });
  const url = await server.listen(0);
  return { url, mesh };
}

const span = (i: number, traceId = TRACE) => ({
  traceId,
  spanId: (i + 1).toString(16).padStart(16, '0'),
  name: `span ${i}`,
  kind: 2,
  startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i)),
  endTimeUnixNano: String(1_700_000_000_000_000_100n + BigInt(i)),
});
const body = (...spans: unknown[]) => JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
const post = (url: string, payload: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(`${url}/v1/traces`, { method: 'POST', headers, body: typeof payload === 'string' ? payload : new Uint8Array(payload) });
const api = (url: string, path: string) => fetch(`${url}${path}`, { headers: { 'x-a2a-console-token': TOKEN } });
const errorOf = async (response: Response) => ((await response.json()) as { error: { message: string } }).error.message;

describe('OTLP/HTTP intake at /v1/traces', () => {
  it('takes the spans of the standard OTLP HTTP exporter, and lists and serves the trace', async () => {
    const { url } = await start();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${url}/v1/traces` }))],
    });
    const tracer = provider.getTracer('test');
    const root = tracer.startSpan('root');
    const traceId = root.spanContext().traceId;
    root.end();
    await provider.forceFlush();
    await provider.shutdown();

    const list = (await (await api(url, '/api/mesh/traces')).json()) as { traces: TraceSummary[] };
    expect(list.traces.map((t) => [t.traceId, t.spanCount, t.rootName])).toEqual([[traceId, 1, 'root']]);
    const trace = await api(url, `/api/mesh/traces/${traceId}`);
    expect(trace.status).toBe(200);
    expect(readOtlpTraces(await trace.json()).map((s) => s.name)).toEqual(['root']);
  });

  it('answers protobuf with a 415 that says how to switch to JSON, and other media types with 415', async () => {
    const { url, mesh } = await start();
    const protobuf = await post(url, Buffer.from([0x0a, 0x00]), { 'content-type': 'application/x-protobuf' });
    expect(protobuf.status).toBe(415);
    expect(await errorOf(protobuf)).toContain('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json');
    // text/plain is what a page may post cross-site without a preflight: refused too.
    expect((await post(url, body(span(0)), { 'content-type': 'text/plain' })).status).toBe(415);
    expect(mesh.traces.size).toBe(0);
  });

  it('refuses a malformed span with 400 naming the field, and keeps nothing of that request', async () => {
    const { url, mesh } = await start();
    const response = await post(url, body(span(0), { ...span(1), spanId: 'not-hex' }));
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toBe('resourceSpans[0].scopeSpans[0].spans[1].spanId: expected an 8-byte span id (non-zero hex)');
    expect((await post(url, '{"resourceSpans":')).status).toBe(400);
    expect(mesh.traces.size).toBe(0);
  });

  it('refuses bodies over the limit (413), plain or once gunzipped, and requests over the span cap (400)', async () => {
    const { url, mesh } = await start({ otlp: { maxBodyBytes: 2048, maxSpansPerRequest: 3 } });
    expect((await post(url, body(...Array.from({ length: 40 }, (_, i) => span(i))))).status).toBe(413);
    const bomb = gzipSync(Buffer.from(`{"resourceSpans":[${' '.repeat(1024 * 1024)}]}`));
    expect(bomb.length).toBeLessThan(2048);
    const gzipped = await post(url, bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(gzipped.status).toBe(413);
    expect(
      (await post(url, gzipSync(Buffer.from(body(span(0)))), { 'content-type': 'application/json', 'content-encoding': 'gzip' })).status,
    ).toBe(200);
    const tooMany = await post(url, body(span(1), span(2), span(3), span(4)));
    expect(tooMany.status).toBe(400);
    expect(await errorOf(tooMany)).toContain('over 3 spans in one request');
    expect(mesh.traces.get(TRACE)?.map((s) => s.name)).toEqual(['span 0']);
  });

  it('answers only POST at exactly /v1/traces', async () => {
    const { url } = await start();
    const get = await fetch(`${url}/v1/traces`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(
      (await fetch(`${url}/v1/traces/extra`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(span(0)) }))
        .status,
    ).toBe(404);
  });

  it('keeps at most maxTraces traces, evicting the least recently updated', async () => {
    const { url, mesh } = await start({ traces: { maxTraces: 2 } });
    const ids = ['1'.repeat(32), '2'.repeat(32), '3'.repeat(32)];
    await post(url, body(span(0, ids[0])));
    await post(url, body(span(0, ids[1])));
    await post(url, body(span(1, ids[0]))); // trace 1 updated: trace 2 is now the oldest
    await post(url, body(span(0, ids[2])));
    const list = (await (await api(url, '/api/mesh/traces')).json()) as { traces: TraceSummary[] };
    expect(list.traces.map((t) => t.traceId)).toEqual([ids[2], ids[0]]);
    expect((await api(url, `/api/mesh/traces/${ids[1]}`)).status).toBe(404);
    expect(mesh.traces.get(ids[0] as string)).toHaveLength(2);
  });

  it('keeps at most maxSpansPerTrace spans of a trace and reports the rest as rejected (OTLP partialSuccess)', async () => {
    const { url, mesh } = await start({ traces: { maxSpansPerTrace: 2 } });
    const response = await post(url, body(span(0), span(1), span(2)));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      partialSuccess: { rejectedSpans: '1', errorMessage: 'the trace is over the console’s span limit' },
    });
    // A span sent again (an exporter's retry) replaces its copy and is not counted twice.
    expect(await (await post(url, body(span(1)))).json()).toEqual({});
    expect(mesh.traces.get(TRACE)).toHaveLength(2);
  });

  it('keeps at most maxSpans spans over all traces, evicting whole traces oldest first', async () => {
    const { url, mesh } = await start({ traces: { maxSpans: 3 } });
    await post(url, body(span(0, '1'.repeat(32)), span(1, '1'.repeat(32))));
    await post(url, body(span(0, '2'.repeat(32)), span(1, '2'.repeat(32))));
    expect(mesh.traces.get('1'.repeat(32))).toBeUndefined();
    expect(mesh.traces.get('2'.repeat(32))).toHaveLength(2);
  });

  it('serves the mesh API only with the session token, and 404s an unknown trace', async () => {
    const { url } = await start();
    expect((await fetch(`${url}/api/mesh/traces`)).status).toBe(403);
    expect((await api(url, `/api/mesh/traces/${'f'.repeat(32)}`)).status).toBe(404);
    expect((await api(url, '/api/mesh/traces/not-an-id')).status).toBe(404);
    expect(await (await api(url, '/api/mesh/registry')).json()).toEqual({ configured: false, agents: [] });
  });

  it('answers only requests that name the console as Host (no DNS rebinding onto the intake)', async () => {
    const { url, mesh } = await start();
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        `${url}/v1/traces`,
        { method: 'POST', headers: { host: 'attacker.example', 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', reject);
      req.end(body(span(0)));
    });
    expect(status).toBe(421);
    expect(mesh.traces.size).toBe(0);
  });

  it('keeps 200 traces and 2000 spans per trace by default (the limits docs/console.md gives)', () => {
    const store = createTraceStore();
    for (let i = 0; i < 201; i++) store.add(readOtlpTraces(JSON.parse(body(span(0, (i + 1).toString(16).padStart(32, '0'))))));
    expect(store.size).toBe(200);
    expect(store.get('1'.padStart(32, '0'))).toBeUndefined();
    const big = readOtlpTraces(JSON.parse(body(...Array.from({ length: 2001 }, (_, i) => span(i)))));
    expect(store.add(big)).toEqual({ dropped: 1 });
  });

  it('refuses by default a body over 4 MiB (413) and a request over 5000 spans (400)', async () => {
    const { url, mesh } = await start();
    const padded = JSON.stringify({ resourceSpans: [], padding: 'x'.repeat(4 * 1024 * 1024) });
    expect((await post(url, padded)).status).toBe(413);
    const many = await post(url, body(...Array.from({ length: 5001 }, (_, i) => span(i))));
    expect(many.status).toBe(400);
    expect(await errorOf(many)).toContain('over 5000 spans in one request');
    expect(mesh.traces.size).toBe(0);
  });
});
