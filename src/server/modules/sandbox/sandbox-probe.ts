/**
 * What a hostile command sees from inside the sandbox, printed as `name=value` lines: its uid and
 * capabilities, whether it may create namespaces, mount (the data dir's parent, past the hiding
 * tmpfs), trace, use the keyring, make raw sockets, and reach a TCP port on the host's loopback.
 * Used by the sandbox tests, as root and as a normal user, and by the check a containment test
 * runs through a real server.
 */
export function probeScript(options: { hostPort: number; mountSource: string }): string {
  const python = [
    'import ctypes, os, platform, socket',
    'libc = ctypes.CDLL(None, use_errno=True)',
    'def call(name, nr, *args):',
    '    r = libc.syscall(nr, *[ctypes.c_long(a) for a in args]); e = ctypes.get_errno()',
    '    print(f"{name}=" + ("denied" if r == -1 and e in (1, 38) else f"allowed:{r}:{e}"))',
    'if platform.machine() == "x86_64":',
    '    call("ptrace", 101, 0, 0, 0, 0)',
    '    call("keyctl", 250, 0, -3, 0)',
    '    call("setns", 308, -1, 0)',
    '    call("clone3", 435, 0, 0)',
    '    call("io_uring_setup", 425, 1, 0)',
    'try:',
    '    socket.socket(socket.AF_INET, socket.SOCK_RAW, 1); print("raw=allowed")',
    'except PermissionError:',
    '    print("raw=denied")',
  ].join('\n');
  const connect = [
    `const s = require('net').connect(${options.hostPort}, '127.0.0.1');`,
    `s.on('connect', () => { console.log('net=reached'); s.destroy(); });`,
    `s.on('error', (e) => console.log('net=' + e.code));`,
  ].join(' ');
  return [
    'echo "uid=$(id -u)"',
    'echo "gid=$(id -g)"',
    `grep '^CapEff' /proc/self/status | tr -d ' \\t' | sed 's/:/=/'`,
    `grep '^CapBnd' /proc/self/status | tr -d ' \\t' | sed 's/:/=/'`,
    `grep '^Seccomp:' /proc/self/status | tr -d ' \\t' | sed 's/:/=/'`,
    'unshare -U true 2>/dev/null && echo unshare=allowed || echo unshare=denied',
    'mkdir -p /tmp/m',
    `mount --bind '${options.mountSource}' /tmp/m 2>/dev/null && echo mount=allowed || echo mount=denied`,
    'ls /tmp/m | head -3',
    `python3 -c '${python.replace(/'/g, `'\\''`)}'`,
    `node -e "${connect}"`,
    'echo "listeners=$(tail -n +2 /proc/net/tcp | wc -l)"',
  ].join('\n');
}

/** The `name=value` lines of a probe's output. */
export function probeFacts(output: string): Record<string, string> {
  const facts: Record<string, string> = {};
  for (const line of output.split('\n')) {
    const match = /^([A-Za-z0-9_-]+)=(.*)$/.exec(line.trim());
    if (match?.[1] && match[2] !== undefined) facts[match[1]] = match[2];
  }
  return facts;
}
