/** Base64url without padding, with no Node `Buffer` (the fetch binding runs where there is none). */
export function bytesToBase64url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i] as number);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The bytes of a base64url (or base64) string; `undefined` when it is not one. */
export function base64urlToBytes(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_\-+/]*={0,2}$/.test(text)) return undefined;
  let binary: string;
  try {
    binary = atob(text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, ''));
  } catch {
    return undefined;
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const utf8Encode = (text: string): Uint8Array => encoder.encode(text);
export const utf8Decode = (bytes: Uint8Array): string => decoder.decode(bytes);
