import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverServices, findService, MAX_SERVICE_FILES, SERVICES_DIR } from './discovery.js';
import { writeService } from './testing/fixture.js';

describe('discovering .discobot/services', () => {
  let root: string;
  let checkout: string;
  beforeEach(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), 'autocoder-discovery-')));
    checkout = path.join(root, 'checkout');
    await mkdir(checkout);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('finds nothing in a checkout without the directory', async () => {
    expect(await discoverServices(checkout)).toEqual({ definitions: [], warnings: [] });
  });

  it('lists executable scripts and passive declarations by file name; other files are warnings', async () => {
    await writeService(checkout, 'api', '#!/bin/sh\n#---\n# name: API\n# http: auto\n#---\nexec true\n');
    await writeService(checkout, 'webapp', '---\nname: Web App\nhttp: 3000\n---\n', 0o644);
    await writeService(checkout, 'no-run-bit', '#!/bin/sh\nexec true\n', 0o644);
    await writeService(checkout, 'no-shebang', 'exec true\n', 0o755);
    await writeService(checkout, '.hidden', '#!/bin/sh\nexec true\n');
    await mkdir(path.join(checkout, SERVICES_DIR, 'a-directory'));
    const { definitions, warnings } = await discoverServices(checkout);
    expect(definitions.map((d) => [d.id, d.passive, d.relativePath])).toEqual([
      ['api', false, '.discobot/services/api'],
      ['webapp', true, '.discobot/services/webapp'],
    ]);
    expect(definitions[0]?.config).toEqual({ name: 'API', http: 'auto' });
    expect(warnings.map((w) => w.file).sort()).toEqual([
      '.discobot/services/no-run-bit',
      '.discobot/services/no-shebang',
    ]);
    expect(warnings.find((w) => w.file.endsWith('no-run-bit'))?.message).toMatch(/chmod \+x/);
  });

  it('does not follow symlinks: a service file linking elsewhere, or a services directory leaving the checkout', async () => {
    const secret = path.join(root, 'secret');
    await writeFile(secret, '---\nname: SECRET LINE\nhttp: 1\n---\n');
    await writeService(checkout, 'real', '#!/bin/sh\nexec true\n');
    await symlink(secret, path.join(checkout, SERVICES_DIR, 'linked'));
    expect((await discoverServices(checkout)).definitions.map((d) => d.id)).toEqual(['real']);
    expect(await findService(checkout, 'linked')).toBeNull();

    const other = path.join(root, 'other');
    await writeService(other, 'outside', '#!/bin/sh\nexec true\n');
    const second = path.join(root, 'second');
    await mkdir(path.join(second, '.discobot'), { recursive: true });
    await symlink(path.join(other, SERVICES_DIR), path.join(second, SERVICES_DIR));
    expect(await discoverServices(second)).toEqual({ definitions: [], warnings: [] });
    expect(await findService(second, 'outside')).toBeNull();
  });

  it('reads at most MAX_SERVICE_FILES files, in id order, and says how many it left', async () => {
    const ids = Array.from({ length: MAX_SERVICE_FILES + 3 }, (_, i) => `svc-${String(i).padStart(4, '0')}`);
    for (const id of ids) await writeService(checkout, id, '---\nhttp: 3000\n---\n', 0o644);
    const { definitions, warnings } = await discoverServices(checkout);
    expect(definitions.map((d) => d.id)).toEqual(ids.slice(0, MAX_SERVICE_FILES));
    expect(warnings).toEqual([
      {
        file: SERVICES_DIR,
        message: `3 more service files were ignored (at most ${MAX_SERVICE_FILES} are read)`,
      },
    ]);
  });

  it('finds one service by id, never by a path', async () => {
    await writeService(checkout, 'MyServer', '#!/bin/sh\nexec true\n');
    expect((await findService(checkout, 'MyServer'))?.id).toBe('MyServer');
    expect(await findService(checkout, 'myserver')).toBeNull();
    expect((await findService(checkout, 'myserver', { anyCase: true }))?.id).toBe('MyServer');
    for (const trick of ['..', '.', '../checkout/.discobot/services/MyServer', 'a/b', '']) {
      expect(await findService(checkout, trick)).toBeNull();
    }
  });
});
