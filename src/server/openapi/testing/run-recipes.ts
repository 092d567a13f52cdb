import type { ErrorWorld, User } from './error-world.js';
import { get, id, post, type Recipe, type Recipes } from './recipe-kit.js';

const ANTHROPIC_KEY = { 'x-anthropic-key': `sk-ant-${'a'.repeat(40)}` };
/** An OpenAI-compatible endpoint on loopback: refused, the server being reachable from elsewhere. */
const LOOPBACK_OPENAI = { provider: 'openai', openaiBaseUrl: 'http://127.0.0.1:9/v1' } as const;

const taskNotFound =
  (method: string, url: (taskId: string) => string, body?: unknown): Recipe =>
  (w) =>
    w.owner.client.request(method, url(id()), body);

/** A fresh user's task in `status` whose latest run is `run` (a user's own: their run slots stay free). */
async function taskWithRun(
  w: ErrorWorld,
  status: Parameters<ErrorWorld['task']>[1],
  run: Parameters<ErrorWorld['run']>[1],
  coderEngine?: 'codex',
): Promise<{ user: User; taskId: string; runId: string }> {
  const user = await w.user();
  const taskId = await w.task(user, status, coderEngine);
  return { user, taskId, runId: await w.run(taskId, run) };
}

/** Where a route that sets a run going starts from: the task's status and its latest run. */
interface StartState {
  url: (taskId: string) => string;
  status: 'backlog' | 'building' | 'review';
  run?: 'paused' | 'passed';
  body?: object;
}

/** A fresh user's task in the state's status (and run), asked to go with `provider`. */
const refusedRun =
  (s: StartState, provider: 'anthropic' | 'openai', body: object, headers = {}, engine?: 'codex'): Recipe =>
  async (w) => {
    const user = await w.user();
    const taskId = await w.task(user, s.status, engine);
    if (s.run) await w.run(taskId, { status: s.run, provider });
    return post(user, s.url(taskId), { ...s.body, ...(s.run ? {} : { provider }), ...body }, headers);
  };
const startWithoutTask =
  (s: StartState): Recipe =>
  (w) =>
    post(w.owner, s.url(id()), { provider: 'simulator', ...s.body });
const startWithoutSlots =
  (s: StartState): Recipe =>
  async (w) => {
    const user = await w.userWithoutSlots();
    const taskId = await w.task(user, s.status);
    if (s.run) await w.run(taskId, { status: s.run });
    return post(user, s.url(taskId), { provider: 'simulator', ...s.body });
  };
const startFromDone =
  (s: StartState): Recipe =>
  async (w) =>
    post(w.owner, s.url(await w.task(w.owner, 'done')), { provider: 'simulator', ...s.body });

/**
 * What refuses a run before it goes (start, retry, request changes): the task, its state, the
 * provider's key or address, the coder engine, and the user's run slots.
 */
function runStartRecipes(s: StartState): Recipes[string] {
  return {
    TASK_NOT_FOUND: startWithoutTask(s),
    INVALID_PIPELINE_STATE: startFromDone(s),
    INVALID_API_KEY: refusedRun(s, 'anthropic', {}),
    ADDRESS_NOT_ALLOWED: refusedRun(
      s,
      'openai',
      s.run ? { openaiBaseUrl: LOOPBACK_OPENAI.openaiBaseUrl } : LOOPBACK_OPENAI,
    ),
    ENGINE_UNAVAILABLE: refusedRun(s, 'anthropic', {}, ANTHROPIC_KEY, 'codex'),
    TOO_MANY_PIPELINES: startWithoutSlots(s),
  };
}

/** A run of the owner's whose diff is `base..branch`. */
const diffOf =
  (suffix: string, run: (w: ErrorWorld) => Promise<{ branch: string | null; baseCommit: string | null }>) =>
  async (w: ErrorWorld) => {
    const runId = await w.run(await w.task(w.owner, 'review'), { status: 'passed', ...(await run(w)) });
    return get(w.owner, `/api/pipeline/runs/${runId}/diff${suffix}`);
  };
const diffOfNoRun =
  (suffix: string): Recipe =>
  (w) =>
    get(w.owner, `/api/pipeline/runs/${id()}/diff${suffix}`);
const diffRecipes = (suffix: string) => ({
  RUN_NOT_FOUND: diffOfNoRun(suffix),
  DIFF_NOT_READY: diffOf(suffix, async () => ({ branch: null, baseCommit: null })),
  RUN_BRANCH_GONE: diffOf(suffix, async (w) => ({
    branch: 'gone',
    baseCommit: await w.head(w.owner.projectId),
  })),
});

/** Tasks, runs, their diffs and comments. */
export const RUN_RECIPES: Recipes = {
  listTasks: {
    VALIDATION_ERROR: (w) => get(w.owner, '/api/tasks?projectId=not-a-uuid'),
    PROJECT_NOT_FOUND: (w) => get(w.owner, `/api/tasks?projectId=${id()}`),
  },
  createTask: { PROJECT_NOT_FOUND: (w) => post(w.owner, '/api/tasks', { projectId: id(), title: 'Lost' }) },
  getTask: { TASK_NOT_FOUND: taskNotFound('GET', (taskId) => `/api/tasks/${taskId}`) },
  updateTask: { TASK_NOT_FOUND: taskNotFound('PATCH', (taskId) => `/api/tasks/${taskId}`, { title: 'x' }) },
  deleteTask: {
    TASK_NOT_FOUND: taskNotFound('DELETE', (taskId) => `/api/tasks/${taskId}`),
    PIPELINE_ACTIVE: async (w) => {
      const { user, taskId } = await taskWithRun(w, 'building', { status: 'paused' });
      return user.client.delete(`/api/tasks/${taskId}`);
    },
  },
  moveTask: {
    TASK_NOT_FOUND: taskNotFound('PATCH', (taskId) => `/api/tasks/${taskId}/status`, { status: 'spec' }),
    INVALID_TRANSITION: async (w) =>
      w.owner.client.patch(`/api/tasks/${await w.task()}/status`, { status: 'review' }),
  },
  streamTaskEvents: { TASK_NOT_FOUND: (w) => get(w.owner, `/api/sse/${id()}`) },

  startPipeline: {
    ...runStartRecipes({ url: (taskId) => `/api/tasks/${taskId}/start-pipeline`, status: 'backlog' }),
    PIPELINE_ACTIVE: async (w) => {
      const { user, taskId } = await taskWithRun(w, 'backlog', { status: 'paused' });
      return post(user, `/api/tasks/${taskId}/start-pipeline`, { provider: 'simulator' });
    },
  },
  retryRun: {
    ...runStartRecipes({
      url: (taskId) => `/api/pipeline/${taskId}/retry`,
      status: 'building',
      run: 'paused',
    }),
    BUDGET_EXCEEDED: async (w) => {
      const user = await w.user();
      await user.client.patch(`/api/projects/${user.projectId}`, { taskTokenBudget: 10 });
      const taskId = await w.task(user, 'building');
      await w.run(taskId, {
        status: 'paused',
        errorDetails: {
          type: 'budget_exceeded',
          message: 'The next call could pass the budget',
          failedAgent: 'coder',
          retryable: true,
          retryCount: 0,
          maxRetries: 3,
          timestamp: 0,
          budget: { spentTokens: 0, budgetTokens: 10, callInputTokens: 1000, callMaxOutputTokens: 1000 },
        },
      });
      return post(user, `/api/pipeline/${taskId}/retry`);
    },
  },
  requestChanges: runStartRecipes({
    url: (taskId) => `/api/pipeline/${taskId}/request-changes`,
    status: 'review',
    run: 'passed',
    body: { feedback: 'Name it greet' },
  }),
  cancelRun: {
    TASK_NOT_FOUND: taskNotFound('POST', (taskId) => `/api/pipeline/${taskId}/cancel`),
    INVALID_PIPELINE_STATE: async (w) => post(w.owner, `/api/pipeline/${await w.task()}/cancel`),
  },
  approveRun: {
    TASK_NOT_FOUND: taskNotFound('POST', (taskId) => `/api/pipeline/${taskId}/approve`),
    INVALID_PIPELINE_STATE: async (w) => post(w.owner, `/api/pipeline/${await w.task()}/approve`),
    NOT_FOUND: async (w) => {
      const { user, taskId } = await taskWithRun(w, 'review', { status: 'passed', branch: 'gone' });
      return post(user, `/api/pipeline/${taskId}/approve`);
    },
    MERGE_CONFLICT: async (w) => {
      const user = await w.user();
      await w.commit(user.projectId, 'theirs', { 'README.md': 'theirs\n' });
      await w.commit(user.projectId, 'main', { 'README.md': 'ours\n' });
      const taskId = await w.task(user, 'review');
      await w.run(taskId, { status: 'passed', branch: 'theirs' });
      return post(user, `/api/pipeline/${taskId}/approve`);
    },
  },
  revertApproval: {
    TASK_NOT_FOUND: taskNotFound('POST', (taskId) => `/api/pipeline/${taskId}/revert`),
    INVALID_PIPELINE_STATE: async (w) => post(w.owner, `/api/pipeline/${await w.task()}/revert`),
    NOT_FOUND: async (w) => {
      const user = await w.user();
      const head = await w.head(user.projectId);
      const taskId = await w.task(user, 'done');
      await w.run(taskId, { status: 'passed', mergeCommit: head, mergedOnto: head });
      await w.setDefaultBranch(user.projectId, 'gone');
      return post(user, `/api/pipeline/${taskId}/revert`);
    },
    MERGE_CONFLICT: async (w) => {
      const user = await w.user();
      const before = await w.head(user.projectId);
      const approved = await w.commit(user.projectId, 'main', { 'README.md': 'approved\n' });
      await w.commit(user.projectId, 'main', { 'README.md': 'changed since\n' });
      const taskId = await w.task(user, 'done');
      await w.run(taskId, { status: 'passed', mergeCommit: approved, mergedOnto: before });
      return post(user, `/api/pipeline/${taskId}/revert`);
    },
  },
  getPipelineStatus: { TASK_NOT_FOUND: taskNotFound('GET', (taskId) => `/api/pipeline/${taskId}/status`) },
  listRuns: { TASK_NOT_FOUND: taskNotFound('GET', (taskId) => `/api/pipeline/${taskId}/runs`) },

  listRunEvents: { RUN_NOT_FOUND: (w) => get(w.owner, `/api/pipeline/runs/${id()}/events`) },
  listReviewComments: { RUN_NOT_FOUND: (w) => get(w.owner, `/api/pipeline/runs/${id()}/comments`) },
  addReviewComment: {
    RUN_NOT_FOUND: (w) =>
      post(w.owner, `/api/pipeline/runs/${id()}/comments`, { path: 'a.ts', line: 1, body: 'x' }),
    INVALID_PATH: async (w) => {
      const runId = await w.run(await w.task(w.owner, 'review'), { status: 'passed' });
      return post(w.owner, `/api/pipeline/runs/${runId}/comments`, { path: '../a.ts', line: 1, body: 'x' });
    },
  },
  deleteReviewComment: {
    RUN_NOT_FOUND: (w) => w.owner.client.delete(`/api/pipeline/runs/${id()}/comments/${id()}`),
    NOT_FOUND: async (w) => {
      const runId = await w.run(await w.task(w.owner, 'review'), { status: 'passed' });
      return w.owner.client.delete(`/api/pipeline/runs/${runId}/comments/${id()}`);
    },
  },
  getRunDiff: diffRecipes(''),
  getRunDiffFile: {
    ...diffRecipes('/file?path=README.md'),
    DIFF_FILE_NOT_FOUND: diffOf('/file?path=README.md', async (w) => ({
      branch: 'main',
      baseCommit: await w.head(w.owner.projectId),
    })),
  },
};
