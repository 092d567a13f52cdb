import path from 'node:path';
import { writeService } from '@/server/modules/services/testing/fixture.js';
import { repositoryPath } from '@/server/modules/workspace/repository.js';
import { TestClient } from '@/server/testing/test-app.js';
import { SLEEPER } from './error-world.js';
import { get, id, post, q, type Recipe, type Recipes } from './recipe-kit.js';

const password = 'correct horse battery';
const newEmail = () => `recipe-${id()}@example.com`;
/** A well-formed workspace id (a ULID) that names no workspace. */
const NO_WORKSPACE = '01ARZ3NDEKTSV4RRFFQ69G5FAV';

/** Every route of a project answers PROJECT_NOT_FOUND for an id nobody has. */
const projectNotFound =
  (method: string, suffix = '', body?: unknown): Recipe =>
  (w) =>
    w.owner.client.request(method, `/api/projects/${id()}${suffix}`, body);

/** A service of the owner's checkout: `webapp` (passive), `sleeper` and `sleeper2` (no port). */
const service =
  (method: string, name: string, action = ''): Recipe =>
  async (w) =>
    w.owner.client.request(method, `${(await w.servicesWorkspace()).api}/${name}${action}`);

const inNoWorkspace =
  (method: string, action: string): Recipe =>
  (w) =>
    w.owner.client.request(method, `/api/workspaces/${NO_WORKSPACE}/services/sleeper${action}`);

const serviceLookups = (method: string, action = '') => ({
  WORKSPACE_NOT_FOUND: inNoWorkspace(method, action),
  service_not_found: service(method, 'nope', action),
  VALIDATION_ERROR: service(method, '.hidden', action),
});

/** Accounts, agents' coordination, the graph, tokens, projects and services. */
export const PROJECT_RECIPES: Recipes = {
  register: {
    EMAIL_TAKEN: async (w) => {
      const email = newEmail();
      await w.anonymous.post('/api/auth/register', { email, password });
      return w.anonymous.post('/api/auth/register', { email, password });
    },
    RATE_LIMITED: (w) =>
      new TestClient(w.rateLimited()).post('/api/auth/register', { email: newEmail(), password }),
  },
  login: {
    INVALID_CREDENTIALS: (w) => w.anonymous.post('/api/auth/login', { email: newEmail(), password }),
    RATE_LIMITED: (w) =>
      new TestClient(w.rateLimited()).post('/api/auth/login', { email: newEmail(), password }),
  },
  getMetrics: { NOT_FOUND: (w) => w.anonymous.get('/api/metrics') },

  checkStatus: {
    REPO_NOT_FOUND: (w) =>
      post(w.owner, '/api/check_status', { repo_url: w.cloneUrl(id()), branch: 'main', file_paths: [] }),
  },
  postStatus: {
    REPO_NOT_FOUND: (w) =>
      post(w.owner, '/api/post_status', {
        repo_url: w.cloneUrl(id()),
        branch: 'main',
        file_paths: ['src/a.ts'],
        status: 'READING',
        message: 'Reading the file',
      }),
  },
  getImportGraph: {
    VALIDATION_ERROR: (w) => get(w.owner, '/api/graph?branch=main'),
    REPO_NOT_FOUND: (w) => get(w.owner, `/api/graph?repo_url=${q(w.cloneUrl(id()))}&branch=main`),
    BRANCH_NOT_FOUND: (w) =>
      get(w.owner, `/api/graph?repo_url=${q(w.cloneUrl(w.owner.projectId))}&branch=no-such-branch`),
  },
  revokeAgentToken: { NOT_FOUND: (w) => w.owner.client.delete(`/api/tokens/${id()}`) },

  createProject: {
    IMPORT_PATH_NOT_ALLOWED: (w) => post(w.owner, '/api/projects', { name: 'Refused', importPath: '/etc' }),
    ADDRESS_NOT_ALLOWED: (w) =>
      post(w.owner, '/api/projects', { name: 'Refused', repoUrl: 'http://127.0.0.1:9/repo.git' }),
    REPO_IMPORT_FAILED: (w) =>
      post(w.owner, '/api/projects', { name: 'Missing', importPath: path.join(w.importRoot, 'missing') }),
  },
  getProject: { PROJECT_NOT_FOUND: projectNotFound('GET') },
  updateProject: { PROJECT_NOT_FOUND: projectNotFound('PATCH', '', { name: 'Renamed' }) },
  deleteProject: {
    PROJECT_NOT_FOUND: projectNotFound('DELETE'),
    PIPELINE_ACTIVE: async (w) => {
      const user = await w.user();
      await w.run(await w.task(user, 'building'), { status: 'paused' });
      return user.client.delete(`/api/projects/${user.projectId}`);
    },
    LAST_PROJECT: async (w) => {
      const user = await w.user();
      return user.client.delete(`/api/projects/${user.projectId}`);
    },
  },
  getProjectTree: { PROJECT_NOT_FOUND: projectNotFound('GET', '/tree') },
  getProjectFile: {
    PROJECT_NOT_FOUND: projectNotFound('GET', '/file?path=README.md'),
    INVALID_PATH: (w) =>
      get(w.owner, `/api/projects/${w.owner.projectId}/file?path=${q('../../etc/passwd')}`),
    FILE_NOT_FOUND: (w) => get(w.owner, `/api/projects/${w.owner.projectId}/file?path=missing.txt`),
  },
  listProjectLocks: { PROJECT_NOT_FOUND: projectNotFound('GET', '/locks') },
  listProjectActivity: { PROJECT_NOT_FOUND: projectNotFound('GET', '/activity') },
  listWorkspaces: { PROJECT_NOT_FOUND: projectNotFound('GET', '/workspaces') },
  getProjectSetup: { PROJECT_NOT_FOUND: projectNotFound('GET', '/setup') },
  clearSetupCache: { PROJECT_NOT_FOUND: projectNotFound('DELETE', '/setup/cache') },
  streamProjectEvents: { PROJECT_NOT_FOUND: (w) => get(w.owner, `/api/sse/projects/${id()}`) },

  listServices: { WORKSPACE_NOT_FOUND: (w) => get(w.owner, `/api/workspaces/${NO_WORKSPACE}/services`) },
  getService: serviceLookups('GET'),
  startService: {
    ...serviceLookups('POST', '/start'),
    service_is_passive: service('POST', 'webapp', '/start'),
    service_already_running: async (w) => {
      await w.sleeperRunning();
      return service('POST', 'sleeper', '/start')(w);
    },
    TOO_MANY_SERVICES: async (w) => {
      await w.sleeperRunning();
      return service('POST', 'sleeper2', '/start')(w);
    },
    SANDBOX_DISABLED: async (w) => {
      const off = await w.otherApp({ sandboxMode: 'off' });
      const user = await w.user(off.app);
      await writeService(repositoryPath(off.deps.dataDir, user.projectId), 'sleeper', SLEEPER);
      return post(user, `/api/workspaces/${await w.workspaceOf(user)}/services/sleeper/start`);
    },
  },
  stopService: {
    ...serviceLookups('POST', '/stop'),
    service_is_passive: service('POST', 'webapp', '/stop'),
    service_not_running: service('POST', 'sleeper2', '/stop'),
  },
  streamServiceOutput: {
    ...serviceLookups('GET', '/output'),
    service_is_passive: service('GET', 'webapp', '/output'),
  },
  createServicePreview: {
    ...serviceLookups('POST', '/preview'),
    service_no_port: service('POST', 'sleeper2', '/preview'),
  },
};
