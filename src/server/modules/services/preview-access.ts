import { randomBytes } from 'node:crypto';

/** The cookie a preview host keeps its grant in (host-only, httpOnly). */
export const PREVIEW_COOKIE = 'autocoder_preview';
/** The preview host's path that redeems a ticket; every other path is the service's. */
export const PREVIEW_TICKET_PATH = '/__autocoder/preview';
/** A ticket works once, within this time (issue 10: 60 s). */
export const TICKET_TTL_MS = 60_000;
/** A preview cookie is good this long (or until the server restarts, or the workspace goes). */
export const GRANT_TTL_MS = 12 * 60 * 60_000;
/** Tickets and grants kept at most; past it the oldest go. */
const MAX_ENTRIES = 10_000;

/** Which service a preview host shows. */
export interface PreviewHost {
  workspaceId: string;
  /** As written in the host name: in lower case when a browser sent it. */
  serviceId: string;
}

interface Entry extends PreviewHost {
  userId: string;
  expiresAt: number;
}

/**
 * `{workspaceId}-svc-{serviceId}.{baseDomain}` (seed 002's subdomain, with the port the client
 * used), or null for any other Host.
 */
export function parsePreviewHost(host: string, baseDomain: string): PreviewHost | null {
  const name = host.toLowerCase().replace(/:\d+$/, '');
  const suffix = `.${baseDomain.toLowerCase()}`;
  if (!name.endsWith(suffix)) return null;
  const match = /^([0-9a-hjkmnp-tv-z]{26})-svc-([a-z0-9_][a-z0-9_.-]*)$/.exec(name.slice(0, -suffix.length));
  if (!match?.[1] || !match[2]) return null;
  return { workspaceId: match[1].toUpperCase(), serviceId: match[2] };
}

/** The preview origin of a service, on the scheme and port the client reached the app with. */
export function previewOrigin(
  target: PreviewHost,
  options: { baseDomain: string; proto: 'http' | 'https'; appHost: string },
): string {
  const port = /:(\d+)$/.exec(options.appHost)?.[1];
  const host = `${target.workspaceId.toLowerCase()}-svc-${target.serviceId.toLowerCase()}.${options.baseDomain}`;
  return `${options.proto}://${host}${port ? `:${port}` : ''}`;
}

const sameTarget = (a: PreviewHost, b: PreviewHost) =>
  a.workspaceId === b.workspaceId && a.serviceId.toLowerCase() === b.serviceId.toLowerCase();

/**
 * Who may look at a preview. The app issues a one-time ticket to the owner (60 s); the preview
 * host redeems it for a grant kept in a cookie of its own, so AutoCoder's session cookie is never
 * sent to a service's host. Kept in memory: a restart asks the owner to open the preview again.
 */
export class PreviewAccess {
  private readonly tickets = new Map<string, Entry>();
  private readonly grants = new Map<string, Entry>();

  constructor(private readonly now: () => number) {}

  issueTicket(target: PreviewHost, userId: string): string {
    return this.put(this.tickets, { ...target, userId, expiresAt: this.now() + TICKET_TTL_MS });
  }

  /** Spends a ticket on the host it was issued for; answers the new grant's token, or null. */
  redeem(ticket: string, host: PreviewHost): string | null {
    const entry = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    if (!entry || entry.expiresAt <= this.now() || !sameTarget(entry, host)) return null;
    return this.put(this.grants, { ...entry, expiresAt: this.now() + GRANT_TTL_MS });
  }

  /** The user a grant cookie speaks for, when it is for this host and still good. */
  check(grant: string | undefined, host: PreviewHost): string | null {
    const entry = grant ? this.grants.get(grant) : undefined;
    if (!entry || !sameTarget(entry, host)) return null;
    if (entry.expiresAt <= this.now()) {
      this.grants.delete(grant as string);
      return null;
    }
    return entry.userId;
  }

  /** Drops every ticket and grant of a workspace (its checkout went away). */
  revokeWorkspace(workspaceId: string): void {
    for (const map of [this.tickets, this.grants]) {
      for (const [token, entry] of map) if (entry.workspaceId === workspaceId) map.delete(token);
    }
  }

  private put(map: Map<string, Entry>, entry: Entry): string {
    const token = randomBytes(32).toString('base64url');
    const now = this.now();
    for (const [key, old] of map) {
      if (old.expiresAt > now && map.size < MAX_ENTRIES) break;
      map.delete(key);
    }
    map.set(token, entry);
    return token;
  }
}
