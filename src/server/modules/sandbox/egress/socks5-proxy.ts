import net from 'node:net';
import type { Dialer, DialResult } from './egress-dial.js';
import { splice } from './tunnel.js';

export interface Socks5Limits {
  /** Time to receive the greeting and the request, in ms. Their size is bounded by the protocol. */
  headTimeoutMs: number;
  idleTimeoutMs: number;
}

/** SOCKS5 reply codes (RFC 1928 §6). */
export const SOCKS_REPLY = {
  succeeded: 0x00,
  generalFailure: 0x01,
  notAllowed: 0x02,
  hostUnreachable: 0x04,
  refused: 0x05,
  commandNotSupported: 0x07,
  addressTypeNotSupported: 0x08,
} as const;

const VERSION = 0x05;
const NO_AUTH = 0x00;
const NO_ACCEPTABLE_METHOD = 0xff;
const CONNECT = 0x01;

/**
 * The SOCKS5 proxy of a sandbox (RFC 1928): no authentication, CONNECT only (BIND and UDP
 * ASSOCIATE answer "command not supported"), targets as a domain name (socks5h: the proxy resolves
 * it, so the policy sees the name), IPv4 or IPv6.
 */
export function createSocks5Server(dialer: Dialer, limits: Socks5Limits): net.Server {
  return net.createServer({ allowHalfOpen: true, pauseOnConnect: false }, (socket) =>
    handshake(socket, dialer, limits),
  );
}

function handshake(socket: net.Socket, dialer: Dialer, limits: Socks5Limits): void {
  let buffer = Buffer.alloc(0);
  let greeted = false;
  const timer = setTimeout(() => socket.destroy(), limits.headTimeoutMs);
  socket.on('error', () => socket.destroy());
  socket.on('close', () => clearTimeout(timer));
  const stop = () => {
    socket.off('data', onData);
    socket.pause();
  };
  const onData = (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    if (!greeted) {
      const greeting = readGreeting(buffer);
      if (greeting === 'incomplete') return;
      if (greeting === 'invalid' || !greeting.noAuth) {
        stop();
        if (greeting === 'invalid') return void socket.destroy();
        return refuse(socket, Buffer.from([VERSION, NO_ACCEPTABLE_METHOD]));
      }
      buffer = buffer.subarray(greeting.length);
      socket.write(Buffer.from([VERSION, NO_AUTH]));
      greeted = true;
    }
    const request = readRequest(buffer);
    if (request === 'incomplete') return;
    stop();
    if (request === 'invalid') return void socket.destroy();
    if ('reply' in request) return refuse(socket, reply(request.reply));
    clearTimeout(timer);
    const rest = buffer.subarray(request.length);
    if (rest.length > 0) socket.unshift(rest);
    void connect(socket, dialer, limits, request.host, request.port);
  };
  socket.on('data', onData);
}

/** The last word to a client: sent, then the connection ends (cut if the client lingers). */
function refuse(socket: net.Socket, payload: Buffer): void {
  socket.setTimeout(5000, () => socket.destroy());
  socket.end(payload);
  socket.resume();
}

async function connect(
  socket: net.Socket,
  dialer: Dialer,
  limits: Socks5Limits,
  host: string,
  port: number,
): Promise<void> {
  const result = await dialer(host, port);
  if (socket.destroyed) {
    if (result.ok) result.socket.destroy();
    return;
  }
  if (!result.ok) return refuse(socket, reply(replyCode(result)));
  // The bound address stays 0.0.0.0:0: clients ignore it, and the server's own address is none of
  // the sandbox's business.
  socket.write(reply(SOCKS_REPLY.succeeded));
  splice(socket, result.socket, limits.idleTimeoutMs);
}

function replyCode(result: Extract<DialResult, { ok: false }>): number {
  switch (result.failure) {
    case 'not-allowed':
    case 'private-address':
      return SOCKS_REPLY.notAllowed;
    case 'refused':
      return SOCKS_REPLY.refused;
    case 'bad-target':
    case 'unresolved':
    case 'unreachable':
      return SOCKS_REPLY.hostUnreachable;
  }
}

function reply(code: number): Buffer {
  return Buffer.from([VERSION, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]);
}

type Greeting = { length: number; noAuth: boolean } | 'incomplete' | 'invalid';

/** VER NMETHODS METHODS… */
export function readGreeting(data: Buffer): Greeting {
  if (data.length < 2) return 'incomplete';
  if (data[0] !== VERSION) return 'invalid';
  const length = 2 + (data[1] ?? 0);
  if (data.length < length) return 'incomplete';
  return { length, noAuth: data.subarray(2, length).includes(NO_AUTH) };
}

type Request =
  | { length: number; host: string; port: number }
  | { length: number; reply: number }
  | 'incomplete'
  | 'invalid';

/** VER CMD RSV ATYP DST.ADDR DST.PORT */
export function readRequest(data: Buffer): Request {
  if (data.length < 5) return 'incomplete';
  if (data[0] !== VERSION) return 'invalid';
  const command = data[1];
  const type = data[3];
  const addressLength = type === 0x01 ? 4 : type === 0x04 ? 16 : type === 0x03 ? 1 + (data[4] ?? 0) : -1;
  if (addressLength < 0) return { length: data.length, reply: SOCKS_REPLY.addressTypeNotSupported };
  const length = 4 + addressLength + 2;
  if (data.length < length) return 'incomplete';
  if (command !== CONNECT) return { length, reply: SOCKS_REPLY.commandNotSupported };
  const address = data.subarray(4, 4 + addressLength);
  const port = data.readUInt16BE(4 + addressLength);
  if (type === 0x01) return { length, host: [...address].join('.'), port };
  if (type === 0x04) return { length, host: ipv6Text(address), port };
  return { length, host: address.subarray(1).toString('latin1'), port };
}

function ipv6Text(bytes: Buffer): string {
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push(bytes.readUInt16BE(i).toString(16));
  return words.join(':');
}
