// The network bridge inside a sandbox, for hosts without socat: TCP on the sandbox's loopback to
// the egress proxies' Unix sockets. Plain Node, no imports from the project (it runs in the sandbox).
//
//   node bridge-process.mjs listen-tcp 127.0.0.1:3128 unix:/run/x/http.sock \
//                           [listen-tcp 127.0.0.1:1080 unix:/run/x/socks.sock …] [-- command args…]
//
// With a command, it starts it once every listener is up, passes SIGTERM/SIGINT/SIGHUP on and exits
// with its status; without one, it runs until killed.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { constants } from 'node:os';

function fail(message) {
  process.stderr.write(`bridge-process: ${message}\n`);
  process.exit(2);
}

function parse(argv) {
  const dash = argv.indexOf('--');
  const specs = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  if (specs.length === 0 || specs.length % 3 !== 0) fail('expected: listen-tcp HOST:PORT unix:PATH …');
  const listeners = [];
  for (let i = 0; i < specs.length; i += 3) {
    const [verb, address, target] = specs.slice(i, i + 3);
    const colon = address.lastIndexOf(':');
    const port = Number(address.slice(colon + 1));
    if (verb !== 'listen-tcp' || colon < 1 || !Number.isInteger(port) || !target.startsWith('unix:')) {
      fail(`cannot read "${verb} ${address} ${target}"`);
    }
    listeners.push({ host: address.slice(0, colon), port, path: target.slice('unix:'.length) });
  }
  return { listeners, command };
}

function listen({ host, port, path }) {
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ path, allowHalfOpen: true });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) socket.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
}

const { listeners, command } = parse(process.argv.slice(2));
await Promise.all(listeners.map(listen)).catch((error) => fail(error.message));
if (command.length > 0) {
  const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => {
    process.stderr.write(`bridge-process: ${command[0]}: ${error.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
}
