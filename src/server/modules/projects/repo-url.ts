const DEFAULT_PORTS: Record<string, string> = {
  'http:': '80',
  'https:': '443',
  'ssh:': '22',
  'git:': '9418',
};

/**
 * A repository URL reduced to `host/path`, so that the spellings of one repository compare equal:
 * the scheme, credentials, a default port, a trailing `/` or `.git`, and the host's case are dropped,
 * and `git@host:path` (scp-like ssh) equals `https://host/path`. The path keeps its case. Null when the
 * text names no host or no path.
 */
export function normaliseRepoUrl(input: string): string | null {
  const text = input.trim();
  if (!text) return null;
  let host: string;
  let path: string;
  const scp = /^(?:[^@/:]+@)?([^/:]+):(?!\/\/)(.*)$/.exec(text);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return null;
    }
    const port = url.port && url.port !== DEFAULT_PORTS[url.protocol] ? `:${url.port}` : '';
    host = url.hostname + port;
    path = decodeSafely(url.pathname);
  } else if (scp) {
    host = scp[1] ?? '';
    path = scp[2] ?? '';
  } else {
    // No scheme: `github.com/user/repo`.
    const slash = text.indexOf('/');
    if (slash <= 0) return null;
    host = text.slice(0, slash);
    path = text.slice(slash);
  }
  host = host.toLowerCase().replace(/\.$/, '');
  if (!host) return null;
  const trimmed = path
    .replace(/\/+/g, '/')
    .replace(/^\/|\/$/g, '')
    .replace(/\.git$/i, '')
    .replace(/\/$/, '');
  return trimmed ? `${host}/${trimmed}` : null;
}

function decodeSafely(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The project id in AutoCoder's own remote, `<host>/git/<projectId>.git` (normalised), or null when the
 * URL is not of that form. The host is not compared: the server answers only to its own names (others
 * get 421 before any route), a reverse proxy may rename it, and the id is looked up among the caller's
 * own projects anyway.
 */
export function ownProjectIdOf(normalised: string): string | null {
  const match = /^[^/]+\/git\/([^/]+)$/.exec(normalised);
  const id = match?.[1] ?? '';
  return UUID.test(id) ? id.toLowerCase() : null;
}
