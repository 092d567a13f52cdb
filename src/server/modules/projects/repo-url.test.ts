import { describe, expect, it } from 'vitest';
import { normaliseRepoUrl, ownRemoteProjectId } from './repo-url.js';

describe('normaliseRepoUrl', () => {
  it('makes the spellings of one repository equal', () => {
    const spellings = [
      'https://github.com/Acme/Shop.git',
      'https://github.com/Acme/Shop',
      'http://GitHub.com/Acme/Shop/',
      'https://user:token@github.com:443/Acme/Shop.git',
      'ssh://git@github.com/Acme/Shop.git',
      'git@github.com:Acme/Shop.git',
      'github.com/Acme/Shop',
    ];
    for (const spelling of spellings)
      expect(normaliseRepoUrl(spelling), spelling).toBe('github.com/Acme/Shop');
  });

  it('keeps what tells repositories apart: the path case, the host, a non-default port', () => {
    expect(normaliseRepoUrl('https://github.com/acme/shop')).not.toBe(
      normaliseRepoUrl('https://github.com/Acme/Shop'),
    );
    expect(normaliseRepoUrl('https://gitlab.com/a/b')).not.toBe(normaliseRepoUrl('https://github.com/a/b'));
    expect(normaliseRepoUrl('https://git.example.com:8443/a/b.git')).toBe('git.example.com:8443/a/b');
  });

  it('reads nothing from text that names no repository', () => {
    for (const text of ['', 'shop', 'https://', 'https://github.com/'])
      expect(normaliseRepoUrl(text), text).toBeNull();
  });
});

describe('ownRemoteProjectId', () => {
  const id = '0b6c3a52-58d2-4c8e-9b7e-2f1d3c4b5a69';
  it('reads the project of our own remote on our own host only', () => {
    const own = new Set(['localhost:3000']);
    expect(ownRemoteProjectId(normaliseRepoUrl(`http://localhost:3000/git/${id}.git`) ?? '', own)).toBe(id);
    expect(ownRemoteProjectId(normaliseRepoUrl(`http://evil.example/git/${id}.git`) ?? '', own)).toBeNull();
    expect(
      ownRemoteProjectId(normaliseRepoUrl('http://localhost:3000/git/not-an-id.git') ?? '', own),
    ).toBeNull();
  });
});
