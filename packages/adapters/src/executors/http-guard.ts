/**
 * Which addresses an `http` step may connect to, enforced where the socket connects.
 *
 * Checking a name with one DNS lookup and then letting the HTTP client connect with another
 * is open to DNS rebinding: a name can answer a public address to the check and a loopback one
 * to the connect. So the check lives inside the socket's own lookup (undici's `connect.lookup`,
 * passed through to `net.connect` / `tls.connect`): the name is resolved once, every answer is
 * checked, and only checked addresses are handed to the socket. Every connection — so every
 * redirect hop to a new origin — goes through it. TLS is unaffected: undici still sets the SNI
 * server name and verifies the certificate against the host name, not the address.
 *
 * IP-literal hosts never reach a lookup (`net.connect` skips it), so `checkLiteralHost` covers them.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, type Dispatcher } from 'undici';

const privateRanges = new BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, incl. cloud metadata 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast
] as const) {
  privateRanges.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64: embeds an IPv4 address that may be private
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  privateRanges.addSubnet(prefix, bits, 'ipv6');
}

/** True for loopback, private, link-local and other non-public addresses. ::ffff:a.b.c.d is checked as IPv4. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return privateRanges.check(address, 'ipv4');
  if (family === 6) return privateRanges.check(address, 'ipv6');
  return true; // not an address at all: refuse rather than guess
}

/** A host that is, or resolves to, a refused address. The executor turns it into a clear, non-retryable error. */
export class PrivateAddressError extends Error {
  readonly host: string;
  readonly address: string;
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, a loopback/private/link-local address`);
    this.name = 'PrivateAddressError';
    this.host = host;
    this.address = address;
  }
}

/** The URL host without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** Throws PrivateAddressError for an IP-literal host that is private; names are left to the lookup. */
export function checkLiteralHost(url: URL): void {
  const host = bareHost(url);
  if (isIP(host) && isPrivateAddress(host)) throw new PrivateAddressError(host, host);
}

/** Resolves once and returns the answers only if every one of them is public. */
async function resolvePublic(hostname: string, family: LookupOptions['family']): Promise<LookupAddress[]> {
  const wanted = family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : 0;
  const answers = await lookup(hostname, { all: true, verbatim: true, family: wanted });
  // Every answer, not only the first: the socket may try the others (happy eyeballs).
  const refused = answers.find((answer) => isPrivateAddress(answer.address));
  if (refused !== undefined) throw new PrivateAddressError(hostname, refused.address);
  if (answers.length === 0) throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
  return answers;
}

const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  resolvePublic(hostname, options.family).then(
    (answers) => {
      if (options.all) callback(null, answers);
      else callback(null, answers[0]!.address, answers[0]!.family);
    },
    (error: NodeJS.ErrnoException) => callback(error, ''),
  );
};

// One pool each, made on first use and kept like fetch's global one: a pooled connection was
// checked when it was opened, and idle sockets do not keep the process alive.
let publicOnly: Agent | undefined;
let anyAddress: Agent | undefined;

/** The dispatcher for a request: public addresses only, unless private ones are allowed. */
export function dispatcherFor(allowPrivate: boolean): Dispatcher {
  if (allowPrivate) {
    anyAddress ??= new Agent();
    return anyAddress;
  }
  publicOnly ??= new Agent({ connect: { lookup: publicOnlyLookup } });
  return publicOnly;
}
