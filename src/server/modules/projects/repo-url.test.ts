import { describe, expect, it } from 'vitest';
import { normaliseRepoUrl, ownProjectIdOf } from './repo-url.js';

describe('normaliseRepoUrl', () => {
  it('gives every spelling of one repository the same name', () => {
    const spellings = [
      'https://github.com/Dedalus/Core.git',
      'https://github.com/Dedalus/Core',
      'https://github.com/Dedalus/Core/',
      'http://GitHub.com/Dedalus/Core.git',
      'https://user:secret@github.com:443/Dedalus/Core.git',
      'git@github.com:Dedalus/Core.git',
      'github.com:Dedalus/Core',
      'ssh://git@github.com/Dedalus/Core.git',
      'ssh://git@github.com:22/Dedalus/Core',
      'git://github.com/Dedalus/Core.git',
      'github.com/Dedalus/Core',
      '  https://github.com//Dedalus/Core.git  ',
    ];
    for (const url of spellings) expect(normaliseRepoUrl(url), url).toBe('github.com/Dedalus/Core');
  });

  it('keeps what tells repositories apart: path case, other ports, other hosts', () => {
    expect(normaliseRepoUrl('https://github.com/dedalus/core')).not.toBe(
      normaliseRepoUrl('https://github.com/Dedalus/Core'),
    );
    expect(normaliseRepoUrl('https://git.example.com:8443/a/b.git')).toBe('git.example.com:8443/a/b');
    expect(normaliseRepoUrl('https://gitlab.com/a/b')).not.toBe(normaliseRepoUrl('https://github.com/a/b'));
  });

  it('names no repository for text without a host or a path', () => {
    for (const url of ['', '   ', 'core', 'https://', '/srv/repos/core.git', 'https://github.com/'])
      expect(normaliseRepoUrl(url), url).toBeNull();
  });
});

describe('ownProjectIdOf', () => {
  const id = '0b1e6c1a-3f3e-4a51-9c3b-2f0d5d0c9a77';

  it('reads the project id from our own remote, however it is spelt', () => {
    expect(ownProjectIdOf(normaliseRepoUrl(`http://localhost:3000/git/${id}.git`) ?? '')).toBe(id);
    expect(
      ownProjectIdOf(normaliseRepoUrl(`https://AutoCoder.example.com/git/${id.toUpperCase()}/`) ?? ''),
    ).toBe(id);
  });

  it('ignores other paths', () => {
    expect(ownProjectIdOf(normaliseRepoUrl('http://localhost:3000/git/not-an-id.git') ?? '')).toBeNull();
    expect(ownProjectIdOf(normaliseRepoUrl(`http://localhost:3000/x/git/${id}.git`) ?? '')).toBeNull();
    expect(ownProjectIdOf(normaliseRepoUrl(`http://localhost:3000/git/${id}/more.git`) ?? '')).toBeNull();
  });
});
