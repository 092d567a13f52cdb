import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentType } from '@/contracts/pipeline.js';
import { argumentPieces, buildCompletion, chunksOf } from './completion.js';
import { type EngineStep, engineCompletion, engineStepOf } from './engine-completion.js';
import { type CoderEngine, engineMarked } from './engine-prompts.js';
import { parsePrompt } from './prompt.js';
import { PromptCache } from './prompt-cache.js';
import {
  anthropicProtocol,
  type Completion,
  errorBody,
  openAiProtocol,
  type StreamProtocol,
} from './protocols.js';
import {
  BadRequest,
  hasCredentials,
  header,
  parseAnthropicRequest,
  parseOpenAiRequest,
  readJson,
  type SimRequest,
} from './request.js';
import { responsesProtocol } from './responses-protocol.js';
import { parseResponsesRequest } from './responses-request.js';
import { type Fault, FaultLedger, parseScenario, scenarioFromPrompt } from './scenario.js';

export interface SimulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** Pause between streamed chunks; a scenario's `slow=<ms>` overrides it. */
  chunkDelayMs?: number;
}

/** How a streamed answer ended, as the server saw it. */
export type StreamOutcome = 'completed' | 'client-closed' | 'dropped' | 'stream-error';

export interface SimulatorEvents {
  /** A request reached the answering stage (auth and body passed). */
  request: [
    {
      path: string;
      agent: AgentType | undefined;
      runKey: string;
      fault: string | undefined;
      /** The external coder engine whose step this request is a turn of (Claude Code, Codex). */
      engine?: CoderEngine;
    },
  ];
  'stream-end': [{ path: string; agent: AgentType | undefined; runKey: string; outcome: StreamOutcome }];
}

export interface SimulatorHandle {
  /** e.g. http://127.0.0.1:4010 — the Anthropic SDK's baseURL; the OpenAI SDK's is `${url}/v1`. */
  url: string;
  /** What the server saw; for tests and the CLI's log. */
  events: EventEmitter<SimulatorEvents>;
  close(): Promise<void>;
}

/** The run every request without `x-autocoder-run-id` counts against. */
const GLOBAL_RUN = 'global';
/** A 429's advice to the client. */
const RETRY_AFTER_SECONDS = '1';
/** A `huge=` answer streams in pieces this large (ASCII only, so slicing is safe). */
const HUGE_CHUNK = 16 * 1024;

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

function sendError(res: ServerResponse, status: number, message: string) {
  const headers: Record<string, string> = status === 429 ? { 'retry-after': RETRY_AFTER_SECONDS } : {};
  if (status === 529) headers['x-should-retry'] = 'true';
  sendJson(res, status, errorBody(status, message), headers);
}

/**
 * Starts AutoCoder's offline simulator: a local HTTP server speaking the Anthropic Messages API (and OpenAI
 * chat.completions) with scripted planner/coder/reviewer answers and scripted failures. Its output is not AI.
 * A request with `tools` is a turn of a tool-using conversation (tool-agents.ts): the answer is prose and
 * tool calls (tool_use blocks / tool_calls), decided from the conversation so far, with prompt-cache usage.
 */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const events = new EventEmitter<SimulatorEvents>();
  const ledger = new FaultLedger();
  const promptCache = new PromptCache();
  const active = new Set<AbortController>();
  let served = 0;

  async function stream(
    res: ServerResponse,
    protocol: StreamProtocol,
    completion: Completion,
    fault: Fault | undefined,
    delayMs: number,
    chunkChars?: number,
  ): Promise<StreamOutcome> {
    const closed = new AbortController();
    active.add(closed);
    res.on('close', () => closed.abort());
    const write = async (frame: string) => {
      if (closed.signal.aborted) return;
      if (!res.write(frame))
        await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
    };
    try {
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'request-id': completion.id,
      });
      for (const frame of protocol.start(completion)) await write(frame);
      const chunks =
        fault?.kind === 'huge'
          ? Array.from({ length: Math.ceil(completion.text.length / HUGE_CHUNK) }, (_, i) =>
              completion.text.slice(i * HUGE_CHUNK, (i + 1) * HUGE_CHUNK),
            )
          : chunksOf(completion.text, chunkChars);
      // The text's deltas, then the tool calls' frames (their arguments in pieces).
      const body: Array<() => string> = chunks.map((chunk) => () => protocol.delta(completion, chunk));
      if (completion.toolCalls?.length) {
        const pieces = completion.toolCalls.map((call) => argumentPieces(call.arguments, chunkChars));
        for (const frame of protocol.toolCalls(completion, pieces)) body.push(() => frame);
      }
      // Faults strike after about a third of the answer, so the client has seen some of it.
      const cut = Math.max(1, Math.floor(body.length / 3));
      for (const [i, frame] of body.entries()) {
        if (i === cut && fault?.kind === 'stream-error') {
          await write(
            protocol.error(fault.status, `Simulated ${fault.status} mid-stream (scenario "${fault.source}")`),
          );
          res.end();
          return 'stream-error';
        }
        if (i === cut && fault?.kind === 'drop') {
          res.socket?.destroy();
          return 'dropped';
        }
        if (delayMs > 0) await sleep(delayMs, undefined, { signal: closed.signal }).catch(() => undefined);
        else await new Promise((resolve) => setImmediate(resolve));
        if (closed.signal.aborted) return 'client-closed';
        await write(frame());
      }
      for (const frame of protocol.finish(completion)) await write(frame);
      if (closed.signal.aborted) return 'client-closed';
      res.end();
      return 'completed';
    } finally {
      active.delete(closed);
    }
  }

  async function answer(req: IncomingMessage, res: ServerResponse, path: string, sim: SimRequest) {
    // An external coder engine's turn of an AutoCoder step (Claude Code, Codex), or another of its requests.
    const responses = path.endsWith('/responses');
    const step = engineStepOf(sim);
    const engine = step !== undefined || responses || engineMarked(sim.system) !== undefined;
    const prompt = step?.prompt ?? sim.prompt;
    const scenarioText = header(req, 'x-simulator-scenario') ?? scenarioFromPrompt(prompt);
    const scenario = parseScenario(scenarioText);
    const info = step?.info ?? parsePrompt(sim.system, sim.prompt);
    const runKey = header(req, 'x-autocoder-run-id') ?? GLOBAL_RUN;
    const fault = ledger.take(runKey, info.agent, scenario.faults);
    events.emit('request', {
      path,
      agent: info.agent,
      runKey,
      fault: fault?.source,
      ...(step ? { engine: step.engine } : {}),
    });

    const streamed = sim.stream && fault?.kind !== 'error';
    if (fault?.kind === 'error' || (!sim.stream && fault?.kind === 'stream-error')) {
      sendError(res, fault.status, `Simulated ${fault.status} (scenario "${fault.source}")`);
      return;
    }
    served += 1;
    const openai = path.endsWith('/chat/completions');
    const completion = engine
      ? engineAnswer(sim, step, responses, scenario, fault, runKey)
      : buildCompletion({ sim, info, scenario, fault, served, openai, runKey, promptCache });
    const protocol = responses
      ? responsesProtocol()
      : openai
        ? openAiProtocol(sim.includeUsage)
        : anthropicProtocol;
    if (!streamed) {
      if (fault?.kind === 'drop') res.socket?.destroy();
      else sendJson(res, 200, protocol.message(completion), { 'request-id': completion.id });
      return;
    }
    const delayMs = scenario.slowMs ?? opts.chunkDelayMs ?? 0;
    const outcome = await stream(res, protocol, completion, fault, delayMs, scenario.chunkChars);
    events.emit('stream-end', { path, agent: info.agent, runKey, outcome });
  }

  function engineAnswer(
    sim: SimRequest,
    step: EngineStep | undefined,
    responses: boolean,
    scenario: ReturnType<typeof parseScenario>,
    fault: Fault | undefined,
    runKey: string,
  ) {
    const wire = responses ? 'responses' : 'anthropic';
    return engineCompletion({ sim, step, wire, scenario, fault, served, runKey, promptCache });
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    // The query is not part of the route (Claude Code posts to /v1/messages?beta=true).
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '') || '/';
    if ((req.method === 'GET' || req.method === 'HEAD') && (path === '/' || path === '/health')) {
      // Claude Code checks the endpoint with HEAD / before its first request.
      sendJson(res, 200, {
        name: 'autocoder-simulator',
        simulated: true,
        note: 'Scripted answers, not an AI model.',
      });
      return;
    }
    const anthropic = path === '/v1/messages';
    const openai = path === '/v1/chat/completions' || path === '/chat/completions';
    const responses = path === '/v1/responses' || path === '/responses';
    if (req.method !== 'POST' || (!anthropic && !openai && !responses)) {
      sendError(res, 404, `No route for ${req.method} ${path}`);
      return;
    }
    if (!hasCredentials(req)) {
      sendError(res, 401, 'Missing API key: send x-api-key or Authorization: Bearer');
      return;
    }
    try {
      const body = await readJson(req);
      const sim = anthropic
        ? parseAnthropicRequest(body)
        : responses
          ? parseResponsesRequest(body, (text) => engineMarked(text) !== undefined)
          : parseOpenAiRequest(body);
      await answer(req, res, path, sim);
    } catch (error) {
      if (res.headersSent) res.destroy();
      else if (error instanceof BadRequest) sendError(res, error.status, error.message);
      else sendError(res, 500, 'Simulator failure');
    }
  }

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    events,
    async close() {
      for (const controller of active) controller.abort();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
