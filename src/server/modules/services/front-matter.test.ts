import { describe, expect, it } from 'vitest';
import { isPassive, parseServiceFile } from './front-matter.js';

describe('service front matter (seed 002)', () => {
  it('reads the plain style after a shebang', () => {
    const parsed = parseServiceFile(
      '#!/bin/bash\n---\nname: My Service\nhttp: 8080\n---\nexec python server.py\n',
    );
    expect(parsed.config).toEqual({ name: 'My Service', http: 8080 });
    expect(parsed.shebang).toBe(true);
    expect(parsed.body.trim()).toBe('exec python server.py');
    expect(parsed.warnings).toEqual([]);
  });

  it('reads the hash-prefixed style, trimming any whitespace after the prefix', () => {
    const parsed = parseServiceFile(
      '#!/bin/bash\n#---\n# name: Foo\n#   http: 8080\n#      description: Many spaces - also trimmed\n#---\nexec python server.py\n',
    );
    expect(parsed.config).toEqual({ name: 'Foo', http: 8080, description: 'Many spaces - also trimmed' });
    expect(parsed.body.trim()).toBe('exec python server.py');
  });

  it('reads the slash-prefixed style', () => {
    const parsed = parseServiceFile(
      "#!/usr/bin/env node\n//---\n// name: Node Service\n// http: 3000\n// path: /api/docs\n//---\nrequire('./server').start();\n",
    );
    expect(parsed.config).toEqual({ name: 'Node Service', http: 3000, path: '/api/docs' });
  });

  it('allows blank lines before and inside the block, and a line that is only the prefix', () => {
    const parsed = parseServiceFile(
      '#!/bin/sh\n\n#---\n\n# name: Spaced\n#\n\n# https: auto\n#---\nexec true\n',
    );
    expect(parsed.config).toEqual({ name: 'Spaced', https: 'auto' });
  });

  it('reads a file without front matter as an empty config, its whole script the body', () => {
    const parsed = parseServiceFile('#!/bin/sh\necho hi\n');
    expect(parsed).toMatchObject({ config: {}, hasFrontMatter: false, shebang: true, warnings: [] });
    expect(parsed.body).toBe('echo hi\n');
  });

  it('reads invalid YAML as an empty config, with a warning', () => {
    const parsed = parseServiceFile('#!/bin/sh\n---\nname: [unclosed\nhttp: 80\n---\nexec true\n');
    expect(parsed.config).toEqual({});
    expect(parsed.warnings[0]).toMatch(/not valid YAML/);
    expect(parseServiceFile('---\n- a list\n---\n').warnings[0]).toMatch(/not a mapping/);
  });

  it('reads a prefixed block with an unprefixed line, or one never closed, as empty, with a warning', () => {
    expect(parseServiceFile('#!/bin/sh\n#---\n# name: A\nhttp: 80\n#---\nexec true\n')).toMatchObject({
      config: {},
      warnings: [expect.stringMatching(/without #/)],
    });
    expect(parseServiceFile('#!/bin/sh\n#---\n# name: A\nexec true\n')).toMatchObject({
      config: {},
      warnings: [expect.stringMatching(/never closed/)],
    });
  });

  it('drops a field with a bad value and keeps the rest', () => {
    const parsed = parseServiceFile('---\nname: Ok\nhttp: 70000\nhttps: soon\npath: no-slash\n---\n');
    expect(parsed.config).toEqual({ name: 'Ok' });
    expect(parsed.warnings).toHaveLength(3);
  });

  it('computes passive: a port in front matter and nothing after it', () => {
    expect(isPassive(parseServiceFile('---\nname: Web App\nhttp: 3000\n---\n  \n'))).toBe(true);
    expect(isPassive(parseServiceFile('---\nname: Web App\nhttp: 3000\npassive: false\n---\n'))).toBe(true);
    expect(isPassive(parseServiceFile('---\nname: No port\n---\n'))).toBe(false);
    expect(isPassive(parseServiceFile('#!/bin/sh\n---\nhttp: 3000\n---\nexec serve\n'))).toBe(false);
  });
});
