/** Reads an SSE response body and returns the `data` of every event (a minimal parser for the bench). */
export async function readSseData(body: ReadableStream<Uint8Array>): Promise<string[]> {
  const decoder = new TextDecoder();
  const events: string[] = [];
  let buffer = '';
  const flush = (block: string): void => {
    let data: string | undefined;
    for (const line of block.split('\n')) {
      if (line.startsWith('data:')) {
        const value = line.slice(line[5] === ' ' ? 6 : 5);
        data = data === undefined ? value : `${data}\n${value}`;
      }
    }
    if (data !== undefined) events.push(data);
  };
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true }).replaceAll('\r\n', '\n');
    let index = buffer.indexOf('\n\n');
    while (index !== -1) {
      flush(buffer.slice(0, index));
      buffer = buffer.slice(index + 2);
      index = buffer.indexOf('\n\n');
    }
  }
  if (buffer.trim() !== '') flush(buffer);
  return events;
}
