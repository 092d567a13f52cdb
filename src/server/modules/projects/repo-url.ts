const DEFAULT_PORTS: Record<string, string> = {
  'http:': '80',
  'https:': '443',
  'ssh:': '22',
  'git:': '9418',
};

/**
 * A repository URL as `host/path`, so that spellings of one repository compare equal: no scheme,
 * credentials, default port, trailing `/` or `.git`; the host in lower case; `git@host:path` (scp-like
 * ssh) the same as `https://host/path`. The path keeps its case. Null when no host can be read.
 */
export function normaliseRepoUrl(input: string): string | null {
  const text = input.trim();
  let host: string;
  let rest: string;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return null;
    }
    const port = url.port && url.port !== DEFAULT_PORTS[url.protocol] ? `:${url.port}` : '';
    host = url.hostname + port;
    rest = url.pathname;
  } else {
    // scp-like: [user@]host:path (no "//" after the colon).
    const colon = text.indexOf(':');
    const slash = text.indexOf('/');
    if (colon > 0 && (slash < 0 || colon < slash)) {
      host = text.slice(0, colon).replace(/^[^@]*@/, '');
      rest = text.slice(colon + 1);
    } else if (slash > 0) {
      host = text.slice(0, slash);
      rest = text.slice(slash);
    } else {
      return null;
    }
  }
  host = host.toLowerCase().replace(/\.$/, '');
  const path = rest
    .split('/')
    .filter(Boolean)
    .join('/')
    .replace(/\.git$/i, '');
  return host && path ? `${host}/${path}` : null;
}

const OWN_PATH = /^\/?git\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** The project id of AutoCoder's own remote (`<own host>/git/<projectId>.git`), or null. */
export function ownRemoteProjectId(normalised: string, ownHosts: ReadonlySet<string>): string | null {
  const slash = normalised.indexOf('/');
  if (slash < 0 || !ownHosts.has(normalised.slice(0, slash))) return null;
  return OWN_PATH.exec(normalised.slice(slash))?.[1]?.toLowerCase() ?? null;
}
