// `npm run simulator`: AutoCoder's offline agent simulator on its own port, for the app (ANTHROPIC_BASE_URL) or
// for trying the Anthropic / OpenAI SDKs against it. Scripted answers, not an AI model.
import { register } from 'tsx/esm/api';

register();
const { startSimulator } = await import('../src/server/modules/llm/simulator/server.ts');

const port = Number(process.env.SIMULATOR_PORT ?? 4010);
const host = process.env.SIMULATOR_HOST ?? '127.0.0.1';
const chunkDelayMs = Number(process.env.SIMULATOR_CHUNK_DELAY_MS ?? 15);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`SIMULATOR_PORT must be a port number, not "${process.env.SIMULATOR_PORT}"`);
  process.exit(1);
}

const simulator = await startSimulator({ port, host, chunkDelayMs });
console.log(`AutoCoder simulator (scripted answers, not an AI model) listening on ${simulator.url}

  Anthropic SDK / this app:   ANTHROPIC_BASE_URL=${simulator.url} ANTHROPIC_API_KEY=any-value
  OpenAI-compatible clients:  base URL ${simulator.url}/v1, any key
  Agents are recognised by the system prompt's first line: "# Role: planner|coder|reviewer".
  Scenarios: header x-simulator-scenario, or "[simulate: …]" in the prompt, e.g.
    review-fails=2, error=429@coder x2, stream-error=529@reviewer, malformed@planner, drop@coder, slow=50
  Per-run counters follow the x-autocoder-run-id header.
`);

simulator.events.on('request', ({ path, agent, runKey, fault }) => {
  console.log(
    `${new Date().toISOString()} ${path} ${agent ?? '(no role)'} run=${runKey}${fault ? ` fault=${fault}` : ''}`,
  );
});

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    simulator.close().then(() => process.exit(0));
  });
}
