/** The markers around the part of docs/benchmarks.md that `pnpm bench` writes; the text outside is hand-written. */
export const BEGIN = '<!-- bench:begin (written by `pnpm bench`; edit outside these markers) -->';
export const END = '<!-- bench:end -->';

/** `doc` with the text between the markers replaced by `section`; throws when the markers are missing or out of order. */
export function replaceMarkedSection(doc: string, section: string): string {
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin === -1 || end === -1 || end < begin || doc.indexOf(BEGIN, begin + 1) !== -1 || doc.indexOf(END, end + 1) !== -1)
    throw new Error(`expected one "${BEGIN}" followed by one "${END}"`);
  return `${doc.slice(0, begin + BEGIN.length)}\n\n${section.trim()}\n\n${doc.slice(end)}`;
}
