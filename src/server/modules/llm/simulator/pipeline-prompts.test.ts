// The simulator against the pipeline's real prompt builders: if the prompts change shape, this says so.
import { describe, expect, it } from 'vitest';
import { fileChangesSchema, reviewResultSchema, subtaskListSchema } from '@/contracts/pipeline.js';
import {
  buildCoderSystemPrompt,
  buildCoderUserPrompt,
} from '@/server/modules/pipeline/prompts/coder-prompt.js';
import {
  buildPlannerSystemPrompt,
  buildPlannerUserPrompt,
} from '@/server/modules/pipeline/prompts/planner-prompt.js';
import {
  buildReviewerSystemPrompt,
  buildReviewerUserPrompt,
} from '@/server/modules/pipeline/prompts/reviewer-prompt.js';
import { answerFor } from './agents.js';
import { parsePrompt } from './prompt.js';
import { jsonOf } from './prompt-fixtures.js';
import { parseScenario } from './scenario.js';

const task = {
  title: 'Add greeting helper',
  category: 'test',
  description: 'Greet by name.\n\nKeep it small.',
};

describe('simulator reading the pipeline prompts', () => {
  it('recognises each agent and the task', () => {
    const info = parsePrompt(
      buildPlannerSystemPrompt(),
      buildPlannerUserPrompt({ task, repoMap: 'src/\n  a.ts' }),
    );
    expect(info.agent).toBe('planner');
    expect(info.task).toEqual({ title: task.title, category: 'test', description: task.description });
    expect(parsePrompt(buildCoderSystemPrompt(), '').agent).toBe('coder');
    expect(parsePrompt(buildReviewerSystemPrompt(), '').agent).toBe('reviewer');
  });

  it('plans, codes each subtask on the current files, reviews and fixes with valid outputs', () => {
    const scenario = parseScenario('review-fails=1');
    const plan = subtaskListSchema.parse(
      jsonOf(
        answerFor(
          parsePrompt(buildPlannerSystemPrompt(), buildPlannerUserPrompt({ task, repoMap: '' })),
          scenario,
        ),
      ),
    );
    const files = new Map<string, string>();
    for (const [i, subtask] of plan.subtasks.entries()) {
      const prompt = buildCoderUserPrompt({
        task,
        subtask,
        subtaskIndex: i + 1,
        subtaskCount: plan.subtasks.length,
        previousOutputs: [],
        currentFiles: (subtask.files ?? [])
          .filter((p) => files.has(p))
          .map((path) => ({
            path,
            content: files.get(path)!,
            truncated: false,
            size: Buffer.byteLength(files.get(path)!),
          })),
      });
      const out = fileChangesSchema.parse(
        jsonOf(answerFor(parsePrompt(buildCoderSystemPrompt(), prompt), scenario)),
      );
      expect(out.files.map((f) => f.filePath)).toEqual(subtask.files);
      for (const f of out.files) files.set(f.filePath, f.content);
    }
    expect([...files.keys()]).toEqual(['src/add-greeting-helper.ts', 'tests/add-greeting-helper.test.ts']);

    const review = (iteration: number) =>
      reviewResultSchema.parse(
        jsonOf(
          answerFor(
            parsePrompt(
              buildReviewerSystemPrompt(),
              buildReviewerUserPrompt({
                task,
                subtasks: plan.subtasks,
                iteration,
                changedFiles: [...files.keys()],
                diff: '+x',
              }),
            ),
            scenario,
          ),
        ),
      );
    const failed = review(0);
    expect(failed.passed).toBe(false);
    expect(failed.findings[0]!.file).toBe('src/add-greeting-helper.ts');

    const main = files.get('src/add-greeting-helper.ts')!;
    const fixPrompt = buildCoderUserPrompt({
      task,
      subtask: null,
      iteration: 1,
      reviewFindings: failed,
      previousOutputs: [],
      currentFiles: [
        {
          path: 'src/add-greeting-helper.ts',
          content: main,
          truncated: false,
          size: Buffer.byteLength(main),
        },
      ],
    });
    const fixed = fileChangesSchema.parse(
      jsonOf(answerFor(parsePrompt(buildCoderSystemPrompt(), fixPrompt), scenario)),
    );
    expect(fixed.files).toHaveLength(1);
    expect(fixed.files[0]!.content.startsWith(main)).toBe(true);
    expect(fixed.files[0]!.content).toContain(failed.findings[0]!.message);
    expect(review(1).passed).toBe(true);
  });

  it('with check-fix=<path>, creates that file when a fix prompt shows a failing check, and only then', () => {
    const scenario = parseScenario('check-fix=fixed.txt');
    expect(scenario).toMatchObject({ checkFix: 'fixed.txt', invalid: [] });
    const fix = (failedCheck?: { summary: string; tail: string }) =>
      fileChangesSchema
        .parse(
          jsonOf(
            answerFor(
              parsePrompt(
                buildCoderSystemPrompt(),
                buildCoderUserPrompt({
                  task,
                  subtask: null,
                  iteration: 1,
                  previousOutputs: [],
                  currentFiles: [],
                  ...(failedCheck ? { failedCheck } : {}),
                }),
              ),
              scenario,
            ),
          ),
        )
        .files.map((f) => f.filePath);
    expect(fix({ summary: 'The check failed with exit code 3', tail: 'fixed.txt is missing\n' })).toContain(
      'fixed.txt',
    );
    expect(fix()).not.toContain('fixed.txt');
    expect(parseScenario('check-fix=../outside.txt').invalid).toEqual(['check-fix=../outside.txt']);
  });

  it('answers the person’s line comments in fix mode, in its notes and in the files', () => {
    const prompt = buildCoderUserPrompt({
      task,
      subtask: null,
      iteration: 1,
      previousOutputs: [],
      currentFiles: [
        { path: 'src/greet.ts', content: 'export const greet = 1;\n', truncated: false, size: 24 },
      ],
      comments: [{ path: 'src/greet.ts', line: 1, body: 'Name it\ngreetPerson.' }],
    });
    const info = parsePrompt(buildCoderSystemPrompt(), prompt);
    expect(info.comments).toEqual(['src/greet.ts:1 — Name it greetPerson.']);
    const answer = answerFor(info, parseScenario(''));
    expect(answer.split('\n')[0]).toContain('Line comments answered: src/greet.ts:1 — Name it greetPerson.');
    const files = fileChangesSchema.parse(jsonOf(answer)).files;
    expect(files.find((f) => f.filePath === 'src/greet.ts')?.content).toContain(
      'line comment src/greet.ts:1 — Name it greetPerson.',
    );
  });
});
