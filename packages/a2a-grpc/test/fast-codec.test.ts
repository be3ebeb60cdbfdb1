import type { DescMessage } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENT_ID_FIELD, encodeStreamItem, readEventId, referenceDecodeToJson, referenceEncodeFromJson } from '../src/codec.js';
import { fastDecode, fastEncode, Unsupported } from '../src/fast-codec.js';
import { decodeToJson, GRPC_OPERATIONS } from '../src/index.js';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';

const op = (method: Parameters<typeof GRPC_OPERATIONS.get>[0]) =>
  GRPC_OPERATIONS.get(method) as NonNullable<ReturnType<typeof GRPC_OPERATIONS.get>>;
const SendMessageResponse = op('SendMessage').output;
const SendMessageRequest = op('SendMessage').input;
const StreamResponse = op('SendStreamingMessage').output;
const ListTasksRequest = op('ListTasks').input;
const ListTasksResponse = op('ListTasks').output;

/** The fast path must mean exactly what protobuf-es means, both ways. */
function agrees(desc: DescMessage, json: unknown): void {
  const reference = referenceEncodeFromJson(desc, json);
  const expected = referenceDecodeToJson(desc, reference);
  expect(referenceDecodeToJson(desc, fastEncode(desc, json)), 'fast encode').toEqual(expected);
  expect(fastDecode(desc, reference), 'fast decode').toEqual(expected);
}

const task = {
  id: 't-1',
  contextId: 'c-1',
  status: {
    state: 'TASK_STATE_INPUT_REQUIRED',
    timestamp: '2026-01-02T03:04:05.123456789Z',
    message: { messageId: 'm-2', role: 'ROLE_AGENT', parts: [{ text: 'more?' }] },
  },
  artifacts: [
    {
      artifactId: 'a-1',
      name: 'out',
      parts: [
        { text: 'hello', mediaType: 'text/plain', metadata: { k: 'v', n: 1.5 } },
        { raw: 'AAEC/w==', filename: 'b.bin' },
        { url: 'https://example.com/x' },
        { data: { list: [1, 'two', null, true], nested: { x: {} } } },
        { data: 'a string value' },
      ],
      extensions: ['https://example.com/ext'],
      metadata: { deep: { deeper: [1, 2] } },
    },
  ],
  history: [{ messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }], referenceTaskIds: ['t-0'], taskId: 't-1', contextId: 'c-1' }],
  metadata: { skillId: 'echo' },
};

describe('the lean codec agrees with protobuf-es', () => {
  it('a rich task, as SendMessageResponse and StreamResponse', () => {
    agrees(SendMessageResponse, { task });
    agrees(StreamResponse, { task });
    agrees(SendMessageResponse, { message: task.history[0] });
  });

  it('status and artifact updates, with defaults and explicit values', () => {
    agrees(StreamResponse, { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' }, metadata: {} } });
    agrees(StreamResponse, {
      artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: '' }] }, append: false, lastChunk: true },
    });
  });

  it('requests with optional fields at their default (explicit presence) and enums', () => {
    agrees(SendMessageRequest, {
      tenant: '',
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }], extensions: [] },
      configuration: {
        historyLength: 0,
        returnImmediately: false,
        acceptedOutputModes: ['text/plain'],
        taskPushNotificationConfig: { url: 'https://h', authentication: { scheme: 'Bearer' } },
      },
      metadata: { a: 1 },
    });
    agrees(ListTasksRequest, {
      status: 'TASK_STATE_WORKING',
      pageSize: 10,
      includeArtifacts: false,
      statusTimestampAfter: '2026-01-01T00:00:00Z',
    });
    agrees(ListTasksResponse, { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 });
  });

  it('timestamps: fraction digits, offsets, range', () => {
    for (const timestamp of [
      '1970-01-01T00:00:00Z',
      '2026-01-02T03:04:05.1Z',
      '2026-01-02T03:04:05.120Z',
      '2026-01-02T03:04:05.123456Z',
      '2026-01-02T03:04:05.000000001Z',
      '2026-06-30T23:59:59+02:00',
      '1969-12-31T23:59:59.5-05:30',
      '0001-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999999999Z',
    ]) {
      agrees(StreamResponse, { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING', timestamp } } });
    }
    expect(() =>
      fastEncode(StreamResponse, {
        statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING', timestamp: '2026-13-02T03:04:05Z' } },
      }),
    ).toThrow(Unsupported);
  });

  it('random tasks', () => {
    const text = fc.string({ maxLength: 20 });
    const part = fc.oneof(
      fc.record({ text }),
      fc.record({ url: text, filename: text }),
      fc.record({ data: fc.jsonValue({ maxDepth: 2 }).filter((v) => v !== null), mediaType: text }),
      fc.record({ raw: fc.uint8Array({ maxLength: 8 }).map((b) => Buffer.from(b).toString('base64')) }),
    );
    const message = fc.record(
      {
        messageId: text,
        role: fc.constantFrom('ROLE_USER', 'ROLE_AGENT', 'ROLE_UNSPECIFIED'),
        parts: fc.array(part, { maxLength: 3 }),
        taskId: text,
        extensions: fc.array(text, { maxLength: 2 }),
      },
      { requiredKeys: ['messageId', 'role', 'parts'] },
    );
    const state = fc.constantFrom(
      'TASK_STATE_UNSPECIFIED',
      'TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
      'TASK_STATE_COMPLETED',
      'TASK_STATE_FAILED',
    );
    const arbitraryTask = fc.record(
      {
        id: text,
        contextId: text,
        status: fc.record(
          {
            state,
            message,
            timestamp: fc
              .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
              .map((d) => d.toISOString()),
          },
          { requiredKeys: ['state'] },
        ),
        history: fc.array(message, { maxLength: 2 }),
        artifacts: fc.array(fc.record({ artifactId: text, parts: fc.array(part, { maxLength: 2 }), name: text, description: text }), {
          maxLength: 2,
        }),
      },
      { requiredKeys: ['id', 'status'] },
    );
    fc.assert(
      fc.property(arbitraryTask, (t) => agrees(StreamResponse, { task: t })),
      { numRuns: 200 },
    );
  });

  it('long and non-ASCII strings, messages longer than 127 bytes and 16 KiB, negative int32', () => {
    const long = 'ü€𝄞 '.repeat(50);
    agrees(SendMessageResponse, { task: { ...task, id: long, artifacts: [{ artifactId: 'a', parts: [{ text: 'x'.repeat(200) }] }] } });
    agrees(SendMessageResponse, {
      task: { ...task, artifacts: [{ artifactId: 'big', parts: [{ text: long.repeat(200) }, { text: 'y'.repeat(70_000) }] }] },
    });
    agrees(SendMessageRequest, {
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] },
      configuration: { historyLength: -1 },
    });
    // Over 1 MiB: the shared buffer grows, then is dropped for a small one; the next encode is unaffected.
    agrees(SendMessageResponse, { task: { ...task, artifacts: [{ artifactId: 'huge', parts: [{ text: 'z'.repeat(1_200_000) }] }] } });
    agrees(SendMessageResponse, { task });
    // protobuf-es refuses lone surrogates; the lean codec writes them as U+FFFD (as a TextEncoder does) rather than fail a whole answer.
    const lone = fastEncode(SendMessageRequest, {
      message: { messageId: '\ud800x', role: 'ROLE_USER', parts: [{ text: 'a\ud83d'.repeat(30) }] },
    });
    expect(referenceDecodeToJson(SendMessageRequest, lone)).toEqual({
      message: { messageId: '\ufffdx', role: 'ROLE_USER', parts: [{ text: 'a\ufffd'.repeat(30) }] },
    });
  });

  it('random long strings of any code points', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 200 });
    fc.assert(
      fc.property(text, text, (id, body) =>
        agrees(StreamResponse, {
          task: { id, contextId: body, status: { state: 'TASK_STATE_WORKING' }, artifacts: [{ artifactId: id, parts: [{ text: body }] }] },
        }),
      ),
      { numRuns: 200 },
    );
  });

  it('an encode that fails half-way leaves nothing behind for the next one', () => {
    const good = {
      statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING', timestamp: '2026-01-02T03:04:05Z' } },
    };
    const first = Buffer.from(fastEncode(StreamResponse, good));
    expect(() => fastEncode(StreamResponse, { statusUpdate: { taskId: 'x'.repeat(500), status: { state: 'NOT_A_STATE' } } })).toThrow(
      Unsupported,
    );
    expect(() =>
      fastEncode(StreamResponse, {
        statusUpdate: { taskId: 't', status: { state: 'TASK_STATE_WORKING', timestamp: '2026-02-30T00:00:00Z' } },
      }),
    ).toThrow(Unsupported);
    expect(Buffer.from(fastEncode(StreamResponse, good))).toEqual(first);
  });

  it('hands what it does not cover to protobuf-es: proto field names, wrong types, two oneof members, null data', () => {
    expect(() => fastEncode(SendMessageResponse, { task: { id: 't', context_id: 'c', status: { state: 'TASK_STATE_WORKING' } } })).toThrow(
      Unsupported,
    );
    expect(() => fastEncode(SendMessageResponse, { task: { id: 1, status: { state: 'TASK_STATE_WORKING' } } })).toThrow(Unsupported);
    expect(() => fastEncode(SendMessageResponse, { task: { id: 't', status: { state: 'NOT_A_STATE' } } })).toThrow(Unsupported);
    expect(() => fastEncode(StreamResponse, { task: { id: 't' }, message: { messageId: 'm' } })).toThrow(Unsupported);
    expect(() => fastEncode(SendMessageRequest, { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: null }] } })).toThrow(
      Unsupported,
    );
  });
});

describe('stream items with their event id (decision 0030)', () => {
  const event = { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } };

  it('the id rides in a field a2a.proto does not declare: protobuf-es and the lean decoder read the same message', () => {
    const bytes = encodeStreamItem(StreamResponse, event, '42');
    expect(readEventId(bytes)).toBe('42');
    expect(referenceDecodeToJson(StreamResponse, bytes)).toEqual(
      referenceDecodeToJson(StreamResponse, referenceEncodeFromJson(StreamResponse, event)),
    );
    expect(decodeToJson(StreamResponse, bytes)).toEqual(referenceDecodeToJson(StreamResponse, bytes));
    expect(readEventId(referenceEncodeFromJson(StreamResponse, event))).toBeUndefined();
  });

  it('also when protobuf-es encodes the item (what the lean codec hands over)', () => {
    const withProtoNames = { status_update: { task_id: 't', context_id: 'c', status: { state: 'TASK_STATE_WORKING' } } };
    expect(() => fastEncode(StreamResponse, withProtoNames)).toThrow(Unsupported);
    const bytes = encodeStreamItem(StreamResponse, withProtoNames, '7');
    expect(readEventId(bytes)).toBe('7');
    expect(referenceDecodeToJson(StreamResponse, bytes)).toEqual(
      referenceDecodeToJson(StreamResponse, referenceEncodeFromJson(StreamResponse, event)),
    );
  });

  it('an id that could not go back as metadata (empty, too long, not visible ASCII) or bytes that do not parse: no id', () => {
    const withId = (id: string) =>
      Buffer.concat([
        referenceEncodeFromJson(StreamResponse, event),
        new BinaryWriter().tag(EVENT_ID_FIELD, WireType.LengthDelimited).string(id).finish(),
      ]);
    expect(readEventId(withId('ok-1'))).toBe('ok-1');
    for (const bad of ['', 'x'.repeat(129), 'a b', 'line\nbreak', 'é'])
      expect(readEventId(withId(bad)), JSON.stringify(bad)).toBeUndefined();
    expect(readEventId(Uint8Array.of(0x0a, 0x05, 0x01))).toBeUndefined();
  });
});

describe('the lean decoder on bytes protobuf-es did not write', () => {
  /** Whatever the lean decoder returns, protobuf-es returns too; where protobuf-es refuses, the lean decoder throws. */
  function sameOrThrows(desc: DescMessage, bytes: Uint8Array): void {
    let reference: unknown;
    let referenceFailed = false;
    try {
      reference = referenceDecodeToJson(desc, bytes);
    } catch {
      referenceFailed = true;
    }
    let fast: unknown;
    try {
      fast = fastDecode(desc, bytes);
    } catch {
      return;
    }
    expect(referenceFailed, 'protobuf-es refused what the lean decoder read').toBe(false);
    expect(fast).toEqual(reference);
  }

  const writer = () => new BinaryWriter();
  const statusUpdate = () => writer().tag(1, WireType.LengthDelimited).string('t').tag(2, WireType.LengthDelimited).string('c');

  it('unknown fields of every wire type are skipped; negative int32, multi-byte bool, packed and unpacked enums', () => {
    const unknowns = writer()
      .tag(900, WireType.Varint)
      .uint64(2n ** 60n)
      .tag(901, WireType.Bit64)
      .fixed64(7n)
      .tag(902, WireType.Bit32)
      .fixed32(7)
      .tag(903, WireType.LengthDelimited)
      .bytes(Uint8Array.of(1, 2, 3))
      .finish();
    sameOrThrows(
      StreamResponse,
      Buffer.concat([unknowns, writer().tag(2, WireType.LengthDelimited).bytes(statusUpdate().finish()).finish()]),
    );
    // SendMessageConfiguration.history_length (int32) -3, return_immediately as a two-byte varint 1.
    const configuration = writer().tag(3, WireType.Varint).int32(-3).tag(4, WireType.Varint).raw(Uint8Array.of(0x81, 0x00)).finish();
    const request = writer()
      .tag(2, WireType.LengthDelimited)
      .bytes(writer().tag(1, WireType.LengthDelimited).string('m').tag(4, WireType.Varint).int32(1).finish())
      .tag(3, WireType.LengthDelimited)
      .bytes(configuration)
      .finish();
    sameOrThrows(SendMessageRequest, request);
    expect(fastDecode(SendMessageRequest, request)).toMatchObject({ configuration: { historyLength: -3, returnImmediately: true } });
  });

  it('oneof: the last member wins; a singular message twice and groups go to protobuf-es', () => {
    const task = writer().tag(1, WireType.LengthDelimited).string('t').finish();
    const lastWins = writer()
      .tag(1, WireType.LengthDelimited)
      .bytes(task)
      .tag(2, WireType.LengthDelimited)
      .bytes(writer().finish())
      .finish();
    sameOrThrows(StreamResponse, lastWins);
    expect(Object.keys(fastDecode(StreamResponse, lastWins) as object)).toEqual(['message']);
    const twice = writer().tag(1, WireType.LengthDelimited).bytes(task).tag(1, WireType.LengthDelimited).bytes(task).finish();
    expect(() => fastDecode(StreamResponse, twice)).toThrow(Unsupported);
    const group = Buffer.concat([writer().tag(950, WireType.StartGroup).tag(950, WireType.EndGroup).finish(), task]);
    expect(() => fastDecode(StreamResponse, group)).toThrow(Unsupported);
  });

  it('a Timestamp field under another wire type goes to protobuf-es (found by the mutation property below)', () => {
    // nanos (field 2) tagged fixed32 over the four bytes of its varint: protobuf-es reads the varint it
    // declares, so skipping it as an unknown field would drop the fraction.
    const nanos = writer().uint32(123456789).finish();
    expect(nanos.byteLength).toBe(4);
    const timestamp = writer().tag(1, WireType.Varint).int64(1767323045).tag(2, WireType.Bit32).raw(nanos).finish();
    const status = writer().tag(1, WireType.Varint).int32(2).tag(3, WireType.LengthDelimited).bytes(timestamp).finish();
    const event = writer()
      .tag(3, WireType.LengthDelimited)
      .bytes(statusUpdate().tag(3, WireType.LengthDelimited).bytes(status).finish())
      .finish();
    expect(() => fastDecode(StreamResponse, event)).toThrow(Unsupported);
    sameOrThrows(StreamResponse, event);
    const seconds = writer().tag(1, WireType.Bit64).fixed64(1767323045n).finish();
    const secondsEvent = writer()
      .tag(3, WireType.LengthDelimited)
      .bytes(
        statusUpdate()
          .tag(3, WireType.LengthDelimited)
          .bytes(writer().tag(1, WireType.Varint).int32(2).tag(3, WireType.LengthDelimited).bytes(seconds).finish())
          .finish(),
      )
      .finish();
    expect(() => fastDecode(StreamResponse, secondsEvent)).toThrow(Unsupported);
    sameOrThrows(StreamResponse, secondsEvent);
  });

  it('truncated, mutated and random bytes: the same result as protobuf-es, or a refusal', () => {
    const valid = Buffer.from(referenceEncodeFromJson(StreamResponse, { task }));
    for (let cut = 0; cut < valid.byteLength; cut++) sameOrThrows(StreamResponse, valid.subarray(0, cut));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: valid.byteLength - 1 }), fc.integer({ min: 0, max: 255 }), (index, byte) => {
        const mutated = Buffer.from(valid);
        mutated[index] = byte;
        sameOrThrows(StreamResponse, mutated);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        sameOrThrows(StreamResponse, bytes);
        sameOrThrows(SendMessageRequest, bytes);
      }),
      { numRuns: 500 },
    );
  });
});
