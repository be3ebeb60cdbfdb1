import { connect, type Socket } from 'node:net';

/**
 * A lean HTTP/1.1 keep-alive load generator on node:net (decision 0036): N connections, one
 * request in flight on each, requests serialized ahead (or patched from a template), replies
 * parsed just enough (status line, Content-Length or chunked) and every body checked. It spends
 * a fraction of autocannon's CPU per request, so on its own core it is not what limits a server.
 */

export interface HttpLoadOptions {
  /** `http://host:port`; the request buffers carry their own path and Host header. */
  url: string;
  /** The next request, whole on the wire (see `serializeRequest`). */
  next: () => Buffer;
  /** Checks a 2xx reply's body; a false is a mismatch. */
  verify: (body: string) => boolean;
  seconds: number;
  connections: number;
  /** A request unanswered this long counts as a timeout and its socket is replaced. */
  timeoutMs?: number;
}

export interface HttpLoadResult {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** 2xx replies whose body passed `verify`. */
  total2xx: number;
  /** Sockets that failed or closed with a request in flight, and failed connects. */
  errors: number;
  timeouts: number;
  non2xx: number;
  /** 2xx replies whose body failed `verify`. */
  mismatches: number;
  valid: boolean;
  /** Measured wall-clock seconds. */
  seconds: number;
}

/** One request on the wire: POST with the JSON body and extra headers, keep-alive. */
export function serializeRequest(url: string, body: string, headers: Record<string, string> = {}): Buffer {
  const target = new URL(url);
  const bytes = Buffer.from(body, 'utf8');
  let head = `POST ${target.pathname}${target.search} HTTP/1.1\r\nhost: ${target.host}\r\ncontent-length: ${bytes.length}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  return Buffer.concat([Buffer.from(`${head}\r\n`, 'latin1'), bytes]);
}

/**
 * Requests from one template whose body holds `marker` (a run of '0's): each call writes the next
 * counter, zero-padded to the marker's width, in its place, so every request has its own id at the
 * cost of a 300-byte copy.
 */
export function templateRequests(url: string, bodyWith: (marker: string) => string, headers: Record<string, string> = {}): () => Buffer {
  const marker = '0'.repeat(16);
  const template = serializeRequest(url, bodyWith(marker), headers);
  const at = template.lastIndexOf(marker);
  if (at === -1) throw new RangeError('the body does not contain the marker');
  let counter = 0;
  return () => {
    const request = Buffer.allocUnsafe(template.length);
    template.copy(request);
    const digits = String(++counter);
    request.write(digits, at + marker.length - digits.length, 'latin1');
    return request;
  };
}

// Latency histogram: 10 µs buckets up to 1 s, then one overflow bucket holding exact values.
const BUCKET_US = 10;
const BUCKETS = 100_000;

class Histogram {
  private readonly counts = new Uint32Array(BUCKETS);
  private readonly overflow: number[] = [];
  private total = 0;
  record(ms: number): void {
    const bucket = Math.floor((ms * 1000) / BUCKET_US);
    if (bucket < BUCKETS) this.counts[bucket]! += 1;
    else this.overflow.push(ms);
    this.total++;
  }
  percentile(p: number): number {
    if (this.total === 0) return Number.NaN;
    const rank = Math.ceil((p / 100) * this.total);
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return ((i + 1) * BUCKET_US) / 1000;
    }
    const sorted = this.overflow.sort((a, b) => a - b);
    return sorted[rank - seen - 1] ?? sorted.at(-1) ?? Number.NaN;
  }
}

const CRLFCRLF = Buffer.from('\r\n\r\n', 'latin1');

/** A reply parsed off the front of `data`, or undefined until it is complete. */
interface Reply {
  status: number;
  body: Buffer;
  /** Bytes of `data` it used. */
  length: number;
  close: boolean;
}

/** Parses one HTTP/1.1 reply (Content-Length or chunked). Throws on what it cannot frame. */
export function parseReply(data: Buffer): Reply | undefined {
  const headEnd = data.indexOf(CRLFCRLF);
  if (headEnd === -1) return undefined;
  const head = data.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  if (!head.startsWith('HTTP/1.') || !(status >= 100 && status < 600)) throw new Error(`bad status line: ${head.slice(0, 40)}`);
  let contentLength = -1;
  let chunked = false;
  let close = false;
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line
      .slice(colon + 1)
      .trim()
      .toLowerCase();
    if (name === 'content-length') contentLength = Number(value);
    else if (name === 'transfer-encoding') chunked = value.includes('chunked');
    else if (name === 'connection') close = value === 'close';
  }
  const start = headEnd + 4;
  if (chunked) {
    const parts: Buffer[] = [];
    let at = start;
    for (;;) {
      const lineEnd = data.indexOf('\r\n', at, 'latin1');
      if (lineEnd === -1) return undefined;
      const size = Number.parseInt(data.toString('latin1', at, lineEnd), 16);
      if (Number.isNaN(size)) throw new Error('bad chunk size');
      if (size === 0) {
        // No trailers expected: the terminating chunk is followed by one CRLF.
        if (data.length < lineEnd + 4) return undefined;
        return { status, body: Buffer.concat(parts), length: lineEnd + 4, close };
      }
      if (data.length < lineEnd + 2 + size + 2) return undefined;
      parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  // No length and not chunked: a bodiless reply (204, 304) or one framed by close, which we do not expect.
  const length = contentLength === -1 ? 0 : contentLength;
  if (data.length < start + length) return undefined;
  return { status, body: data.subarray(start, start + length), length: start + length, close };
}

/** Runs the load for `seconds` and counts every reply; requests in flight at the end are not counted. */
export function httpLoad(options: HttpLoadOptions): Promise<HttpLoadResult> {
  const { hostname, port } = new URL(options.url);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const histogram = new Histogram();
  let total2xx = 0;
  let non2xx = 0;
  let mismatches = 0;
  let errors = 0;
  let timeouts = 0;
  let running = true;
  const sockets = new Set<Socket>();
  const started = performance.now();

  const open = (): void => {
    if (!running) return;
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port), noDelay: true });
    sockets.add(socket);
    let pending: Buffer | undefined;
    let sentAt = 0;
    let inFlight = false;
    let done = false;
    const send = (): void => {
      if (!running) return;
      sentAt = performance.now();
      inFlight = true;
      socket.write(options.next());
    };
    // The socket is finished: count a request it left unanswered as an error, and open another.
    const finish = (counted: 'error' | 'timeout' | 'none'): void => {
      if (done) return;
      done = true;
      sockets.delete(socket);
      socket.destroy();
      if (!running) return;
      if (counted === 'timeout') timeouts++;
      else if (counted === 'error' || inFlight) errors++;
      // A short pause, so a server that refuses connections is not hammered in a tight loop.
      setTimeout(open, counted === 'none' && !inFlight ? 0 : 10);
    };
    socket.on('connect', send);
    socket.on('data', (chunk: Buffer) => {
      let data = pending === undefined ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        let reply: Reply | undefined;
        try {
          reply = parseReply(data);
        } catch {
          finish('error');
          return;
        }
        if (reply === undefined) break;
        if (running && inFlight) {
          inFlight = false;
          histogram.record(performance.now() - sentAt);
          if (reply.status < 200 || reply.status > 299) non2xx++;
          else if (options.verify(reply.body.toString('utf8'))) total2xx++;
          else mismatches++;
        }
        data = data.subarray(reply.length);
        if (reply.close) {
          finish('none');
          return;
        }
        send();
      }
      pending = data.length > 0 ? data : undefined;
    });
    socket.on('error', () => finish('error'));
    socket.on('close', () => finish('none'));
    socket.setTimeout(timeoutMs, () => finish(inFlight ? 'timeout' : 'none'));
  };

  for (let i = 0; i < options.connections; i++) open();
  return new Promise((resolve) => {
    setTimeout(() => {
      running = false;
      const seconds = (performance.now() - started) / 1000;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      resolve({
        requestsPerSecond: total2xx / seconds,
        latencyP50Ms: histogram.percentile(50),
        latencyP99Ms: histogram.percentile(99),
        total2xx,
        errors,
        timeouts,
        non2xx,
        mismatches,
        valid: mismatches === 0 && non2xx === 0 && errors === 0 && timeouts === 0 && total2xx > 0,
        seconds,
      });
    }, options.seconds * 1000);
  });
}
