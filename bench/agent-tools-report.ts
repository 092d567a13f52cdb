// The agent-tools part's tables and aims (bench/agent-tools.ts), and the part as parts.ts runs it.
import { type AgentToolsResult, agentToolsConfig, benchAgentTools } from './agent-tools.js';
import type { Percentiles } from './agent-tools-micro.js';
import type { Aim } from './lib/common.js';
import { int, ms, table } from './lib/format.js';

/** The part as bench/parts.ts runs it (a PartRun). */
export async function runAgentToolsPart(): Promise<{
  aims: Aim[];
  print: () => void;
  json: () => Record<string, unknown>;
}> {
  const config = agentToolsConfig();
  console.log(
    `\n=== Agent tools: three tasks on a 3,000-file repository, ${config.runs} runs each per protocol on the ` +
      `stand-in endpoint; each tool ${config.calls} times directly`,
  );
  const result = await benchAgentTools(config);
  return {
    aims: agentToolsAims(result),
    print: () => {
      console.log('\n--- Agent tools');
      printAgentTools(result);
    },
    json: () => ({ agentTools: { config, ...result } }),
  };
}

const TOOL_ORDER = ['list_files', 'search', 'read_file', 'edit_file', 'write_file', 'run_check', 'finish'];
const byToolOrder = (a: string, b: string) => TOOL_ORDER.indexOf(a) - TOOL_ORDER.indexOf(b);
const pair = (figures: Percentiles | undefined) =>
  figures ? `${ms(figures.p50)} / ${ms(figures.p99)}` : '–';

export function printAgentTools(result: AgentToolsResult): void {
  const { repository } = result;
  console.log(
    `A generated repository of ${int(repository.files)} files (${int(repository.bytes / 1024)} KB), ` +
      `one TypeScript file of ${int(repository.bigFileLines)} lines. Tokens are the stand-in endpoint's ` +
      'counts (fixed per turn: 100 in, 40 of them cached, 20 out), not a model\'s; "request KB" is what ' +
      'AutoCoder sent it per run.',
  );
  console.log(
    '\nPer task and protocol, per run (tool times: AutoCoder only, between onToolCall and onToolResult)',
  );
  console.log(
    table(
      ['task', 'protocol', 'verified', 'calls', 'turns', 'tokens in/out', 'request KB', 'step p50/p99 ms'],
      result.tasks.map((row) => [
        row.title,
        row.protocol,
        `${row.verified}/${row.runs}`,
        String(row.toolCalls),
        String(row.turns),
        `${int(row.tokens.sent)}/${int(row.tokens.received)}`,
        row.requestKb.toFixed(1),
        pair(row.stepMs),
      ]),
    ),
  );
  const tools = [...new Set(result.tasks.flatMap((row) => Object.keys(row.tools)))].sort(byToolOrder);
  console.log('\nTime per tool call in the tasks, p50 / p99 ms');
  console.log(
    table(
      ['task', 'protocol', ...tools],
      result.tasks.map((row) => [row.title, row.protocol, ...tools.map((tool) => pair(row.tools[tool]))]),
    ),
  );
  console.log(
    table(
      ['all tasks and protocols', 'calls', 'p50 ms', 'p99 ms', 'max ms'],
      Object.entries(result.toolsInTasks)
        .sort(([a], [b]) => byToolOrder(a, b))
        .map(([tool, figures]) => [
          tool,
          String(figures.count),
          ms(figures.p50),
          ms(figures.p99),
          ms(figures.max),
        ]),
    ),
  );
  for (const row of result.tasks.filter((entry) => entry.problems.length > 0))
    console.log(`  ${row.title} (${row.protocol}): ${row.problems.join('; ')}`);
  console.log('\nEach tool called directly on the repository (AutoCoder only, no model)');
  console.log(
    table(
      ['call', 'calls', 'p50 ms', 'p99 ms', 'max ms', 'aim'],
      result.micro.map((row) => [
        row.label,
        String(row.count),
        ms(row.p50),
        ms(row.p99),
        ms(row.max),
        row.aimMs === null ? 'reference' : `< ${row.aimMs} ms`,
      ]),
    ),
  );
  for (const row of result.micro.filter((entry) => entry.background))
    console.log(
      `  ${row.label}: then, off the call, the walk and stamps ${pair(row.background)} ms (p50 / p99)`,
    );
  const cache = result.listingCache;
  console.log(`  the listing cache over the part: ${cache.hits} listings from it, ${cache.fills} from git`);
}

export function agentToolsAims(result: AgentToolsResult): Aim[] {
  const aims: Aim[] = result.micro
    .filter((row) => row.aimMs !== null)
    .map((row) => {
      const aim = row.aimMs ?? 0;
      return {
        name: `agent tools: ${row.label}, p99 (p50 ${ms(row.p50)} ms)`,
        target: `< ${aim} ms at p50 and p99`,
        actual: row.p99,
        unit: 'ms',
        met: row.p50 < aim && row.p99 < aim,
        part: 'agent-tools' as const,
      };
    });
  const runs = result.tasks.reduce((sum, row) => sum + row.runs, 0);
  const verified = result.tasks.reduce((sum, row) => sum + row.verified, 0);
  const big = result.tasks.filter((row) => row.task === 'big-file-function');
  const bigRuns = big.reduce((sum, row) => sum + row.runs, 0);
  const bigVerified = big.reduce((sum, row) => sum + row.verified, 0);
  aims.push(
    {
      name: "agent tools: the big file's diff is exactly the intended line",
      target: 'every run',
      actual: bigVerified,
      unit: `of ${bigRuns} runs`,
      met: bigRuns > 0 && bigVerified === bigRuns,
      part: 'agent-tools',
    },
    {
      name: "agent tools: every task's worktree as intended",
      target: 'every run',
      actual: verified,
      unit: `of ${runs} runs`,
      met: runs > 0 && verified === runs,
      part: 'agent-tools',
    },
  );
  return aims;
}
