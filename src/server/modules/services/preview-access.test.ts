import { describe, expect, it } from 'vitest';
import { PreviewAccess, parsePreviewHost, previewOrigin, TICKET_TTL_MS } from './preview-access.js';

const WS = '01JD7XQ3M5V8K2N4P6R8T0W2Y4';

describe('preview hosts', () => {
  it('reads {workspaceId}-svc-{serviceId}.{baseDomain}, with or without a port, in any case', () => {
    expect(parsePreviewHost(`${WS.toLowerCase()}-svc-web.localhost:3000`, 'localhost')).toEqual({
      workspaceId: WS,
      serviceId: 'web',
    });
    expect(parsePreviewHost(`${WS}-svc-my.api_v2.preview.example.com`, 'preview.example.com')).toEqual({
      workspaceId: WS,
      serviceId: 'my.api_v2',
    });
  });

  it('is not a preview host otherwise', () => {
    for (const host of [
      'localhost:3000',
      'foo.localhost',
      `${WS}-svc-web.example.com`,
      `${WS}x-svc-web.localhost`,
      `${WS}-svc-.localhost`,
      `${WS}-svc-web.evil-localhost`,
    ]) {
      expect(parsePreviewHost(host, 'localhost'), host).toBeNull();
    }
  });

  it('builds the origin on the scheme and port the app was reached on', () => {
    expect(
      previewOrigin(
        { workspaceId: WS, serviceId: 'Web' },
        { baseDomain: 'localhost', proto: 'http', appHost: 'localhost:3000' },
      ),
    ).toBe(`http://${WS.toLowerCase()}-svc-web.localhost:3000`);
    expect(
      previewOrigin(
        { workspaceId: WS, serviceId: 'web' },
        { baseDomain: 'p.example.com', proto: 'https', appHost: 'board.example.com' },
      ),
    ).toBe(`https://${WS.toLowerCase()}-svc-web.p.example.com`);
  });
});

describe('preview tickets and grants', () => {
  const host = { workspaceId: WS, serviceId: 'web' };

  it('spends a ticket once, on its own host, within 60 s', () => {
    let now = 1_000;
    const access = new PreviewAccess(() => now);
    const ticket = access.issueTicket(host, 'user-1');
    expect(access.redeem(ticket, { ...host, serviceId: 'other' })).toBeNull();
    const again = access.issueTicket(host, 'user-1');
    const grant = access.redeem(again, { ...host, serviceId: 'WEB' });
    expect(grant).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(access.redeem(again, host)).toBeNull();
    expect(access.check(grant ?? '', host)).toBe('user-1');
    expect(access.check(grant ?? '', { ...host, serviceId: 'other' })).toBeNull();
    const late = access.issueTicket(host, 'user-1');
    now += TICKET_TTL_MS;
    expect(access.redeem(late, host)).toBeNull();
  });

  it('drops the grants of a workspace that went away', () => {
    const access = new PreviewAccess(() => 0);
    const grant = access.redeem(access.issueTicket(host, 'user-1'), host) ?? '';
    expect(access.check(grant, host)).toBe('user-1');
    access.revokeWorkspace(WS);
    expect(access.check(grant, host)).toBeNull();
    expect(access.check(undefined, host)).toBeNull();
  });
});
