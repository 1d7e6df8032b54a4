import { createHash, timingSafeEqual } from 'node:crypto';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]', '::1'];

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Throws when the options would expose the server: a public bind without a token, or a token with blanks. */
export function checkExposure(options: { host: string; token?: string | undefined }): void {
  if (!isLoopback(options.host) && !options.token) {
    throw new Error(
      `Refusing to listen on ${options.host} without a token: set SHIPYARD_HTTP_TOKEN, or bind to 127.0.0.1`,
    );
  }
  if (options.token && options.token.trim() !== options.token) {
    throw new Error(
      'SHIPYARD_HTTP_TOKEN starts or ends with a blank (or is blank), which no Authorization header can carry: set it without',
    );
  }
}

export interface Guards {
  /** The Host header names this server (a loopback name, the bind address, or an allowed host). */
  hostAllowed(hostHeader: string | undefined): boolean;
  /** No Origin, or one naming this server over http(s). */
  originAllowed(origin: string | undefined): boolean;
  /** The Authorization header carries the token (always true without one). */
  authorised(header: string | undefined): boolean;
}

/** The Host, Origin and token checks every request passes before it reaches a session. */
export function guards(options: {
  host: string;
  token?: string | undefined;
  allowedHosts?: readonly string[] | undefined;
}): Guards {
  // A Host header names an IPv6 address in brackets ([2001:db8::1]); the bind address has none.
  const bindNames = options.host.includes(':') ? [options.host, `[${options.host}]`] : [options.host];
  const hostNames = new Set(
    [...LOOPBACK_NAMES, ...bindNames, ...(options.allowedHosts ?? [])].map((h) => h.toLowerCase()),
  );
  // Digests of equal length are compared, so neither the token nor its length shows in the time taken.
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const expected = options.token ? digest(options.token) : undefined;
  return {
    // By name only, as the Origin check: DNS rebinding arrives under the attacker's name, and a port in the
    // header is whatever a proxy or a port mapping in front of the server made it.
    hostAllowed(hostHeader) {
      const url = hostHeader ? safeUrl(`http://${hostHeader}`) : undefined;
      return !!url && hostNames.has(url.hostname.toLowerCase());
    },
    originAllowed(origin) {
      if (origin === undefined) return true;
      const url = safeUrl(origin);
      return !!url && (url.protocol === 'http:' || url.protocol === 'https:') && hostNames.has(url.hostname);
    },
    authorised(header) {
      if (!expected) return true;
      // The scheme is case-insensitive (RFC 9110); the token is compared in constant time.
      const match = /^bearer +(.*)$/i.exec(header ?? '');
      return timingSafeEqual(digest(match?.[1] ?? ''), expected);
    },
  };
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * Who a request comes from, for the cap on sessions per client: its remote address. Every client sends the
 * one shared token, so the token tells none apart. An IPv6 address counts by its /64, which one host may
 * hold whole; an IPv4 address mapped into IPv6 counts as itself.
 */
export function clientKey(address: string | undefined): string {
  if (!address) return 'an unknown address';
  const mapped = /^::ffff:(\d{1,3}(\.\d{1,3}){3})$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!address.includes(':')) return address;
  const [head = '', tail] = (address.split('%')[0] ?? '').split('::');
  const first = head ? head.split(':') : [];
  const last = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? first : [...first, ...Array(8 - first.length - last.length).fill('0'), ...last];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
