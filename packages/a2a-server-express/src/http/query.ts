export const EMPTY_QUERY = '';

/** The query of a request URL, parsed on first use (most JSON-RPC requests have none). */
export class LazyQuery {
  private parsed: URLSearchParams | undefined;

  constructor(private readonly search: string) {}

  get params(): URLSearchParams {
    this.parsed ??= new URLSearchParams(this.search);
    return this.parsed;
  }

  get(name: string): string | undefined {
    if (this.search === EMPTY_QUERY) return undefined;
    return this.params.get(name) ?? undefined;
  }
}
