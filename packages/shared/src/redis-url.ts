// REDIS_URL for a Redis Cluster (docs/settings.md):
// `redis+cluster://[[user]:password@]host:port,host:port,…` (or `rediss+cluster://` for TLS). The
// hosts are seed nodes: the client asks them for the slot map and finds the other masters itself. A
// password (and user) goes in the first node's userinfo and is used on every node. A cluster has
// database 0 only, so the URL has no database number.
//
// Kept apart from connections.ts so the settings check (config.ts) can use it without a client.

/** A cluster URL's seed nodes, its credentials and whether it uses TLS. */
export interface TRedisClusterUrl {
  nodes: Array<{ host: string; port: number }>;
  username?: string;
  password?: string;
  tls: boolean;
}

const CLUSTER_SCHEME = /^(rediss?)\+cluster:\/\//i;
const SHAPE = 'must be redis+cluster://host:port,host:port,… (seed nodes, optional password in the first one)';

export function isRedisClusterUrl(url: string): boolean {
  return CLUSTER_SCHEME.test(url.trim());
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new Error(`${SHAPE}; the userinfo is not valid percent-encoding`);
  }
}

/**
 * The seed nodes and credentials of a cluster URL. Throws one line (never echoing the password)
 * when the node list is malformed; call only when isRedisClusterUrl says it is one.
 */
export function parseRedisClusterUrl(url: string): TRedisClusterUrl {
  const text = url.trim();
  const scheme = CLUSTER_SCHEME.exec(text);
  if (!scheme) throw new Error(SHAPE);
  let rest = text.slice(scheme[0].length);
  // The only database of a cluster: an empty path or /0 is accepted, nothing else after the nodes.
  const pathAt = rest.search(/[/?#]/);
  if (pathAt >= 0) {
    const tail = rest.slice(pathAt);
    if (tail !== '/' && tail !== '/0') throw new Error(`${SHAPE}; a cluster has database 0 only, so no path or options after the nodes`);
    rest = rest.slice(0, pathAt);
  }
  let username: string | undefined;
  let password: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const userinfo = rest.slice(0, at);
    rest = rest.slice(at + 1);
    if (userinfo.includes(',')) throw new Error(`${SHAPE}; only the first node may carry user:password@`);
    const colon = userinfo.indexOf(':');
    if (colon >= 0) {
      username = decode(userinfo.slice(0, colon)) || undefined;
      password = decode(userinfo.slice(colon + 1)) || undefined;
    } else {
      // redis://secret@host is read as a password by Redis clients (there is no user without one).
      password = decode(userinfo) || undefined;
    }
  }
  if (rest === '') throw new Error(`${SHAPE}; no nodes given`);
  const nodes = rest.split(',').map((entry, index) => {
    const where = `node ${index + 1}`;
    const node = entry.trim();
    if (node === '') throw new Error(`${SHAPE}; ${where} is empty`);
    const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/.exec(node);
    if (!match) throw new Error(`${SHAPE}; ${where} "${node}" is not host:port`);
    const port = match[2] === undefined ? 6379 : Number(match[2]);
    if (port < 1 || port > 65535) throw new Error(`${SHAPE}; ${where} "${node}" has a port outside 1-65535`);
    const host = match[1]!.startsWith('[') ? match[1]!.slice(1, -1) : match[1]!;
    return { host, port };
  });
  return { nodes, username, password, tls: scheme[1]!.toLowerCase() === 'rediss' };
}
