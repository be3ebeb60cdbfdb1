import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, classifyAddress, createWebhookUrlGuard } from '../src/push/index.js';

const resolveTo =
  (...addresses: string[]) =>
  async (_hostname: string) =>
    addresses;

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:192.168.0.1', 'private'],
    ['64:ff9b::10.0.0.1', 'private'],
    // Translated and tunnelled forms of 127.0.0.1 are not this host's loopback: always refused.
    ['2002:7f00:1::', 'reserved'],
    ['64:ff9b::7f00:1', 'reserved'],
    ['64:ff9b::127.0.0.1', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    ['::7f00:1', 'reserved'],
    ['2002:a00:1::', 'private'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['example.com', 'invalid'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });
});

describe('checkWebhookUrl (spec §13.2 SSRF)', () => {
  it.each([
    'https://127.0.0.1/hook',
    'https://127.1.2.3/hook',
    'https://[::1]/hook',
    'https://10.0.0.5/hook',
    'https://172.16.3.4/hook',
    'https://192.168.0.10/hook',
    'https://[fc00::1]/hook',
    'https://169.254.10.10/hook',
    'https://[fe80::1]/hook',
    'https://169.254.169.254/latest/meta-data/',
    'https://[fd00:ec2::254]/',
    'https://metadata.google.internal/computeMetadata/v1/',
    'https://0.0.0.0/hook',
    'https://224.0.0.1/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:169.254.169.254]/hook',
    'https://[::ffff:10.0.0.1]/hook',
    // Alternative IPv4 spellings that the WHATWG URL parser normalises to 127.0.0.1.
    'https://2130706433/hook',
    'https://0x7f.1/hook',
    'https://localhost/hook',
  ])('refuses %s', async (url) => {
    const result = await checkWebhookUrl(url, { resolve: resolveTo('93.184.216.34') });
    expect(result.ok).toBe(false);
  });

  it('refuses a host name that resolves to 127.0.0.1', async () => {
    const result = await checkWebhookUrl('https://evil.example/hook', { resolve: resolveTo('127.0.0.1') });
    expect(result).toEqual({ ok: false, reason: 'loopback address 127.0.0.1 is not allowed' });
  });

  it('refuses a host when any one of its addresses is internal (DNS may hand out either)', async () => {
    const result = await checkWebhookUrl('https://mixed.example/hook', { resolve: resolveTo('93.184.216.34', '10.0.0.1') });
    expect(result.ok).toBe(false);
  });

  it('refuses a host resolving to an IPv4-mapped internal IPv6 address', async () => {
    const result = await checkWebhookUrl('https://mapped.example/hook', { resolve: resolveTo('::ffff:192.168.1.1') });
    expect(result.ok).toBe(false);
  });

  it('refuses unresolvable hosts and resolver failures', async () => {
    expect((await checkWebhookUrl('https://none.example/', { resolve: resolveTo() })).ok).toBe(false);
    const failing = async () => {
      throw new Error('ENOTFOUND');
    };
    expect((await checkWebhookUrl('https://none.example/', { resolve: failing })).ok).toBe(false);
  });

  it('refuses a host whose lookup does not answer within resolveTimeoutMs (the check runs on the request path)', async () => {
    const silent = () => new Promise<string[]>(() => undefined);
    await expect(checkWebhookUrl('https://slow.example/', { resolve: silent, resolveTimeoutMs: 20 })).resolves.toEqual({
      ok: false,
      reason: 'host slow.example did not resolve',
    });
  });

  it.each([
    ['ftp://example.com/hook', 'scheme'],
    ['file:///etc/passwd', 'scheme'],
    ['gopher://example.com/', 'scheme'],
    ['https://user:pass@example.com/hook', 'credentials'],
    ['https://user@example.com/hook', 'credentials'],
    ['not a url', 'valid'],
    ['http://example.com/hook', 'http'],
  ])('refuses %s (%s)', async (url, word) => {
    const result = await checkWebhookUrl(url, { resolve: resolveTo('93.184.216.34') });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(word);
  });

  it('allows a public https address and returns the vetted addresses', async () => {
    await expect(checkWebhookUrl('https://hooks.example/a2a', { resolve: resolveTo('93.184.216.34') })).resolves.toEqual({
      ok: true,
      addresses: ['93.184.216.34'],
    });
    await expect(checkWebhookUrl('https://[2606:4700:4700::1111]/a2a')).resolves.toEqual({
      ok: true,
      addresses: ['2606:4700:4700::1111'],
    });
  });

  it('allows plain http only with allowHttp', async () => {
    const result = await checkWebhookUrl('http://hooks.example/a2a', { resolve: resolveTo('93.184.216.34'), allowHttp: true });
    expect(result.ok).toBe(true);
  });

  it('allows loopback only with allowLoopback, and then http to loopback too', async () => {
    expect((await checkWebhookUrl('http://127.0.0.1:8080/hook')).ok).toBe(false);
    expect((await checkWebhookUrl('http://127.0.0.1:8080/hook', { allowLoopback: true })).ok).toBe(true);
    expect((await checkWebhookUrl('https://localhost/hook', { allowLoopback: true })).ok).toBe(true);
    expect((await checkWebhookUrl('http://[::1]:9/hook', { allowLoopback: true })).ok).toBe(true);
    // ...but not NAT64, 6to4 or IPv4-compatible forms of 127.0.0.1.
    for (const host of ['[64:ff9b::7f00:1]', '[2002:7f00:1::]', '[::127.0.0.1]']) {
      expect((await checkWebhookUrl(`http://${host}:8080/hook`, { allowLoopback: true, allowHttp: true })).ok).toBe(false);
    }
    // allowLoopback does not open private or metadata space.
    expect((await checkWebhookUrl('https://10.0.0.1/', { allowLoopback: true })).ok).toBe(false);
    expect((await checkWebhookUrl('http://169.254.169.254/', { allowLoopback: true, allowPrivate: true, allowHttp: true })).ok).toBe(false);
  });

  it('allows private ranges only with allowPrivate', async () => {
    expect((await checkWebhookUrl('https://10.0.0.1/', { allowPrivate: true })).ok).toBe(true);
    expect((await checkWebhookUrl('https://[fd12::1]/', { allowPrivate: true })).ok).toBe(true);
    expect((await checkWebhookUrl('https://[fe80::1]/', { allowPrivate: true })).ok).toBe(false);
  });
});

describe('createWebhookUrlGuard', () => {
  it('binds the options, for createA2AServer({ checkWebhookUrl })', async () => {
    const strict = createWebhookUrlGuard();
    const relaxed = createWebhookUrlGuard({ allowLoopback: true });
    expect((await strict('http://127.0.0.1:1/')).ok).toBe(false);
    expect((await relaxed('http://127.0.0.1:1/')).ok).toBe(true);
  });
});
