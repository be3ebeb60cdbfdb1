import { isIPv4 as nodeIsIPv4, isIPv6 as nodeIsIPv6 } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIPv4, isIPv6 } from '../src/net/ip-literal.js';

// The core checks webhook addresses without node:net; it must agree with Node's own checks.
describe('IP literal checks without node:net', () => {
  const samples = [
    '127.0.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '256.1.1.1',
    '01.2.3.4',
    '1.2.3',
    '1.2.3.4.5',
    '::',
    '::1',
    '::ffff:10.0.0.1',
    'fe80::1%eth0',
    '2001:db8::',
    '2001:db8:0:0:0:0:0:1',
    '1:2:3:4:5:6:7:8:9',
    ':::',
    'g::1',
    '[::1]',
    '1::2::3',
    '',
    ' 1.2.3.4',
  ];

  it('agree with node:net on known cases', () => {
    for (const sample of samples) {
      expect([sample, isIPv4(sample)]).toEqual([sample, nodeIsIPv4(sample)]);
      expect([sample, isIPv6(sample)]).toEqual([sample, nodeIsIPv6(sample)]);
    }
  });

  it('agree with node:net on generated addresses and near-misses', () => {
    const v4ish = fc
      .array(fc.oneof(fc.nat(300).map(String), fc.constantFrom('', '00', '1a')), { minLength: 3, maxLength: 5 })
      .map((parts) => parts.join('.'));
    const v6ish = fc
      .array(
        fc.oneof(fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), maxLength: 5 }), fc.constantFrom('', '1.2.3.4', '%eth0')),
        { minLength: 2, maxLength: 10 },
      )
      .map((parts) => parts.join(':'));
    fc.assert(
      fc.property(fc.oneof(v4ish, v6ish, fc.ipV4(), fc.ipV6(), fc.string()), (input) => {
        expect(isIPv4(input)).toBe(nodeIsIPv4(input));
        expect(isIPv6(input)).toBe(nodeIsIPv6(input));
      }),
      { numRuns: 3000 },
    );
  });
});
