// What the runs cost the machine: server memory, CPU of the server, its children and this process.
import os from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { childrenCpuMs, processCpuMs, processRssBytes, schedStatMs } from '../lib/common.js';
import { round } from '../lib/stats.js';

const loadAverage = () => os.loadavg().map((value) => round(value, 2));
const cpuPercent = (used: number, elapsed: number) => round((used / elapsed) * 100, 0);

/** The server's VmRSS now (idle), then its peak sampled every 100 ms until `stop`. */
export function sampleRss(pid: number) {
  const idleRssBytes = processRssBytes(pid);
  let peakRssBytes = idleRssBytes;
  let samples = 0;
  const sampler = setInterval(() => {
    const rss = processRssBytes(pid);
    if (rss === null) return;
    samples += 1;
    if (peakRssBytes === null || rss > peakRssBytes) peakRssBytes = rss;
  }, 100);
  return {
    stop() {
      clearInterval(sampler);
      return { idleRssBytes, peakRssBytes, samples };
    },
  };
}

/** CPU counters of the server, its reaped children, the simulator and this process's main thread. */
function cpuCounters(serverPid: number, simulatorPid: number | undefined) {
  return {
    server: processCpuMs(serverPid),
    simulator: simulatorPid === undefined ? null : processCpuMs(simulatorPid),
    serverSched: schedStatMs(serverPid),
    children: childrenCpuMs(serverPid),
    benchSched: schedStatMs('self'),
  };
}

/** Measures CPU from `start` to `stop`; `stop` gives the result's CPU figures. */
export function cpuMeter(serverPid: number, simulatorPid?: number) {
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  let before: ReturnType<typeof cpuCounters> | undefined;
  let benchCpuBefore = process.cpuUsage();
  let loadStart: number[] = [];
  let wallStart = 0;
  return {
    start() {
      loadStart = loadAverage();
      before = cpuCounters(serverPid, simulatorPid);
      benchCpuBefore = process.cpuUsage();
      loopDelay.enable();
      wallStart = performance.now();
    },
    stop() {
      const wallMs = performance.now() - wallStart;
      loopDelay.disable();
      const after = cpuCounters(serverPid, simulatorPid);
      const benchCpu = process.cpuUsage(benchCpuBefore);
      const loadEnd = loadAverage();
      const b = before ?? after;
      return {
        loadAverage: { start: loadStart, end: loadEnd },
        serverCpuPercent:
          b.server === null || after.server === null ? null : cpuPercent(after.server - b.server, wallMs),
        serverMainThread:
          b.serverSched && after.serverSched
            ? {
                runPercent: cpuPercent(after.serverSched.runMs - b.serverSched.runMs, wallMs),
                runQueueWaitPercent: cpuPercent(after.serverSched.waitMs - b.serverSched.waitMs, wallMs),
              }
            : null,
        serverChildrenCpuPercent:
          b.children === null || after.children === null
            ? null
            : cpuPercent(after.children - b.children, wallMs),
        simulatorCpuPercent:
          b.simulator === null || after.simulator === null
            ? null
            : cpuPercent(after.simulator - b.simulator, wallMs),
        benchCpuPercent: cpuPercent((benchCpu.user + benchCpu.system) / 1000, wallMs),
        benchRunQueueWaitPercent:
          b.benchSched && after.benchSched
            ? cpuPercent(after.benchSched.waitMs - b.benchSched.waitMs, wallMs)
            : null,
        benchEventLoopDelayMs: {
          p50: round(loopDelay.percentile(50) / 1e6, 1),
          p99: round(loopDelay.percentile(99) / 1e6, 1),
          max: round(loopDelay.max / 1e6, 1),
        },
      };
    },
    /** Stops the event-loop monitor when the part ends early. */
    dispose() {
      loopDelay.disable();
    },
  };
}
