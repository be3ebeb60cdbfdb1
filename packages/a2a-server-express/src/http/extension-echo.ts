import { A2A_EXTENSIONS_HEADER } from '@a2aplane/a2a-types';
import { activatedExtensions } from '../core/extension-activation.js';

/**
 * The `A2A-Extensions` response header echoing the extensions the executor activated for
 * `request` (spec §3.2), added to `headers`; `headers` as given when none were. A stream's head
 * is written when the stream starts: it carries what was activated by then.
 */
export function withActivatedExtensions(request: object, headers: Record<string, string> | undefined): Record<string, string> | undefined {
  const activated = activatedExtensions(request);
  if (activated.length === 0) return headers;
  return { ...headers, [A2A_EXTENSIONS_HEADER]: activated.join(', ') };
}
