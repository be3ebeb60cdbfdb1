/**
 * The a2aplane request-signature profile exactly as `createHttpRequestSigner` writes it, checked by
 * one capture-free regular expression and read at the places its form fixes, and its signature base
 * written straight into bytes (decision 0049).
 * Every signed request of an a2aplane caller is read here; a field in any other form (whitespace,
 * other parameters or order, several members, escapes, leading zeros) is not, and goes to the
 * general structured-field parser, which gives the same fields and base for the same signature.
 */

/** Label, components and parameters of the profile, in the order the signer writes them. */
const HEAD = 'a2a=("@method" "@authority" "@path" "@query"';
const DIGEST_COMPONENT = ' "content-digest"';
const CREATED = ');created=';
const EXPIRES = ';expires=';
const NONCE = ';nonce="';
const ALG = '";alg="';
/** Where the inner list starts: after the label and `=`. */
const INNER_LIST_START = 'a2a='.length;
const AGENT_ID_LENGTH = 64;

/** The signature parameters of a profile `Signature-Input`. */
interface ProfileInput {
  /** Whether `content-digest` is covered (after the four target components). */
  withDigest: boolean;
  created: number;
  expires: number;
  /** Base64url, 16 to 128 characters. */
  nonce: string;
  alg: 'ed25519' | 'hmac-sha256';
  /** 64 lower-case hex digits. */
  keyid: string;
}

/**
 * The whole form, checked by one regular expression without captures (native code: a loop over
 * char codes in JavaScript costs several times more per character); the fields are then found at
 * the places the form puts them.
 */
const PROFILE_FORM =
  /^a2a=\("@method" "@authority" "@path" "@query"(?: "content-digest")?\);created=(?:0|[1-9][0-9]{0,14});expires=(?:0|[1-9][0-9]{0,14});nonce="[A-Za-z0-9_-]{16,128}";alg="(?:ed25519|hmac-sha256)";keyid="[0-9a-f]{64}"$/;

// Where the last readInteger stopped (no object per call).
let end = 0;

/** The decimal integer at `at`, which the form says is there (at most 15 digits: exact in a double). */
function readInteger(text: string, at: number): number {
  let value = 0;
  let i = at;
  for (let code = text.charCodeAt(i); code >= 48 && code <= 57; code = text.charCodeAt(++i)) value = value * 10 + (code - 48);
  end = i;
  return value;
}

/**
 * The parameters of a `Signature-Input` in the profile's exact form:
 * `a2a=("@method" "@authority" "@path" "@query"[ "content-digest"]);created=<int>;expires=<int>;nonce="<b64url>";alg="<ed25519|hmac-sha256>";keyid="<AgentID>"`,
 * or `undefined` for any other text. Such a field is ASCII and is its own serialization (the
 * base's `@signature-params` is the field without its label).
 */
export function readProfileInput(input: string): ProfileInput | undefined {
  if (!PROFILE_FORM.test(input)) return undefined;
  const withDigest = input.charCodeAt(HEAD.length) === 32; /* the space before "content-digest" */
  const created = readInteger(input, HEAD.length + (withDigest ? DIGEST_COMPONENT.length : 0) + CREATED.length);
  const expires = readInteger(input, end + EXPIRES.length);
  const nonceStart = end + NONCE.length;
  const nonceEnd = input.indexOf('"', nonceStart);
  const keyidStart = input.length - AGENT_ID_LENGTH - 1;
  return {
    withDigest,
    created,
    expires,
    nonce: input.slice(nonceStart, nonceEnd),
    alg: input.charCodeAt(nonceEnd + ALG.length) === 104 /* h */ ? 'hmac-sha256' : 'ed25519',
    keyid: input.slice(keyidStart, keyidStart + AGENT_ID_LENGTH),
  };
}

const utf8 = new TextEncoder();
const DIGEST_LINE = utf8.encode('"content-digest": ');
const PARAMS_LINE = utf8.encode('\n"@signature-params": ');

/** The signature base of the four target components, as bytes: the same for every request to one target. */
export function profileTargetLines(method: string, authority: string, path: string, query: string): Uint8Array {
  return utf8.encode(`"@method": ${method}\n"@authority": ${authority}\n"@path": ${path}\n"@query": ${query}\n`);
}

// The base is written into one buffer reused from call to call, and copied out before the call
// returns: the buffer never leaves profileBase, which is synchronous, so verifications that
// interleave (one waiting on WebCrypto or a shared replay cache) never see each other's bytes.
let buffer: Uint8Array = new Uint8Array(2048);

/**
 * The signature base of a profile signature as UTF-8 bytes of their own: `targetLines` (from
 * {@link profileTargetLines}), the `content-digest` line when covered, and `@signature-params`,
 * which is `input` without its label.
 */
export function profileBase(targetLines: Uint8Array, digest: string | undefined, input: string): Uint8Array {
  const room = targetLines.length + DIGEST_LINE.length + (digest === undefined ? 0 : digest.length * 3) + PARAMS_LINE.length + input.length;
  if (room > buffer.length) buffer = new Uint8Array(room * 2);
  buffer.set(targetLines, 0);
  let at = targetLines.length;
  if (digest === undefined) {
    // The target lines end with a newline, which the parameters line starts with.
    at--;
  } else {
    buffer.set(DIGEST_LINE, at);
    at += DIGEST_LINE.length;
    // encodeInto, not a loop over char codes: native, and UTF-8 as the general path encodes it.
    at += utf8.encodeInto(digest, buffer.subarray(at)).written;
  }
  buffer.set(PARAMS_LINE, at);
  at += PARAMS_LINE.length;
  at += utf8.encodeInto(input.slice(INNER_LIST_START), buffer.subarray(at)).written;
  return buffer.slice(0, at);
}
