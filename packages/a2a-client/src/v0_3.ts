import type { V03Support } from './v0_3-loader.js';

/**
 * v0.3 support for `createA2AClient` and `CardResolver`: pass it as the `v0_3` option to speak v0.3
 * JSON-RPC (`protocolVersion: '0.3'`) and to read legacy cards with the strict a2a-types translator.
 * The translators load on first use through a dynamic `import()`, so bundlers that split chunks
 * fetch them only when a v0.3 peer is met.
 */
export const v0_3: V03Support = {
  load: () => import('@a2aplane/a2a-types/v0_3'),
};

// The lenient v0.3 card normalizer (discovery applies it to legacy cards).
export { normalizeLegacyCard } from './legacy-card.js';
export type { V03Support, V03Translators } from './v0_3-loader.js';
