import { describe, expect, it } from 'vitest';
import { buildCoderLoopPrompt } from '@/server/modules/pipeline/prompts/coder-loop-prompt.js';
import { editFor, occurrences } from './edit-plan.js';
import { parsePrompt } from './prompt.js';
import { PromptCache } from './prompt-cache.js';
import { coderPrompt, GREETING, systemFor } from './prompt-fixtures.js';
import { parseScenario } from './scenario.js';
import { toolTurnFor } from './tool-agents.js';
import type { PastTurn, ToolConversation } from './tool-conversation.js';
import { FileView, parseRead } from './tool-history.js';

describe('tool directives in parseScenario', () => {
  it('reads tool-error, edit-miss, loop, bad-calls (per agent) and big-edit=<path>', () => {
    const scenario = parseScenario(
      'tool-error@coder, edit-miss@coder, loop@reviewer, bad-calls@any, big-edit=src/big.ts',
    );
    expect(scenario.invalid).toEqual([]);
    expect(scenario.bigEdit).toBe('src/big.ts');
    expect(scenario.toolFaults?.map(({ kind, agent }) => `${kind}@${agent}`)).toEqual([
      'tool-error@coder',
      'edit-miss@coder',
      'loop@reviewer',
      'bad-calls@any',
    ]);
    expect(parseScenario('big-edit=../etc/passwd, loop@nobody, tool-error').invalid).toEqual([
      'big-edit=../etc/passwd',
      'loop@nobody',
      'tool-error',
    ]);
  });
});

describe("parsePrompt on the tool-using coder's first message", () => {
  it('reads the conflicts it lists without content, and the files changed so far (not deleted ones)', () => {
    const prompt = buildCoderLoopPrompt({
      task: { title: 'T', category: 'feature', description: 'D' },
      subtask: null,
      iteration: 1,
      previousOutputs: [
        { filePath: 'src/a.ts', action: 'create' },
        { filePath: 'src/gone.ts', action: 'delete' },
        { filePath: 'docs/b.md', action: 'modify' },
      ],
      conflicts: ['src/a.ts', 'src/c.ts'],
    });
    const info = parsePrompt(systemFor('coder'), prompt);
    expect(info).toMatchObject({ fixIteration: 1, conflicts: [], conflictPaths: ['src/a.ts', 'src/c.ts'] });
    expect(info.changedSoFar).toEqual(['src/a.ts', 'docs/b.md']);
  });
});

describe('editFor', () => {
  const apply = (text: string, edit: { oldText: string; newText: string }) => {
    expect(occurrences(text, edit.oldText)).toBe(1);
    return text.replace(edit.oldText, () => edit.newText);
  };

  it('appends after a unique tail, without the final newline in oldText', () => {
    const current = 'export function a() {\n  return 1;\n}\n';
    const desired = `${current}\nexport function b() {\n  return 2;\n}\n`;
    const edit = editFor(current, desired)!;
    expect(edit.oldText.endsWith('\n')).toBe(false);
    expect(apply(current, edit)).toBe(desired);
    // The same edit on the file without its final newline still applies.
    expect(apply(current.slice(0, -1), edit)).toBe(desired.slice(0, -1));
  });

  it('widens a repeated line with its neighbours until it occurs once', () => {
    const current = 'a\n}\nb\n}\nc\n}\n';
    const desired = 'a\n}\nb\n} // changed\nc\n}\n';
    const edit = editFor(current, desired)!;
    expect(edit.oldText).toBe('b\n}');
    expect(apply(current, edit)).toBe(desired);
  });

  it('leaves unchanged, empty and rewritten files to write_file (undefined)', () => {
    expect(editFor('x\n', 'x\n')).toBeUndefined();
    expect(editFor('', 'new\n')).toBeUndefined();
    expect(editFor('one\ntwo\n', 'three\nfour\n')).toBeUndefined();
  });
});

describe('reading read_file outputs back', () => {
  it('takes the line numbers off and learns the length from the notes', () => {
    const piece = parseRead('   5\tfive\n   6\t  six\t(tab)\n[Lines 5–6 of 120.]');
    expect([...piece.rows]).toEqual([
      [5, 'five'],
      [6, '  six\t(tab)'],
    ]);
    expect(piece.total).toBe(120);
    expect(parseRead('(empty file)')).toEqual({ rows: new Map(), total: 0 });
    const view = new FileView();
    view.add(
      parseRead(
        '   1\ta\n   2\tb\n[Stopped at line 2 of 3 (at most 2 lines per call). Continue with startLine 3.]',
      ),
    );
    expect(view.nextMissing()).toBe(3);
    view.add(parseRead('   3\tc\n[Lines 3–3 of 3.]'));
    expect(view.content()).toBe('a\nb\nc\n');
  });
});

describe('PromptCache', () => {
  const seg = (...texts: string[]) => texts.map((text, i) => ({ text, marked: i === texts.length - 1 }));
  it('reads the longest known prefix and writes up to the last mark (Anthropic)', () => {
    const cache = new PromptCache();
    expect(cache.anthropic('r', seg('tools', 'system'))).toEqual({
      readChars: 0,
      writeChars: 11,
      totalChars: 11,
    });
    expect(cache.anthropic('r', seg('tools', 'system', 'turn'))).toEqual({
      readChars: 11,
      writeChars: 4,
      totalChars: 15,
    });
    expect(cache.anthropic('r', [{ text: 'tools' }, { text: 'system' }])).toEqual({
      readChars: 0,
      writeChars: 0,
      totalChars: 11,
    });
    expect(cache.anthropic('other', seg('tools', 'system')).readChars).toBe(0);
  });

  it('forgets the least recently used runs and prefixes beyond its bounds', () => {
    const cache = new PromptCache(2, 2);
    for (const run of ['a', 'b', 'c']) cache.openAi(run, [{ text: 'p' }]);
    expect(cache.openAi('a', [{ text: 'p' }]).readChars).toBe(0);
    expect(cache.openAi('c', [{ text: 'p' }]).readChars).toBe(1);
    for (const text of ['x', 'y', 'z']) cache.openAi('d', [{ text }]);
    expect(cache.openAi('d', [{ text: 'x' }]).readChars).toBe(0);
    expect(cache.openAi('d', [{ text: 'z' }, { text: 'more' }]).readChars).toBe(1);
  });
});

describe('the coder against an executor that answers at random', () => {
  it('never throws and ends its step (finish or no call) instead of looping', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const outputs = [
      '',
      'No files.',
      'src/add-greeting-helper.ts',
      '   1\tx\n[Lines 1–1 of 9.]',
      'garbage\n\t\t',
      '(empty file)',
    ];
    const info = parsePrompt(
      systemFor('coder'),
      coderPrompt(GREETING, { subtask: { index: 2, total: 3, title: 'x' } }),
    );
    for (const scenario of [
      '',
      'check-fix=fixed.txt',
      'edit-miss@coder',
      'big-edit=src/big.ts',
      'tool-error@coder',
    ]) {
      for (let run = 0; run < 30; run++) {
        const turns: PastTurn[] = [];
        const conversation: ToolConversation = {
          protocol: 'anthropic',
          tools: ['list_files', 'read_file', 'search', 'edit_file', 'write_file', 'run_check', 'finish'],
          choice: 'auto',
          turns,
          notes: [],
        };
        let ended = false;
        for (let i = 0; i < 60 && !ended; i++) {
          const turn = toolTurnFor(info, parseScenario(scenario), conversation);
          ended = turn.calls.length === 0 || turn.calls.some((c) => c.name === 'finish');
          turns.push({
            text: turn.text,
            calls: turn.calls.map((c, j) => ({
              id: `t${i}-${j}`,
              name: c.name,
              input: c.input,
              arguments: JSON.stringify(c.input),
              result: { ok: random() < 0.5, content: outputs[Math.floor(random() * outputs.length)]! },
            })),
          });
        }
        expect(ended, `${scenario} run ${run}`).toBe(true);
      }
    }
  });
});
