import { describeValue } from '@a2aplane/a2a-types';
import { VectorCodecError } from './errors.js';

/**
 * Vector payload format "RVEC" v1 (all integers little-endian):
 *
 *   header  16 bytes: magic "RVEC" | u16 format version (1) | u16 flags (0) | u32 dim | u32 reserved (0)
 *   block   u32 rows (1..MAX_BLOCK_ROWS) followed by rows * dim float32 values
 *   end     u32 0 followed by u64 total row count
 *
 * Blocks let the writer stream without knowing the count up front; the end marker and the total
 * make truncation detectable even when the bytes stop exactly on a row boundary.
 */
export const VECTOR_FORMAT_MAGIC = 'RVEC';
export const VECTOR_FORMAT_VERSION = 1;
export const VECTOR_HEADER_BYTES = 16;
export const MAX_VECTOR_DIM = 65_536;
export const MAX_BLOCK_ROWS = 65_536;
const TARGET_BLOCK_BYTES = 256 * 1024;
const MAGIC_BYTES = [0x52, 0x56, 0x45, 0x43];

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function assertDim(dim: unknown): asserts dim is number {
  if (typeof dim !== 'number' || !Number.isInteger(dim)) throw new TypeError(`expected dim to be an integer, got ${describeValue(dim)}`);
  if (dim < 1 || dim > MAX_VECTOR_DIM) throw new RangeError(`expected 1 <= dim <= ${MAX_VECTOR_DIM}, got ${dim}`);
}

function header(dim: number): Uint8Array {
  const bytes = new Uint8Array(VECTOR_HEADER_BYTES);
  bytes.set(MAGIC_BYTES, 0);
  const view = new DataView(bytes.buffer);
  view.setUint16(4, VECTOR_FORMAT_VERSION, true);
  view.setUint16(6, 0, true);
  view.setUint32(8, dim, true);
  view.setUint32(12, 0, true);
  return bytes;
}

function writeRow(target: Uint8Array, offset: number, row: Float32Array): void {
  if (LITTLE_ENDIAN) {
    target.set(new Uint8Array(row.buffer, row.byteOffset, row.byteLength), offset);
    return;
  }
  const view = new DataView(target.buffer, target.byteOffset);
  for (let i = 0; i < row.length; i++) view.setFloat32(offset + i * 4, row[i]!, true);
}

/** Encode vectors of `dim` float32 values as an RVEC byte stream, one block of rows per chunk. */
export function encodeVectors(vectors: AsyncIterable<Float32Array> | Iterable<Float32Array>, dim: number): AsyncGenerator<Uint8Array> {
  return encodeCountingVectors(vectors, dim, { count: 0 });
}

/** {@link encodeVectors}, also reporting in `progress.count` how many vectors went out so far. */
export async function* encodeCountingVectors(
  vectors: AsyncIterable<Float32Array> | Iterable<Float32Array>,
  dim: number,
  progress: { count: number },
): AsyncGenerator<Uint8Array> {
  assertDim(dim);
  const rowBytes = dim * 4;
  const blockRows = Math.max(1, Math.min(MAX_BLOCK_ROWS, Math.floor(TARGET_BLOCK_BYTES / rowBytes)));
  yield header(dim);
  let block = new Uint8Array(4 + blockRows * rowBytes);
  let rows = 0;
  let total = 0;
  const flush = (): Uint8Array => {
    new DataView(block.buffer).setUint32(0, rows, true);
    const out = rows === blockRows ? block : block.slice(0, 4 + rows * rowBytes);
    block = new Uint8Array(4 + blockRows * rowBytes);
    rows = 0;
    return out;
  };
  for await (const vector of vectors) {
    if (!(vector instanceof Float32Array)) throw new TypeError(`expected each vector to be a Float32Array, got ${describeValue(vector)}`);
    if (vector.length !== dim) throw new RangeError(`expected each vector to have ${dim} values, got ${vector.length}`);
    writeRow(block, 4 + rows * rowBytes, vector);
    rows++;
    total++;
    progress.count = total;
    if (rows === blockRows) yield flush();
  }
  if (rows > 0) yield flush();
  const end = new Uint8Array(12);
  const view = new DataView(end.buffer);
  view.setUint32(0, 0, true);
  view.setUint32(4, total % 2 ** 32, true);
  view.setUint32(8, Math.floor(total / 2 ** 32), true);
  yield end;
}

/** Bytes waiting to be parsed, kept as the chunks they arrived in. */
class ByteQueue {
  private chunks: Uint8Array[] = [];
  private first = 0; // index of the first unread chunk; avoids O(n) shift() per chunk
  private head = 0; // read offset inside that chunk
  available = 0;

  push(chunk: Uint8Array): void {
    if (chunk.byteLength === 0) return;
    this.chunks.push(chunk);
    this.available += chunk.byteLength;
  }

  read(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      const chunk = this.chunks[this.first]!;
      const take = Math.min(n - filled, chunk.byteLength - this.head);
      out.set(chunk.subarray(this.head, this.head + take), filled);
      filled += take;
      this.head += take;
      if (this.head === chunk.byteLength) {
        this.first++;
        this.head = 0;
      }
    }
    if (this.first > 1024 || this.first === this.chunks.length) {
      this.chunks = this.chunks.slice(this.first);
      this.first = 0;
    }
    this.available -= n;
    return out;
  }
}

function readRow(bytes: Uint8Array, dim: number): Float32Array {
  if (LITTLE_ENDIAN) return new Float32Array(bytes.buffer, bytes.byteOffset, dim);
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  const row = new Float32Array(dim);
  for (let i = 0; i < dim; i++) row[i] = view.getFloat32(i * 4, true);
  return row;
}

/** Decode an RVEC byte stream. Malformed or truncated input throws a VectorCodecError while iterating. */
export async function* decodeVectors(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<Float32Array> {
  const iterator = (Symbol.asyncIterator in chunks ? chunks[Symbol.asyncIterator]() : chunks[Symbol.iterator]()) as
    | AsyncIterator<Uint8Array>
    | Iterator<Uint8Array>;
  const queue = new ByteQueue();
  let done = false;
  // Pull chunks until `n` bytes are buffered; false when the input ended first.
  const fill = async (n: number): Promise<boolean> => {
    while (queue.available < n && !done) {
      const next = await iterator.next();
      if (next.done) {
        done = true;
        break;
      }
      if (!(next.value instanceof Uint8Array))
        throw new TypeError(`expected every chunk to be a Uint8Array, got ${describeValue(next.value)}`);
      queue.push(next.value);
    }
    return queue.available >= n;
  };

  try {
    if (!(await fill(VECTOR_HEADER_BYTES))) throw new VectorCodecError('truncated', 'input ended inside the RVEC header');
    const head = queue.read(VECTOR_HEADER_BYTES);
    if (!MAGIC_BYTES.every((byte, i) => head[i] === byte)) throw new VectorCodecError('bad-magic', 'input is not an RVEC vector payload');
    const headView = new DataView(head.buffer);
    const version = headView.getUint16(4, true);
    if (version !== VECTOR_FORMAT_VERSION) throw new VectorCodecError('unsupported-version', `unsupported RVEC version ${version}`);
    const dim = headView.getUint32(8, true);
    if (headView.getUint16(6, true) !== 0 || headView.getUint32(12, true) !== 0 || dim < 1 || dim > MAX_VECTOR_DIM) {
      throw new VectorCodecError('bad-header', `malformed RVEC header (dim ${dim})`);
    }
    const rowBytes = dim * 4;
    let total = 0;
    for (;;) {
      if (!(await fill(4))) throw new VectorCodecError('truncated', `input ended after ${total} vectors without an end marker`);
      const rows = new DataView(queue.read(4).buffer).getUint32(0, true);
      if (rows === 0) break;
      if (rows > MAX_BLOCK_ROWS) throw new VectorCodecError('bad-block', `block of ${rows} rows exceeds ${MAX_BLOCK_ROWS}`);
      for (let i = 0; i < rows; i++) {
        if (!(await fill(rowBytes))) throw new VectorCodecError('truncated', `input ended inside vector ${total}`);
        yield readRow(queue.read(rowBytes), dim);
        total++;
      }
    }
    if (!(await fill(8))) throw new VectorCodecError('truncated', 'input ended inside the RVEC end marker');
    const endView = new DataView(queue.read(8).buffer);
    const declared = endView.getUint32(0, true) + endView.getUint32(4, true) * 2 ** 32;
    if (declared !== total) throw new VectorCodecError('count-mismatch', `end marker declares ${declared} vectors, read ${total}`);
    if (await fill(1)) throw new VectorCodecError('trailing-bytes', 'bytes follow the RVEC end marker');
  } finally {
    // Release the source (e.g. a file handle) when the consumer stops early.
    if (!done) await iterator.return?.();
  }
}
