import {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  connect,
  constants,
  type IncomingHttpHeaders,
  type IncomingHttpStatusHeader,
  type OutgoingHttpHeaders,
} from 'node:http2';

/**
 * The gRPC suite's load generator: gRPC over a bare `node:http2` session instead of a grpc-js
 * channel. grpc-js's client (metadata objects, filter stack, call state machine, retry and
 * load-balancing layers) costs about as much CPU per call as a bare grpc-js server answering a
 * fixed message, so on a 2-core machine it, not the server under test, set the pace. This client
 * still speaks gRPC as every server sees it: a POST on the method path with `content-type:
 * application/grpc` and `te: trailers`, a length-prefixed request message (pre-encoded, only its
 * message id patched per call, so no server answers a repeat), and it reads every reply: the
 * length-prefixed messages and the `grpc-status` trailer (or trailers-only answer).
 */

const { HTTP2_HEADER_METHOD, HTTP2_HEADER_PATH, HTTP2_HEADER_CONTENT_TYPE, HTTP2_HEADER_TE, HTTP2_HEADER_AUTHORITY } = constants;

/** A request message whose `placeholder` (ASCII, present exactly once) is replaced per call by a unique id of the same length. */
export interface RequestTemplate {
  /** The encoded request message (protobuf bytes, without the 5-byte gRPC prefix). */
  message: Uint8Array;
  /** Text inside `message` replaced per call, e.g. a message id made for the template. */
  placeholder: string;
}

/** One finished call: the response messages (without their prefixes) and its grpc-status. */
export interface GrpcReply {
  status: number;
  messages: Buffer[];
}

export interface H2GrpcClient {
  /** One call of `path`: resolves with what the server answered (never rejects; a broken stream is status -1). */
  call(path: string): Promise<GrpcReply>;
  close(): Promise<void>;
}

/** 16 hex digits of a counter: enough for any run, and the rest of the id stays random per client. */
const COUNTER_DIGITS = 16;

/**
 * Opens one HTTP/2 session to `authority` (`host:port`, plaintext) for calls carrying `template`
 * and `metadata` (request headers). Windows are large so flow-control updates do not add frames to
 * a small-message run.
 */
export async function connectH2Grpc(
  authority: string,
  template: RequestTemplate,
  metadata: Record<string, string> = {},
): Promise<H2GrpcClient> {
  const frame = framed(template);
  const idAt = frame.indexOf(template.placeholder, 5, 'latin1') + template.placeholder.length - COUNTER_DIGITS;
  if (idAt < 5 || template.placeholder.length < COUNTER_DIGITS)
    throw new RangeError(`expected the placeholder (at least ${COUNTER_DIGITS} characters) in the encoded request`);
  let counter = 0;
  const session: ClientHttp2Session = connect(`http://${authority}`, {
    settings: { initialWindowSize: 1 << 24, enablePush: false },
  });
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('error', reject);
  });
  session.setLocalWindowSize(1 << 26);
  session.on('error', () => undefined);

  function nextFrame(): Buffer {
    const out = Buffer.allocUnsafe(frame.length);
    frame.copy(out);
    counter += 1;
    out.write(counter.toString(16).padStart(COUNTER_DIGITS, '0'), idAt, COUNTER_DIGITS, 'latin1');
    return out;
  }

  // node:http2 copies the headers it is given, so one object per path serves every call.
  const headersByPath = new Map<string, OutgoingHttpHeaders>();
  const headersOf = (path: string): OutgoingHttpHeaders => {
    let headers = headersByPath.get(path);
    if (headers === undefined) {
      headers = {
        [HTTP2_HEADER_METHOD]: 'POST',
        [HTTP2_HEADER_PATH]: path,
        [HTTP2_HEADER_AUTHORITY]: authority,
        [HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
        [HTTP2_HEADER_TE]: 'trailers',
        ...metadata,
      };
      headersByPath.set(path, headers);
    }
    return headers;
  };
  const REQUEST_OPTIONS = { endStream: false } as const;

  function call(path: string): Promise<GrpcReply> {
    return new Promise((resolve) => {
      let stream: ClientHttp2Stream;
      try {
        stream = session.request(headersOf(path), REQUEST_OPTIONS);
      } catch {
        // The session is gone (the server closed it): a failed call, as a grpc-js client reports one.
        resolve({ status: -1, messages: [] });
        return;
      }
      const messages: Buffer[] = [];
      let pending: Buffer | undefined;
      let status = -1;
      const statusOf = (headers: IncomingHttpHeaders & IncomingHttpStatusHeader): void => {
        const value = headers['grpc-status'];
        if (typeof value === 'string') status = Number(value);
      };
      // A trailers-only answer (an error at once) carries grpc-status in its headers.
      stream.on('response', statusOf);
      stream.on('trailers', statusOf);
      stream.on('data', (chunk: Buffer) => {
        let data = pending ? Buffer.concat([pending, chunk]) : chunk;
        pending = undefined;
        while (data.length >= 5) {
          const length = data.readUInt32BE(1);
          if (data.length < 5 + length) break;
          // Compressed messages (flag 1) are never asked for: no grpc-accept-encoding is sent.
          messages.push(data[0] === 0 ? data.subarray(5, 5 + length) : Buffer.alloc(0));
          data = data.subarray(5 + length);
        }
        if (data.length > 0) pending = data;
      });
      stream.on('close', () => resolve({ status: pending ? -1 : status, messages }));
      stream.on('error', () => undefined);
      stream.end(nextFrame());
    });
  }

  return {
    call,
    close: () =>
      new Promise<void>((resolve) => {
        if (session.closed) return resolve();
        session.close(() => resolve());
      }),
  };
}

function framed(template: RequestTemplate): Buffer {
  const out = Buffer.alloc(5 + template.message.length);
  out[0] = 0;
  out.writeUInt32BE(template.message.length, 1);
  out.set(template.message, 5);
  return out;
}
