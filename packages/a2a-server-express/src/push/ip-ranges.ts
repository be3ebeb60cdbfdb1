import { isIPv4, isIPv6 } from '../net/ip-literal.js';

/** Why an address is not a public unicast address, or `public`. */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'invalid';

function ipv4ToNumber(address: string): number {
  return address.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
}

function inV4(value: number, base: string, bits: number): boolean {
  const size = 2 ** (32 - bits);
  const start = ipv4ToNumber(base);
  return value >= start && value < start + size;
}

function classifyIPv4(address: string): AddressClass {
  const v = ipv4ToNumber(address);
  if (v === ipv4ToNumber('169.254.169.254')) return 'metadata';
  if (inV4(v, '0.0.0.0', 8)) return 'unspecified';
  if (inV4(v, '127.0.0.0', 8)) return 'loopback';
  if (inV4(v, '10.0.0.0', 8) || inV4(v, '172.16.0.0', 12) || inV4(v, '192.168.0.0', 16)) return 'private';
  // Carrier-grade NAT space; also where some clouds put metadata (100.100.100.200).
  if (inV4(v, '100.64.0.0', 10)) return 'private';
  if (inV4(v, '169.254.0.0', 16)) return 'link-local';
  if (inV4(v, '224.0.0.0', 4)) return 'multicast';
  // IETF protocol assignments, benchmarking, documentation nets, 240/4 and broadcast.
  if (
    inV4(v, '192.0.0.0', 24) ||
    inV4(v, '192.0.2.0', 24) ||
    inV4(v, '198.18.0.0', 15) ||
    inV4(v, '198.51.100.0', 24) ||
    inV4(v, '203.0.113.0', 24) ||
    inV4(v, '240.0.0.0', 4)
  ) {
    return 'reserved';
  }
  return 'public';
}

/** Expands an IPv6 literal (with optional embedded IPv4 tail and zone id) into 8 groups. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const lastColon = text.lastIndexOf(':');
  const maybeV4 = text.slice(lastColon + 1);
  if (maybeV4.includes('.')) {
    // Rewrite the dotted tail as two hex groups so one parser handles every form.
    if (!isIPv4(maybeV4)) return undefined;
    const n = ipv4ToNumber(maybeV4);
    text = `${text.slice(0, lastColon + 1)}${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`;
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (part: string | undefined) =>
    part
      ? part
          .split(':')
          .filter((g) => g !== '')
          .map((g) => Number.parseInt(g, 16))
      : [];
  const left = parse(head);
  const right = parse(rest);
  const missing = 8 - left.length - right.length;
  if (rest === undefined && missing !== 0) return undefined;
  if (missing < 0) return undefined;
  const groups = [...left, ...new Array<number>(rest === undefined ? 0 : missing).fill(0), ...right];
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return undefined;
  return groups;
}

function embeddedIPv4(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/**
 * An IPv4 address embedded in a translated or tunnelled IPv6 form (IPv4-compatible, NAT64, 6to4)
 * is classed as the address it embeds, except loopback: such a form of 127.0.0.1 is not this
 * host's loopback, so `allowLoopback` must not admit it. It is `reserved`, always refused.
 */
function translatedIPv4(address: string): AddressClass {
  const kind = classifyIPv4(address);
  return kind === 'loopback' ? 'reserved' : kind;
}

function classifyIPv6(address: string): AddressClass {
  const g = ipv6Groups(address);
  if (!g) return 'invalid';
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const firstFiveZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  // IPv4-mapped (::ffff:a.b.c.d): a dual-stack socket reaches the IPv4 address itself.
  if (firstFiveZero && g5 === 0xffff) return classifyIPv4(embeddedIPv4(g6, g7));
  // The deprecated IPv4-compatible form (::a.b.c.d).
  if (firstFiveZero && g5 === 0) {
    if (g6 === 0 && g7 === 0) return 'unspecified';
    if (g6 === 0 && g7 === 1) return 'loopback';
    return translatedIPv4(embeddedIPv4(g6, g7));
  }
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) reach the IPv4 address they embed through a gateway.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return translatedIPv4(embeddedIPv4(g6, g7));
  if (g0 === 0x2002) return translatedIPv4(embeddedIPv4(g1, g2));
  // AWS instance metadata over IPv6.
  if (g0 === 0xfd00 && g1 === 0x0ec2 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 0x254) return 'metadata';
  if ((g0 & 0xfe00) === 0xfc00) return 'private';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  // Deprecated site-local (fec0::/10) behaves like private space.
  if ((g0 & 0xffc0) === 0xfec0) return 'private';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  // Documentation prefix.
  if (g0 === 0x2001 && g1 === 0x0db8) return 'reserved';
  return 'public';
}

/** Classifies an IP literal (v4, v6, IPv4-mapped v6). Anything else is `invalid`. */
export function classifyAddress(address: string): AddressClass {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return classifyIPv4(bare);
  if (isIPv6(bare)) return classifyIPv6(bare);
  return 'invalid';
}
