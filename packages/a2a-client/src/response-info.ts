import { A2A_EXTENSIONS_HEADER, splitExtensionList } from '@a2aplane/a2a-types';

/** What the agent said about a call besides its result (`CallOptions.onResponse`). */
export interface ResponseInfo {
  /**
   * The extensions the agent activated for this call, as it echoed them (spec §3.2: the
   * `A2A-Extensions` response header; gRPC: the `a2a-extensions` response metadata). Empty when it
   * named none, which an agent that does not echo also sends.
   */
  readonly activatedExtensions: readonly string[];
}

const EXTENSIONS = A2A_EXTENSIONS_HEADER.toLowerCase();
// v0.3 agents echo under the header's old name.
const LEGACY_EXTENSIONS = `x-${EXTENSIONS}`;

/** The `ResponseInfo` of an HTTP response's headers. */
export function responseInfoOf(headers: Headers): ResponseInfo {
  return { activatedExtensions: splitExtensionList(headers.get(EXTENSIONS) ?? headers.get(LEGACY_EXTENSIONS)) };
}
