import { describe, expect, it } from 'vitest';
import { OtlpReadError, orderSpans, readOtlpJson, readOtlpTraces, toOtlpJson, waterfall } from '../src/read.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const span = (extra: Record<string, unknown> = {}) => ({
  traceId: TRACE,
  spanId: 'b7ad6b7169203331',
  name: 'lf.a2a.v1.A2AService/SendMessage',
  kind: 2,
  startTimeUnixNano: '1700000000000000000',
  endTimeUnixNano: '1700000000005000000',
  attributes: [{ key: 'gen_ai.agent.name', value: { stringValue: 'A' } }],
  ...extra,
});
const request = (...spans: unknown[]) => ({
  resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'agent-a' } }] }, scopeSpans: [{ spans }] }],
});
const refusal = (body: unknown, limits?: Parameters<typeof readOtlpTraces>[1]): string => {
  try {
    readOtlpTraces(body, limits);
  } catch (error) {
    expect(error).toBeInstanceOf(OtlpReadError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('readOtlpTraces', () => {
  it('reads the OTLP JSON the exporter sends: hex ids, nanoseconds as strings, enums as integers, the service name', () => {
    const [read] = readOtlpTraces(request(span({ parentSpanId: '00f067aa0ba902b7', status: { code: 2, message: 'boom' } })));
    expect(read).toMatchObject({
      traceId: TRACE,
      spanId: 'b7ad6b7169203331',
      parentSpanId: '00f067aa0ba902b7',
      kind: 2,
      startNs: 1700000000000000000n,
      endNs: 1700000000005000000n,
      error: true,
      statusMessage: 'boom',
      service: 'agent-a',
      attributes: { 'gen_ai.agent.name': 'A' },
    });
  });

  it('reads every attribute kind it shows and skips the rest', () => {
    const [read] = readOtlpTraces(
      request(
        span({
          attributes: [
            { key: 'i', value: { intValue: '42' } },
            { key: 'n', value: { intValue: 7 } },
            { key: 'd', value: { doubleValue: 0.5 } },
            { key: 'b', value: { boolValue: false } },
            { key: 'a', value: { arrayValue: { values: [{ stringValue: 'x' }, { intValue: '1' }] } } },
            { key: 'bytes', value: { bytesValue: 'AAEC' } },
          ],
        }),
      ),
    );
    expect({ ...read?.attributes }).toEqual({ i: 42, n: 7, d: 0.5, b: false, a: ['x', 1] });
  });

  it.each([
    ['a body that is not an object', [], 'request: expected an object'],
    ['resourceSpans that is not an array', { resourceSpans: {} }, 'request.resourceSpans: expected an array'],
    ['a short trace id', request(span({ traceId: 'abc' })), 'resourceSpans[0].scopeSpans[0].spans[0].traceId'],
    ['an all-zero trace id', request(span({ traceId: '0'.repeat(32) })), 'traceId: expected a 16-byte trace id'],
    ['a span id that is not hex', request(span({ spanId: 'zzzzzzzzzzzzzzzz' })), 'spanId'],
    ['a base64 parent id', request(span({ parentSpanId: 'APBnqgupArc=' })), 'parentSpanId'],
    ['a negative time', request(span({ startTimeUnixNano: '-1' })), 'startTimeUnixNano: expected unsigned nanoseconds'],
    ['a time past 64 bits', request(span({ endTimeUnixNano: '99999999999999999999' })), 'endTimeUnixNano'],
    ['an end before the start', request(span({ endTimeUnixNano: '1' })), 'ends before it starts'],
    ['an unknown kind', request(span({ kind: 9 })), 'kind: expected an integer from 0 to 5'],
    ['a missing name', request(span({ name: '' })), 'name'],
    ['an attribute without a key', request(span({ attributes: [{ value: { stringValue: 'x' } }] })), 'attributes[0].key'],
    ['an int that is not one', request(span({ attributes: [{ key: 'k', value: { intValue: '1e3' } }] })), 'intValue'],
    ['a status code out of range', request(span({ status: { code: 7 } })), 'status.code'],
    [
      'arrays nested past two levels',
      request(
        span({
          attributes: [{ key: 'k', value: { arrayValue: { values: [{ arrayValue: { values: [{ arrayValue: { values: [] } }] } }] } } }],
        }),
      ),
      'arrays nested too deep',
    ],
  ])('refuses %s, naming the field', (_what, body, message) => {
    expect(refusal(body)).toContain(message);
  });

  it('refuses a request over maxSpans spans, counted across scopes', () => {
    const body = { resourceSpans: [{ scopeSpans: [{ spans: [span()] }, { spans: [span({ spanId: '1111111111111111' })] }] }] };
    expect(refusal(body, { maxSpans: 1 })).toBe('resourceSpans[0].scopeSpans[1].spans: over 1 spans in one request');
    expect(readOtlpTraces(body, { maxSpans: 2 })).toHaveLength(2);
  });

  it('cuts long strings and keeps at most maxAttributes attributes', () => {
    const attributes = Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: { stringValue: 'x'.repeat(100) } }));
    const [read] = readOtlpTraces(request(span({ name: 'n'.repeat(100), attributes })), { maxAttributes: 3, maxStringLength: 8 });
    expect(read?.name).toBe('nnnnnnnn');
    expect(Object.keys(read?.attributes ?? {})).toEqual(['k0', 'k1', 'k2']);
    expect(read?.attributes.k0).toBe('xxxxxxxx');
  });

  it('gives a `__proto__` attribute no prototype to pollute', () => {
    const [read] = readOtlpTraces(request(span({ attributes: [{ key: '__proto__', value: { stringValue: 'x' } }] })));
    expect(Object.entries(read?.attributes ?? {})).toEqual([['__proto__', 'x']]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('refuses text that is not JSON', () => {
    expect(() => readOtlpJson('{')).toThrow('request: not JSON');
  });

  it('reads back what toOtlpJson wrote', () => {
    const spans = readOtlpTraces(
      request(
        span({
          attributes: [
            { key: 'd', value: { doubleValue: 1.5 } },
            { key: 'a', value: { arrayValue: { values: [{ stringValue: 'x' }] } } },
          ],
        }),
      ),
    );
    expect(readOtlpTraces(JSON.parse(JSON.stringify(toOtlpJson(spans))))).toEqual(spans);
  });
});

describe('orderSpans and waterfall', () => {
  const spans = readOtlpTraces(
    request(
      span({ spanId: '1000000000000000', startTimeUnixNano: '0', endTimeUnixNano: '100' }),
      span({
        spanId: '3000000000000000',
        parentSpanId: '1000000000000000',
        kind: 1,
        name: 'b',
        startTimeUnixNano: '50',
        endTimeUnixNano: '60',
      }),
      span({
        spanId: '2000000000000000',
        parentSpanId: '1000000000000000',
        kind: 3,
        name: 'a',
        startTimeUnixNano: '10',
        endTimeUnixNano: '20',
      }),
      span({
        spanId: '4000000000000000',
        parentSpanId: 'ffffffffffffffff',
        kind: 1,
        name: 'orphan',
        startTimeUnixNano: '70',
        endTimeUnixNano: '90',
      }),
      span({
        spanId: '5000000000000000',
        parentSpanId: '3000000000000000',
        kind: 1,
        name: 'a2a.governance.budget',
        startTimeUnixNano: '50',
        endTimeUnixNano: '55',
        attributes: [
          { key: 'a2a.governance.decision', value: { stringValue: 'rejected' } },
          { key: 'a2a.governance.reason', value: { stringValue: 'BUDGET_EXCEEDED' } },
        ],
      }),
    ),
  );

  it('orders depth-first with children by start time; a span whose parent is missing starts a new root', () => {
    expect(orderSpans(spans).map(({ span: s, depth }) => `${s.name}@${depth}`)).toEqual([
      'lf.a2a.v1.A2AService/SendMessage@0',
      'a@1',
      'b@1',
      'a2a.governance.budget@2',
      'orphan@0',
    ]);
  });

  it('places bars on the trace time axis and names and colours a refusal', () => {
    const { rows, totalMs } = waterfall(spans);
    expect(totalMs).toBe(100 / 1e6);
    expect(rows[1]).toMatchObject({ offset: 0.1, width: 0.1, label: '→ a', color: '#9c9c9c' });
    expect(rows[0]?.label).toBe('A ← SendMessage');
    expect(rows[3]).toMatchObject({ label: 'budget: rejected (BUDGET_EXCEEDED)', refused: true, color: '#e15759' });
  });
});
