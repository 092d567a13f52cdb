// The floor of the coordination part (bench/coordination.ts): the same 50 agents over REST, in the
// same closed loop, against a bare node HTTP server in a process of its own that reads each body and
// answers a canned check_status / post_status answer of the real size, with no auth, lock, lookup or
// event. No server written in node answers these calls faster on the same machine, so its latency
// is what the machine alone costs at this load: the real server's figures are read against it. Then
// the same agents at the fixed rate (`runPaced`): what waits the machine itself adds to a call that
// costs next to nothing, the reference for the aim's fixed-rate p99.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { restAgent } from './coordination-agents.js';
import type { CoordinationConfig, TransportResult } from './coordination-config.js';
import { runPaced, runTransport, type Workload } from './coordination-load.js';
import { baseEnv } from './lib/common.js';
import { spawnNodeListening } from './lib/processes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const FLOOR_SERVER = `
const http = require('node:http');
const lock = { file_path: 'src/shared/helper-0.ts', user: '0f6c1d2e-1111-4222-8333-944455556666', user_name: 'Agent 1', status: 'WRITING', lock_type: 'DIRECT', message: 'Agent 1 edits its module and the shared helper.', timestamp: '2026-11-27T04:00:00.000Z' };
const check = JSON.stringify({ status: 'CONFLICT', repo_head: 'a'.repeat(40), locks: [lock], warnings: [], orchestration: { type: 'orchestration_command', action: 'SWITCH_TASK', command: null, reason: 'src/shared/helper-0.ts is being written by Agent 1: Agent 1 edits its module and the shared helper.', metadata: {} } });
const post = JSON.stringify({ success: true, orchestration: { type: 'orchestration_command', action: 'PROCEED', command: null, reason: 'Locks taken on 4 files.', metadata: { locked: ['src/agents/agent-0/a.ts', 'src/agents/agent-0/b.ts', 'src/agents/agent-0/c.ts', 'src/shared/helper-0.ts'] } } });
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(req.url === '/api/check_status' ? check : post);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log('FLOOR ' + server.address().port));
`;

/** The agents' REST calls against the bare server: the closed loop, then the fixed rate. */
export async function benchHttpFloor(config: CoordinationConfig): Promise<TransportResult> {
  const { port, spawned } = await spawnNodeListening(FLOOR_SERVER, 'FLOOR', root, baseEnv());
  try {
    const agents = Array.from({ length: config.agents }, () => restAgent(port, 'acat_floor'));
    const work: Workload = {
      repoUrl: `http://127.0.0.1:${port}/git/floor.git`,
      head: 'a'.repeat(40),
      config,
    };
    try {
      const closed = await runTransport('rest', agents, work, spawned.pid);
      return { ...closed, paced: await runPaced(agents, work, spawned.pid) };
    } finally {
      await Promise.all(agents.map((agent) => agent.close()));
    }
  } finally {
    await spawned.stop();
  }
}
