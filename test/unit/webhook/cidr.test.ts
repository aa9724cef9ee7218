import { describe, expect, it } from 'vitest';
import { AllowList, CidrError, cidrListError, normalizeIp, parseCidr } from '../../../src/webhook/cidr.js';

describe('parseCidr', () => {
  it.each([
    ['10.0.0.0/8', { address: '10.0.0.0', prefix: 8, family: 'ipv4' }],
    ['192.168.1.7', { address: '192.168.1.7', prefix: 32, family: 'ipv4' }],
    [' 0.0.0.0/0 ', { address: '0.0.0.0', prefix: 0, family: 'ipv4' }],
    ['2001:db8::/32', { address: '2001:db8::', prefix: 32, family: 'ipv6' }],
    ['::1', { address: '::1', prefix: 128, family: 'ipv6' }],
    ['[::1]/128', { address: '::1', prefix: 128, family: 'ipv6' }],
  ])('%s', (text, want) => expect(parseCidr(text)).toEqual(want));

  it.each(['::ffff:10.0.0.0/8', '::FFFF:a00:0/16', '0:0:0:0:0:ffff:10.0.0.0/95'])(
    'rejects the IPv4-mapped range %j with a prefix under 96 (it would cover every IPv4 address)',
    (text) => {
      expect(() => parseCidr(text)).toThrow(/IPv4-mapped.*prefix.*96/);
      expect(cidrListError([text])).toMatch(/write it as an IPv4 range/);
    },
  );

  it('accepts IPv4-mapped ranges from /96 on', () => {
    expect(parseCidr('::ffff:10.0.0.0/104')).toEqual({ address: '::ffff:10.0.0.0', prefix: 104, family: 'ipv6' });
    expect(parseCidr('::ffff:0:0/96')).toEqual({ address: '::ffff:0:0', prefix: 96, family: 'ipv6' });
  });

  it.each([
    '10.0.0.0/33',
    '2001:db8::/129',
    '10.0.0/8',
    '10.0.0.0/',
    '10.0.0.0/-1',
    '10.0.0.0/8/8',
    'example.com',
    '',
    '::g/64',
    '10.0.0.0/08x',
  ])('rejects %j', (text) => expect(() => parseCidr(text)).toThrow(CidrError));
});

describe('AllowList', () => {
  const list = new AllowList(['10.0.0.0/8', '192.168.1.0/24', '2001:db8::/32', '203.0.113.5']);
  it.each([
    ['10.255.0.1', true],
    ['11.0.0.1', false],
    ['192.168.1.255', true],
    ['192.168.2.0', false],
    ['203.0.113.5', true],
    ['203.0.113.6', false],
    ['::ffff:10.1.2.3', true],
    ['::ffff:a01:203', true],
    ['::ffff:11.1.2.3', false],
    ['[2001:db8::1]', true],
    ['2001:db8:ffff::1', true],
    ['2001:db9::1', false],
    ['fe80::1%eth0', false],
    ['::1', false],
    ['', false],
    ['not-an-ip', false],
  ])('%s -> %s', (ip, want) => expect(list.contains(ip)).toBe(want));

  it('IPv4-mapped ranges match plain IPv4 sources', () => {
    expect(new AllowList(['::ffff:127.0.0.0/104']).contains('127.0.0.1')).toBe(true);
    expect(new AllowList(['::ffff:127.0.0.0/104']).contains('128.0.0.1')).toBe(false);
  });

  it('0.0.0.0/0 admits every IPv4 source but no IPv6 one', () => {
    const all4 = new AllowList(['0.0.0.0/0']);
    expect(all4.contains('8.8.8.8')).toBe(true);
    expect(all4.contains('2001:db8::1')).toBe(false);
  });
});

describe('helpers', () => {
  it('normalizeIp strips brackets and zones', () => {
    expect(normalizeIp('[::1]')).toBe('::1');
    expect(normalizeIp('fe80::1%eth0')).toBe('fe80::1');
    expect(normalizeIp(' 10.0.0.1 ')).toBe('10.0.0.1');
  });
  it('cidrListError names the first bad entry', () => {
    expect(cidrListError(['10.0.0.0/8', '2001:db8::/32'])).toBeNull();
    expect(cidrListError(['10.0.0.0/8', '300.0.0.0/8'])).toMatch(/"300\.0\.0\.0\/8" is not an IP address/);
    expect(cidrListError('10.0.0.0/8')).toMatch(/array/);
    expect(cidrListError([10])).toMatch(/array of CIDR strings/);
  });
});
