import { describeValue } from '@a2aplane/a2a-types';

/** Schema version of every ArtifactKind this package writes (ADR-159 r3). */
export const ARTIFACT_KIND_VERSION = '1';
/** Versions this package can read. */
export const SUPPORTED_ARTIFACT_KIND_VERSIONS = ['1'] as const;

// ADR-159 spells the version both "1" and "v1"; both mean the same number.
function versionNumber(version: unknown): number | undefined {
  if (typeof version !== 'string') return undefined;
  const match = /^v?([1-9][0-9]{0,8})$/.exec(version);
  return match ? Number(match[1]) : undefined;
}

function assertVersionList(value: unknown, what: string): asserts value is readonly string[] {
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string')) {
    throw new TypeError(`expected ${what} to be an array of strings, got ${describeValue(value)}`);
  }
}

/** Whether two version strings name the same version ("1" and "v1" do). */
export function sameArtifactKindVersion(a: string, b: string): boolean {
  const left = versionNumber(a);
  return left !== undefined && left === versionNumber(b);
}

/**
 * The highest version both sides support, as spelled in `local`, or `undefined` when they share
 * none. Peers advertise their lists in `artifact_kind_versions_supported` on the card.
 */
export function negotiateArtifactKindVersion(local: readonly string[], remote: readonly string[]): string | undefined {
  assertVersionList(local, 'local');
  assertVersionList(remote, 'remote');
  const remoteNumbers = new Set(remote.map(versionNumber).filter((n): n is number => n !== undefined));
  let best: { version: string; n: number } | undefined;
  for (const version of local) {
    const n = versionNumber(version);
    if (n === undefined || !remoteNumbers.has(n)) continue;
    if (!best || n > best.n) best = { version, n };
  }
  return best?.version;
}

export type ArtifactVersionCheck = { ok: true } | { ok: false; reason: 'higher-than-supported' | 'lower-not-accepted' | 'unknown' };

/**
 * Whether an artifact written at `received` may be read by a peer supporting `supported`.
 * Receivers refuse to down-version unless they opt in with `acceptLowerVersionArtifacts`
 * (ADR-159 r3); a version above every supported one is never readable.
 */
export function checkArtifactVersion(
  received: string,
  supported: readonly string[],
  options: { acceptLowerVersionArtifacts?: boolean } = {},
): ArtifactVersionCheck {
  assertVersionList(supported, 'supported');
  const n = versionNumber(received);
  const numbers = supported.map(versionNumber).filter((v): v is number => v !== undefined);
  if (n === undefined || numbers.length === 0) return { ok: false, reason: 'unknown' };
  if (numbers.includes(n)) return { ok: true };
  if (n > Math.max(...numbers)) return { ok: false, reason: 'higher-than-supported' };
  return options.acceptLowerVersionArtifacts ? { ok: true } : { ok: false, reason: 'lower-not-accepted' };
}
