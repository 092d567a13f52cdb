import { arch as hostArch } from 'node:os';

/**
 * The seccomp filter of every sandboxed process, compiled here to the classic BPF program that
 * bubblewrap loads with `--seccomp FD` (an array of `struct sock_filter`).
 *
 * Written out rather than taken from libseccomp: the server would need a native addon or a C
 * compiler at install time for a program of some fifty instructions, and the tables below can be
 * checked against `scmp_sys_resolver` (Debian's `seccomp` package) by hand or in a test.
 *
 * What it denies is what a command, a test suite or a dev server never needs and what would let a
 * process out of the sandbox or at the kernel: mounting (both APIs), namespaces (unshare, setns,
 * clone with a CLONE_NEW* flag; clone3 answers ENOSYS, since its flags sit behind a pointer a filter
 * cannot read, and libc falls back to clone), ptrace and its relatives (process_vm_*, kcmp,
 * pidfd_getfd), the kernel keyring, bpf, perf_event_open, kexec and module loading, io_uring (its
 * operations bypass this filter), userfaultfd, raw and packet sockets, and clock, swap, reboot and
 * accounting calls. A denied call fails with EPERM (ENOSYS for clone3 and io_uring, so that callers
 * take their fallback); a call from another architecture's ABI (x32, i386 on x86_64) fails with
 * EPERM too. Everything else is allowed.
 */

interface ArchTable {
  /** AUDIT_ARCH_* of the architecture. */
  audit: number;
  /** Syscall numbers from this value on belong to another ABI (x32 on x86_64). */
  foreignFrom?: number;
  nr: Record<DeniedCall | 'clone' | 'clone3' | 'socket' | IoUring, number>;
}

type DeniedCall =
  | 'mount'
  | 'umount2'
  | 'unshare'
  | 'setns'
  | 'ptrace'
  | 'keyctl'
  | 'add_key'
  | 'request_key'
  | 'bpf'
  | 'perf_event_open'
  | 'kexec_load'
  | 'kexec_file_load'
  | 'init_module'
  | 'finit_module'
  | 'delete_module'
  | 'pivot_root'
  | 'chroot'
  | 'swapon'
  | 'swapoff'
  | 'reboot'
  | 'acct'
  | 'quotactl'
  | 'quotactl_fd'
  | 'open_by_handle_at'
  | 'userfaultfd'
  | 'process_vm_readv'
  | 'process_vm_writev'
  | 'fsopen'
  | 'fsconfig'
  | 'fsmount'
  | 'fspick'
  | 'move_mount'
  | 'open_tree'
  | 'mount_setattr'
  | 'lookup_dcookie'
  | 'settimeofday'
  | 'clock_settime'
  | 'adjtimex'
  | 'clock_adjtime'
  | 'syslog'
  | 'kcmp'
  | 'pidfd_getfd'
  | 'vhangup'
  | 'nfsservctl';

type IoUring = 'io_uring_setup' | 'io_uring_enter' | 'io_uring_register';

/** Numbers from the kernel's tables (checked with `scmp_sys_resolver -a <arch> <name>`). */
const SHARED_NEW = {
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  move_mount: 429,
  open_tree: 428,
  mount_setattr: 442,
  quotactl_fd: 443,
  pidfd_getfd: 438,
  clone3: 435,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
};

export const ARCH_TABLES: Record<'x64' | 'arm64', ArchTable> = {
  x64: {
    audit: 0xc000003e,
    foreignFrom: 0x40000000,
    nr: {
      ...SHARED_NEW,
      mount: 165,
      umount2: 166,
      unshare: 272,
      setns: 308,
      ptrace: 101,
      keyctl: 250,
      add_key: 248,
      request_key: 249,
      bpf: 321,
      perf_event_open: 298,
      kexec_load: 246,
      kexec_file_load: 320,
      init_module: 175,
      finit_module: 313,
      delete_module: 176,
      pivot_root: 155,
      chroot: 161,
      swapon: 167,
      swapoff: 168,
      reboot: 169,
      acct: 163,
      quotactl: 179,
      open_by_handle_at: 304,
      userfaultfd: 323,
      process_vm_readv: 310,
      process_vm_writev: 311,
      lookup_dcookie: 212,
      settimeofday: 164,
      clock_settime: 227,
      adjtimex: 159,
      clock_adjtime: 305,
      syslog: 103,
      kcmp: 312,
      vhangup: 153,
      nfsservctl: 180,
      clone: 56,
      socket: 41,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    nr: {
      ...SHARED_NEW,
      mount: 40,
      umount2: 39,
      unshare: 97,
      setns: 268,
      ptrace: 117,
      keyctl: 219,
      add_key: 217,
      request_key: 218,
      bpf: 280,
      perf_event_open: 241,
      kexec_load: 104,
      kexec_file_load: 294,
      init_module: 105,
      finit_module: 273,
      delete_module: 106,
      pivot_root: 41,
      chroot: 51,
      swapon: 224,
      swapoff: 225,
      reboot: 142,
      acct: 89,
      quotactl: 60,
      open_by_handle_at: 265,
      userfaultfd: 282,
      process_vm_readv: 270,
      process_vm_writev: 271,
      lookup_dcookie: 18,
      settimeofday: 170,
      clock_settime: 112,
      adjtimex: 171,
      clock_adjtime: 266,
      syslog: 116,
      kcmp: 272,
      vhangup: 58,
      nfsservctl: 42,
      clone: 220,
      socket: 198,
    },
  },
};

// Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const AND_K = 0x54;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

// struct seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8i (the low 32 bits first, little-endian).
const OFF_NR = 0;
const OFF_ARCH = 4;
const argLow = (index: number) => 16 + 8 * index;

/** Every CLONE_NEW* flag, and CLONE_NEWTIME's 0x80. */
const CLONE_NAMESPACE_FLAGS = 0x7e020080;
const AF_PACKET = 17;
const SOCK_RAW = 3;
const SOCK_TYPE_MASK = 0xf;

type Label = 'deny' | 'nosys' | 'allow' | 'clone' | 'socket';
type Instruction = { code: number; k: number; jt?: Label; jf?: Label } | { label: Label };

/** Every call the filter refuses outright (the argument checks of clone and socket aside). */
export const DENIED_CALLS: readonly DeniedCall[] = Object.keys(ARCH_TABLES.x64.nr).filter(
  (name): name is DeniedCall =>
    !['clone', 'clone3', 'socket', 'io_uring_setup', 'io_uring_enter', 'io_uring_register'].includes(name),
);

function program(table: ArchTable): Instruction[] {
  const out: Instruction[] = [
    { code: LD_W_ABS, k: OFF_ARCH },
    { code: JEQ_K, k: table.audit, jf: 'deny' },
    { code: LD_W_ABS, k: OFF_NR },
  ];
  if (table.foreignFrom !== undefined) out.push({ code: JGE_K, k: table.foreignFrom, jt: 'deny' });
  for (const name of DENIED_CALLS) out.push({ code: JEQ_K, k: table.nr[name], jt: 'deny' });
  for (const name of ['clone3', 'io_uring_setup', 'io_uring_enter', 'io_uring_register'] as const) {
    out.push({ code: JEQ_K, k: table.nr[name], jt: 'nosys' });
  }
  out.push(
    { code: JEQ_K, k: table.nr.clone, jt: 'clone' },
    { code: JEQ_K, k: table.nr.socket, jt: 'socket' },
    { code: RET_K, k: RET_ALLOW },
    { label: 'clone' },
    { code: LD_W_ABS, k: argLow(0) },
    { code: JSET_K, k: CLONE_NAMESPACE_FLAGS, jt: 'deny', jf: 'allow' },
    { label: 'socket' },
    { code: LD_W_ABS, k: argLow(0) },
    { code: JEQ_K, k: AF_PACKET, jt: 'deny' },
    { code: LD_W_ABS, k: argLow(1) },
    { code: AND_K, k: SOCK_TYPE_MASK },
    { code: JEQ_K, k: SOCK_RAW, jt: 'deny', jf: 'allow' },
    { label: 'deny' },
    { code: RET_K, k: RET_ERRNO | EPERM },
    { label: 'nosys' },
    { code: RET_K, k: RET_ERRNO | ENOSYS },
    { label: 'allow' },
    { code: RET_K, k: RET_ALLOW },
  );
  return out;
}

/** Resolves labels to the relative jumps BPF takes (forward only, at most 255 instructions). */
function assemble(instructions: Instruction[]): Buffer {
  const positions = new Map<Label, number>();
  const code: Array<{ code: number; k: number; jt?: Label; jf?: Label }> = [];
  for (const item of instructions) {
    if ('label' in item) positions.set(item.label, code.length);
    else code.push(item);
  }
  const buffer = Buffer.alloc(code.length * 8);
  code.forEach((item, index) => {
    const jump = (label: Label | undefined) => {
      if (label === undefined) return 0;
      const target = positions.get(label);
      if (target === undefined) throw new Error(`seccomp: no label ${label}`);
      const offset = target - index - 1;
      if (offset < 0 || offset > 255) throw new Error(`seccomp: jump to ${label} out of range`);
      return offset;
    };
    buffer.writeUInt16LE(item.code, index * 8);
    buffer.writeUInt8(jump(item.jt), index * 8 + 2);
    buffer.writeUInt8(jump(item.jf), index * 8 + 3);
    buffer.writeUInt32LE(item.k >>> 0, index * 8 + 4);
  });
  return buffer;
}

/** The compiled filter for `arch` (the host's by default); null on an architecture without a table. */
export function seccompProgram(arch: string = hostArch()): Buffer | null {
  const table = ARCH_TABLES[arch as keyof typeof ARCH_TABLES];
  return table ? assemble(program(table)) : null;
}
