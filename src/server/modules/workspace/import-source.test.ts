import { describe, expect, it } from 'vitest';
import { createNetworkPolicy } from '@/server/lib/network-policy.js';
import { checkRemoteUrl, describeCloneFailure } from './import-source.js';

const open = createNetworkPolicy({ serverOnLoopback: true });

describe('checkRemoteUrl', () => {
  it('pins an http(s) host name to the address it checked', async () => {
    const { url, config } = await checkRemoteUrl('http://localhost:8123/org/repo.git', open);
    expect(url).toBe('http://localhost:8123/org/repo.git');
    expect(config).toEqual([
      expect.stringMatching(/^http\.curloptResolve=localhost:8123:(127\.0\.0\.1|\[::1\])$/),
    ]);
    expect((await checkRemoteUrl('https://localhost/r.git', open)).config[0]).toMatch(
      /^http\.curloptResolve=localhost:443:/,
    );
  });

  it('hands git the normalised address of an IP literal, which needs no pin', async () => {
    expect(await checkRemoteUrl('http://2130706433:81/r.git', open)).toEqual({
      url: 'http://127.0.0.1:81/r.git',
      config: [],
    });
  });

  it('checks ssh hosts without pinning them, and refuses them when the policy does', async () => {
    expect(await checkRemoteUrl('git@localhost:org/repo.git', open)).toEqual({
      url: 'git@localhost:org/repo.git',
      config: [],
    });
    const strict = createNetworkPolicy({ serverOnLoopback: false });
    await expect(checkRemoteUrl('git@localhost:org/repo.git', strict)).rejects.toMatchObject({
      code: 'ADDRESS_NOT_ALLOWED',
    });
    await expect(checkRemoteUrl('ssh://git@127.0.0.1/repo.git', strict)).rejects.toMatchObject({
      code: 'ADDRESS_NOT_ALLOWED',
    });
  });
});

describe('describeCloneFailure', () => {
  it('gives a fixed description and at most a status, never what the remote said', () => {
    expect(
      describeCloneFailure("fatal: could not read Username for 'http://h': terminal prompts disabled", false),
    ).toMatch(/credentials/);
    const remote =
      'remote: SECRET internal details\nfatal: unable to access: The requested URL returned error: 500';
    expect(describeCloneFailure(remote, false)).toBe('the server answered HTTP 500');
    expect(describeCloneFailure('remote: SECRET\nfatal: something odd', false)).toBe('git clone failed');
  });
});
