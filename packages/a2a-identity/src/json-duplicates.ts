/**
 * The first member name that appears twice in one object of `text`, or `undefined`.
 * `text` must already be valid JSON (run `JSON.parse` first). RFC 8785 requires I-JSON (RFC 7493,
 * no duplicate names): with duplicates, `JSON.parse` keeps the last value while other parsers keep
 * the first, so a verified card could mean different things to different readers.
 */
export function findDuplicateKey(text: string): string | undefined {
  // One entry per open container: a Set of names for objects, null for arrays.
  const stack: Array<{ names: Set<string>; expectName: boolean } | null> = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x7b /* { */) stack.push({ names: new Set(), expectName: true });
    else if (ch === 0x5b /* [ */) stack.push(null);
    else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) stack.pop();
    else if (ch === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top) top.expectName = true;
    } else if (ch === 0x22 /* " */) {
      const start = i;
      for (i++; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 0x5c /* \ */) i++;
        else if (c === 0x22) break;
      }
      const top = stack[stack.length - 1];
      if (top?.expectName) {
        const raw = text.slice(start, i + 1);
        // Decode escapes so that "a" and "\u0061" count as the same name.
        const name = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        if (top.names.has(name)) return name;
        top.names.add(name);
        top.expectName = false;
      }
    }
  }
  return undefined;
}
