import { connect, type Socket } from 'node:net';
import type { GrpcReply, H2GrpcClient, RequestTemplate } from './grpc-h2.js';
import { encodeLiteralHeaders, HpackDecoder } from './hpack.js';

/**
 * The gRPC suite's load generator on a raw socket (decision 0051): HTTP/2 framed by hand over
 * `node:net` instead of a `node:http2` session, whose per-request stream objects, header objects and
 * async-resource bookkeeping cost more CPU per call than the bare grpc-js server it drives. Every
 * call still is what a gRPC client sends (a POST on the method path with `content-type:
 * application/grpc`, `te: trailers` and the metadata, a length-prefixed message with its own message
 * id), and every reply is read as strictly: the `:status`, each length-prefixed message, and the
 * `grpc-status` of the trailers (or of a trailers-only answer), decoded with a full HPACK decoder.
 * A stream reset, a GOAWAY that drops it, a protocol error or a closed socket fails the call
 * (status -1). Same `H2GrpcClient` interface as lib/grpc-h2.ts, so the suite can run either.
 */

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

const DATA = 0x0;
const HEADERS = 0x1;
const RST_STREAM = 0x3;
const SETTINGS = 0x4;
const PUSH_PROMISE = 0x5;
const PING = 0x6;
const GOAWAY = 0x7;
const WINDOW_UPDATE = 0x8;
const CONTINUATION = 0x9;

const END_STREAM = 0x1;
const ACK = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY = 0x20;

const SETTINGS_ENABLE_PUSH = 0x2;
const SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
const SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
const SETTINGS_MAX_FRAME_SIZE = 0x5;

const PROTOCOL_ERROR = 0x1;
const DEFAULT_WINDOW = 65_535;
const MAX_WINDOW = 2 ** 31 - 1;
/** What this side advertises per stream: a streaming reply of 100 events never waits for an update. */
const DEFAULT_RECEIVE_WINDOW = 1 << 24;
/** The connection window this side opens up front (one WINDOW_UPDATE), topped up at half. */
const CONNECTION_RECEIVE_WINDOW = 1 << 30;
/** 16 hex digits of a counter: enough for any run, and the rest of the id stays random per client. */
const COUNTER_DIGITS = 16;

export interface RawGrpcOptions {
  /** Request headers sent with every call besides the gRPC ones (gRPC metadata). */
  metadata?: Record<string, string>;
  /** SETTINGS_INITIAL_WINDOW_SIZE this side advertises (tests make it small to exercise flow control). */
  receiveWindow?: number;
}

/** A call on the wire: its reply so far and who waits for it. */
interface Call {
  /** 0 until the stream is opened. */
  id: number;
  path: string;
  /** The request DATA still to send (it waits while a flow-control window is short). */
  data: Buffer | undefined;
  sendWindow: number;
  /** Received DATA octets not yet given back with a stream WINDOW_UPDATE. */
  unacknowledged: number;
  status: number;
  /** `:status` of the response headers; gRPC answers 200 even for errors. */
  httpStatus: number;
  headersSeen: boolean;
  messages: Buffer[];
  pending: Buffer | undefined;
  malformed: boolean;
  resolve: (reply: GrpcReply) => void;
}

/**
 * Opens one plaintext HTTP/2 connection to `authority` (`host:port`) for calls carrying `template`.
 * Resolves once the server's SETTINGS arrived.
 */
export async function connectRawGrpc(authority: string, template: RequestTemplate, options: RawGrpcOptions = {}): Promise<H2GrpcClient> {
  const receiveWindow = options.receiveWindow ?? DEFAULT_RECEIVE_WINDOW;
  if (!(Number.isInteger(receiveWindow) && receiveWindow >= 1 && receiveWindow <= MAX_WINDOW))
    throw new RangeError(`expected receiveWindow to be an integer in 1..${MAX_WINDOW}, got ${receiveWindow}`);
  const message = Buffer.alloc(5 + template.message.length);
  message.writeUInt32BE(template.message.length, 1);
  message.set(template.message, 5);
  const idAt = message.indexOf(template.placeholder, 5, 'latin1') + template.placeholder.length - COUNTER_DIGITS;
  if (idAt < 5 || template.placeholder.length < COUNTER_DIGITS)
    throw new RangeError(`expected the placeholder (at least ${COUNTER_DIGITS} characters) in the encoded request`);
  const [host, port] = splitAuthority(authority);
  const extra = Object.entries(options.metadata ?? {});

  const socket: Socket = connect({ host, port, noDelay: true });
  const decoder = new HpackDecoder();
  const calls = new Map<number, Call>();
  /** Calls waiting for a free stream (SETTINGS_MAX_CONCURRENT_STREAMS), in call order. */
  const unopened: Call[] = [];
  /** Open calls whose request DATA waits for send window, in order. */
  const blocked: Call[] = [];
  let nextStreamId = 1;
  let counter = 0;
  let maxConcurrent = Number.POSITIVE_INFINITY;
  let maxFrameSize = 16_384;
  let peerInitialWindow = DEFAULT_WINDOW;
  let connectionSendWindow = DEFAULT_WINDOW;
  let connectionUnacknowledged = 0;
  /** Streams above this id were refused by the server's GOAWAY; new calls fail once it is set. */
  let goawayLastId = Number.POSITIVE_INFINITY;
  let closed = false;
  /** A header block split over HEADERS and CONTINUATION frames. */
  let continuing: { call: Call | undefined; parts: Buffer[]; endStream: boolean } | undefined;
  let input: Buffer | undefined;
  let output: Buffer[] = [];
  let flushScheduled = false;

  // Everything written within one turn of the event loop leaves in one write.
  const send = (bytes: Buffer): void => {
    output.push(bytes);
    if (!flushScheduled) {
      flushScheduled = true;
      queueMicrotask(flush);
    }
  };
  function flush(): void {
    flushScheduled = false;
    if (closed || output.length === 0) return;
    socket.write(output.length === 1 ? (output[0] as Buffer) : Buffer.concat(output));
    output = [];
  }

  const settings = (entries: Array<[number, number]>): Buffer => {
    const out = frameHeader(entries.length * 6, SETTINGS, 0, 0);
    const body = Buffer.alloc(entries.length * 6);
    entries.forEach(([id, value], i) => {
      body.writeUInt16BE(id, i * 6);
      body.writeUInt32BE(value, i * 6 + 2);
    });
    return Buffer.concat([out, body]);
  };
  const windowUpdate = (streamId: number, increment: number): Buffer => {
    const out = frameHeader(4, WINDOW_UPDATE, 0, streamId);
    return Buffer.concat([out, uint32(increment)]);
  };

  let settingsArrived: (() => void) | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    socket.once('connect', () => {
      send(
        Buffer.concat([
          PREFACE,
          settings([
            [SETTINGS_ENABLE_PUSH, 0],
            [SETTINGS_INITIAL_WINDOW_SIZE, receiveWindow],
          ]),
          windowUpdate(0, CONNECTION_RECEIVE_WINDOW - DEFAULT_WINDOW),
        ]),
      );
    });
    socket.once('error', reject);
    settingsArrived = resolve;
  });
  socket.on('error', () => undefined);
  socket.on('close', () => shutDown());
  socket.on('data', (chunk: Buffer) => {
    const data = input === undefined ? chunk : Buffer.concat([input, chunk]);
    input = undefined;
    let at = 0;
    while (!closed && data.length - at >= 9) {
      const length = data.readUIntBE(at, 3);
      if (data.length - at < 9 + length) break;
      const type = data[at + 3] as number;
      const flags = data[at + 4] as number;
      const streamId = data.readUInt32BE(at + 5) & 0x7fffffff;
      const payload = data.subarray(at + 9, at + 9 + length);
      at += 9 + length;
      onFrame(type, flags, streamId, payload);
    }
    if (at < data.length) input = data.subarray(at);
  });

  function onFrame(type: number, flags: number, streamId: number, payload: Buffer): void {
    if (continuing !== undefined && type !== CONTINUATION) {
      protocolError('expected CONTINUATION');
      return;
    }
    switch (type) {
      case DATA:
        onData(flags, streamId, payload);
        return;
      case HEADERS: {
        let body = unpad(flags, payload);
        if (body === undefined) {
          protocolError('bad padding');
          return;
        }
        if (flags & PRIORITY) body = body.subarray(5);
        onHeaderFragment(calls.get(streamId), body, flags & END_HEADERS, (flags & END_STREAM) !== 0, true);
        return;
      }
      case CONTINUATION:
        if (continuing === undefined) {
          protocolError('CONTINUATION without HEADERS');
          return;
        }
        onHeaderFragment(continuing.call, payload, flags & END_HEADERS, continuing.endStream, false);
        return;
      case RST_STREAM:
        finish(calls.get(streamId), true);
        return;
      case SETTINGS:
        if (flags & ACK) return;
        if (payload.length % 6 !== 0) {
          protocolError('SETTINGS length');
          return;
        }
        for (let i = 0; i < payload.length; i += 6) applySetting(payload.readUInt16BE(i), payload.readUInt32BE(i + 2));
        send(frameHeader(0, SETTINGS, ACK, 0));
        settingsArrived?.();
        settingsArrived = undefined;
        startWaiting();
        return;
      case PING:
        if (flags & ACK) return;
        if (payload.length !== 8) {
          protocolError('PING length');
          return;
        }
        send(Buffer.concat([frameHeader(8, PING, ACK, 0), payload]));
        return;
      case GOAWAY: {
        if (payload.length < 8) {
          protocolError('GOAWAY length');
          return;
        }
        goawayLastId = payload.readUInt32BE(0) & 0x7fffffff;
        for (const call of [...calls.values()]) if (call.id > goawayLastId) finish(call, true);
        failUnopened();
        return;
      }
      case WINDOW_UPDATE: {
        if (payload.length !== 4) {
          protocolError('WINDOW_UPDATE length');
          return;
        }
        const increment = payload.readUInt32BE(0) & 0x7fffffff;
        if (streamId === 0) connectionSendWindow += increment;
        else {
          const call = calls.get(streamId);
          if (call !== undefined) call.sendWindow += increment;
        }
        startWaiting();
        return;
      }
      case PUSH_PROMISE:
        // Disabled in this side's SETTINGS: a server that pushes breaks the protocol.
        protocolError('PUSH_PROMISE');
        return;
      default:
        // PRIORITY and unknown frame types are ignored (RFC 9113 §4.1, §5.5).
        return;
    }
  }

  function applySetting(id: number, value: number): void {
    if (id === SETTINGS_MAX_CONCURRENT_STREAMS) maxConcurrent = value;
    else if (id === SETTINGS_MAX_FRAME_SIZE) maxFrameSize = value;
    else if (id === SETTINGS_INITIAL_WINDOW_SIZE) {
      // A change applies to every open stream (RFC 9113 §6.9.2).
      for (const call of calls.values()) call.sendWindow += value - peerInitialWindow;
      peerInitialWindow = value;
    }
    // SETTINGS_HEADER_TABLE_SIZE limits the server's decoder: this side never indexes what it sends.
  }

  function onData(flags: number, streamId: number, payload: Buffer): void {
    // Flow control counts the whole frame, padding included; every octet is given back.
    connectionUnacknowledged += payload.length;
    if (connectionUnacknowledged >= CONNECTION_RECEIVE_WINDOW / 2) {
      send(windowUpdate(0, connectionUnacknowledged));
      connectionUnacknowledged = 0;
    }
    const call = calls.get(streamId);
    if (call === undefined) return;
    const body = unpad(flags, payload);
    if (body === undefined || !call.headersSeen) {
      call.malformed = true;
      finish(call, true);
      return;
    }
    const endStream = (flags & END_STREAM) !== 0;
    call.unacknowledged += payload.length;
    if (!endStream && call.unacknowledged >= receiveWindow / 2) {
      send(windowUpdate(streamId, call.unacknowledged));
      call.unacknowledged = 0;
    }
    readMessages(call, body);
    // A reply ending with DATA has no trailers, so no grpc-status: a failed call.
    if (endStream) finish(call, true);
  }

  function onHeaderFragment(call: Call | undefined, fragment: Buffer, endHeaders: number, endStream: boolean, first: boolean): void {
    if (!endHeaders) {
      if (first) continuing = { call, parts: [fragment], endStream };
      else continuing?.parts.push(fragment);
      return;
    }
    let block = fragment;
    if (!first && continuing !== undefined) block = Buffer.concat([...continuing.parts, fragment]);
    continuing = undefined;
    let fields: Array<[string, string]>;
    try {
      // Every block goes through the decoder, even for an unknown stream: it updates the dynamic table.
      fields = decoder.decode(block);
    } catch {
      protocolError('HPACK');
      return;
    }
    if (call === undefined) return;
    let grpcStatus: string | undefined;
    for (const [name, value] of fields) {
      if (name === ':status') call.httpStatus = Number(value);
      else if (name === 'grpc-status') grpcStatus = value;
    }
    if (!call.headersSeen) {
      call.headersSeen = true;
      if (call.httpStatus !== 200) call.malformed = true;
    } else if (!endStream) {
      // A second header block is the trailers, which end the stream.
      call.malformed = true;
    }
    if (grpcStatus !== undefined && /^\d+$/.test(grpcStatus)) call.status = Number(grpcStatus);
    if (endStream) finish(call, false);
  }

  function readMessages(call: Call, chunk: Buffer): void {
    let data = call.pending ? Buffer.concat([call.pending, chunk]) : chunk;
    call.pending = undefined;
    while (data.length >= 5) {
      const length = data.readUInt32BE(1);
      if (data.length < 5 + length) break;
      // Compressed messages (flag 1) are never asked for: no grpc-accept-encoding is sent.
      if (data[0] === 0) call.messages.push(data.subarray(5, 5 + length));
      else call.malformed = true;
      data = data.subarray(5 + length);
    }
    if (data.length > 0) call.pending = data;
  }

  /** Ends `call` (at most once): failed if asked, malformed, or left with a partial message. */
  function finish(call: Call | undefined, failed: boolean): void {
    if (call === undefined || !calls.delete(call.id)) return;
    const queued = blocked.indexOf(call);
    if (queued !== -1) blocked.splice(queued, 1);
    const broken = failed || call.malformed || call.pending !== undefined;
    call.resolve(broken ? FAILED() : { status: call.status, messages: call.messages });
    startWaiting();
  }

  function protocolError(_reason: string): void {
    // A connection error (RFC 9113 §5.4.1): tell the server, and fail every call.
    if (closed) return;
    send(Buffer.concat([frameHeader(8, GOAWAY, 0, 0), uint32(0), uint32(PROTOCOL_ERROR)]));
    flush();
    shutDown();
    socket.end();
  }

  function shutDown(): void {
    closed = true;
    for (const call of [...calls.values()]) finish(call, true);
    failUnopened();
  }

  /** Fails the calls still waiting for a stream (after a GOAWAY or on close). */
  function failUnopened(): void {
    for (const call of unopened.splice(0)) fail(call);
  }

  /**
   * Per path, the HEADERS frame and the DATA frame of a call in one buffer: a call copies it and
   * patches its stream id (twice) and its message id, one allocation per call.
   */
  function requestFrames(path: string): Buffer {
    let frames = requestsByPath.get(path);
    if (frames === undefined) {
      const block = encodeLiteralHeaders([
        [':method', 'POST'],
        [':scheme', 'http'],
        [':path', path],
        [':authority', authority],
        ['content-type', 'application/grpc'],
        ['te', 'trailers'],
        ...extra,
      ]);
      frames = Buffer.concat([
        frameHeader(block.length, HEADERS, END_HEADERS, 0),
        block,
        frameHeader(message.length, DATA, END_STREAM, 0),
        message,
      ]);
      requestsByPath.set(path, frames);
    }
    return frames;
  }
  const requestsByPath = new Map<string, Buffer>();

  /** Opens the stream of `call` now, or queues it until a stream is free (SETTINGS_MAX_CONCURRENT_STREAMS). */
  function open(call: Call): void {
    if (calls.size >= maxConcurrent) {
      unopened.push(call);
      return;
    }
    const template = requestFrames(call.path);
    const dataAt = template.length - message.length - 9;
    if (dataAt - 9 > maxFrameSize) {
      fail(call);
      return;
    }
    call.id = nextStreamId;
    nextStreamId += 2;
    call.sendWindow = peerInitialWindow;
    calls.set(call.id, call);
    const frames = Buffer.allocUnsafe(template.length);
    template.copy(frames);
    frames.writeUInt32BE(call.id, 5);
    counter += 1;
    frames.write(counter.toString(16).padStart(COUNTER_DIGITS, '0'), dataAt + 9 + idAt, COUNTER_DIGITS, 'latin1');
    if (message.length <= Math.min(maxFrameSize, call.sendWindow, connectionSendWindow)) {
      // The common case: the request fits the windows and one frame, both frames leave as built.
      frames.writeUInt32BE(call.id, dataAt + 5);
      call.sendWindow -= message.length;
      connectionSendWindow -= message.length;
      send(frames);
      return;
    }
    send(frames.subarray(0, dataAt));
    call.data = frames.subarray(dataAt + 9);
    sendData(call);
  }

  /** Sends what the windows allow of a request's DATA (the last frame ends the stream); false when it must wait for a WINDOW_UPDATE. */
  function sendData(call: Call): boolean {
    let data = call.data as Buffer;
    while (data.length > 0) {
      const size = Math.min(data.length, maxFrameSize, call.sendWindow, connectionSendWindow);
      if (size <= 0) {
        call.data = data;
        if (!blocked.includes(call)) blocked.push(call);
        return false;
      }
      const last = size === data.length;
      send(Buffer.concat([frameHeader(size, DATA, last ? END_STREAM : 0, call.id), data.subarray(0, size)]));
      call.sendWindow -= size;
      connectionSendWindow -= size;
      data = data.subarray(size);
    }
    call.data = undefined;
    return true;
  }

  /** Sends blocked DATA in order while the windows allow, then opens waiting calls while streams are free. */
  function startWaiting(): void {
    while (!closed && blocked.length > 0) {
      if (!sendData(blocked[0] as Call)) break;
      blocked.shift();
    }
    while (!closed && unopened.length > 0 && calls.size < maxConcurrent) open(unopened.shift() as Call);
  }

  function fail(call: Call): void {
    call.resolve(FAILED());
  }

  await ready;

  return {
    call(path) {
      return new Promise<GrpcReply>((resolve) => {
        if (closed || nextStreamId > goawayLastId || nextStreamId > MAX_WINDOW) {
          resolve(FAILED());
          return;
        }
        const call: Call = {
          id: 0,
          path,
          data: undefined,
          sendWindow: 0,
          unacknowledged: 0,
          status: -1,
          httpStatus: 0,
          headersSeen: false,
          messages: [],
          pending: undefined,
          malformed: false,
          resolve,
        };
        open(call);
      });
    },
    close() {
      if (closed) return Promise.resolve();
      send(Buffer.concat([frameHeader(8, GOAWAY, 0, 0), uint32(0), uint32(0)]));
      flush();
      return new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        // A server that already sent GOAWAY may leave its side open: the socket goes once the GOAWAY is out.
        socket.destroySoon();
      });
    },
  };
}

const FAILED = (): GrpcReply => ({ status: -1, messages: [] });

function frameHeader(length: number, type: number, flags: number, streamId: number): Buffer {
  const out = Buffer.allocUnsafe(9);
  out.writeUIntBE(length, 0, 3);
  out[3] = type;
  out[4] = flags;
  out.writeUInt32BE(streamId, 5);
  return out;
}

function uint32(value: number): Buffer {
  const out = Buffer.allocUnsafe(4);
  out.writeUInt32BE(value, 0);
  return out;
}

/** The payload of a DATA or HEADERS frame without its padding; undefined when the padding is malformed. */
function unpad(flags: number, payload: Buffer): Buffer | undefined {
  if ((flags & PADDED) === 0) return payload;
  if (payload.length === 0) return undefined;
  const padding = payload[0] as number;
  if (padding >= payload.length) return undefined;
  return payload.subarray(1, payload.length - padding);
}

function splitAuthority(authority: string): [string, number] {
  const colon = authority.lastIndexOf(':');
  const port = Number(authority.slice(colon + 1));
  if (colon <= 0 || !Number.isInteger(port) || port <= 0 || port > 65_535)
    throw new RangeError(`expected host:port, got ${JSON.stringify(authority)}`);
  return [authority.slice(0, colon), port];
}
