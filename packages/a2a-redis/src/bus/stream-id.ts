/** A Redis stream id `<ms>-<seq>`, as used for SSE `id:` and `Last-Event-ID`. */
const STREAM_ID = /^(\d{1,16})-(\d{1,16})$/;

/** True for a well-formed stream id (both halves safe integers); anything else is not an id this bus issued. */
export function isStreamId(value: string): boolean {
  const m = STREAM_ID.exec(value);
  return m !== null && Number.isSafeInteger(Number(m[1])) && Number.isSafeInteger(Number(m[2]));
}

/** Orders two well-formed stream ids: negative when `a` comes first. */
export function compareStreamIds(a: string, b: string): number {
  const [am, as] = a.split('-');
  const [bm, bs] = b.split('-');
  return Number(am) - Number(bm) || Number(as) - Number(bs);
}

/** The id before every id: a cursor that reads a stream from its start. */
export const STREAM_START = '0-0';
