/**
 * The seccomp filter of every sandbox (bwrap `--seccomp`), as classic BPF: a process in it makes only the
 * sockets the sandbox needs — IPv4 and IPv6 (with a network policy they reach nothing but the sandbox's
 * own loopback, its network namespace; with the policy `open`, the network), and a netlink socket of the routing family (its own interfaces: what
 * `getifaddrs` and glibc's resolver read) — and no other. Refused with EPERM:
 * - `socket(AF_UNIX, …)`: so none reaches a host Unix socket (docker.sock, the D-Bus buses, systemd's, a
 *   terminal multiplexer's: asking the host to run something), which a read-only mount does not stop and
 *   a network namespace does not cover (it cuts only the abstract ones). The sandbox reaches fed's proxy
 *   and broker over a loopback instead (its own, with a network policy);
 * - `socket()` of every other family: AF_VSOCK above all (on a virtual machine it reaches services on the
 *   host's side, past the network namespace), and the rest (packet, Bluetooth, the kernel's crypto, other
 *   netlink families: the audit log, the kernel's events), which no agent needs;
 * - `socketpair` of any type but a stream or a sequenced-packet one (a datagram pair can `sendto` a host
 *   socket by its path, or be connected to one; a stream or seqpacket pair reaches nothing but itself —
 *   the kernel drops the address a seqpacket `sendto` names, and it cannot be connected again — and
 *   runtimes make them for their child processes: Rust's sends a child's pidfd over a seqpacket pair,
 *   and Codex starts its MCP servers so);
 * - `io_uring_setup` (its operations make sockets without the system calls above);
 * - on x86-64, every x32 call (another table of the same calls). A process of another architecture
 *   (32-bit, whose `socketcall` the filter cannot read) is killed.
 */

/** One BPF instruction: code, jump-if-true, jump-if-false, constant. */
type Instruction = [code: number, jt: number, jf: number, k: number];

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const AND_K = 0x54;
const RET_K = 0x06;

const RET_ALLOW = 0x7fff0000;
const RET_KILL_PROCESS = 0x80000000;
const EPERM = 1;
const RET_EPERM = 0x00050000 | EPERM;

/** Offsets in struct seccomp_data: the call's number, the architecture, its arguments (low 32 bits, little-endian). */
const NR = 0;
const ARCH = 4;
const ARG0 = 16;
const ARG1 = 24;

const ARG2 = 32;

/** The families `socket()` may make (the first argument), and netlink's one protocol (the third). */
const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const NETLINK_ROUTE = 0;
const SOCK_STREAM = 1;
const SOCK_SEQPACKET = 5;
/** The low bits of socketpair's type (the rest are SOCK_NONBLOCK and SOCK_CLOEXEC). */
const SOCK_TYPE_MASK = 0xf;
const X32_SYSCALL_BIT = 0x40000000;

/** The calls by architecture (Node's `process.arch`): AUDIT_ARCH_* and the numbers of the calls. */
const ARCHITECTURES: Record<string, { audit: number; socket: number; socketpair: number; x32?: boolean }> = {
  x64: { audit: 0xc000003e, socket: 41, socketpair: 53, x32: true },
  arm64: { audit: 0xc00000b7, socket: 198, socketpair: 199 },
};
const IO_URING_SETUP = 425;

/**
 * The filter for this machine's architecture, or undefined where fed does not know its calls. With
 * `unixSockets` (a team's sandbox allowance) `socket(AF_UNIX, …)` and every Unix socket pair are allowed too.
 */
export function socketFilter(
  arch: string = process.arch,
  { unixSockets }: { unixSockets: boolean } = { unixSockets: false },
): Buffer | undefined {
  const known = ARCHITECTURES[arch];
  if (!known) return undefined;
  // Labels resolved to relative jumps once the program is laid out.
  const program: (Instruction | { jeq: number; to: string } | { label: string })[] = [
    [LD_W_ABS, 0, 0, ARCH],
    { jeq: known.audit, to: 'native' },
    [RET_K, 0, 0, RET_KILL_PROCESS],
    { label: 'native' },
    [LD_W_ABS, 0, 0, NR],
    ...(known.x32 ? [[JGE_K, 0, 1, X32_SYSCALL_BIT] as Instruction, [RET_K, 0, 0, RET_EPERM] as Instruction] : []),
    { jeq: known.socket, to: 'socket' },
    { jeq: known.socketpair, to: 'socketpair' },
    { jeq: IO_URING_SETUP, to: 'deny' },
    [RET_K, 0, 0, RET_ALLOW],
    { label: 'socket' },
    [LD_W_ABS, 0, 0, ARG0],
    { jeq: AF_INET, to: 'allow' },
    { jeq: AF_INET6, to: 'allow' },
    { jeq: AF_NETLINK, to: 'netlink' },
    ...(unixSockets ? [{ jeq: AF_UNIX, to: 'allow' }] : []),
    [RET_K, 0, 0, RET_EPERM],
    { label: 'netlink' },
    [LD_W_ABS, 0, 0, ARG2],
    { jeq: NETLINK_ROUTE, to: 'allow' },
    [RET_K, 0, 0, RET_EPERM],
    { label: 'socketpair' },
    ...(unixSockets ? [[RET_K, 0, 0, RET_ALLOW] as Instruction] : []),
    [LD_W_ABS, 0, 0, ARG1],
    [AND_K, 0, 0, SOCK_TYPE_MASK],
    { jeq: SOCK_STREAM, to: 'allow' },
    { jeq: SOCK_SEQPACKET, to: 'allow' },
    { label: 'deny' },
    [RET_K, 0, 0, RET_EPERM],
    { label: 'allow' },
    [RET_K, 0, 0, RET_ALLOW],
  ];
  const at = new Map<string, number>();
  let index = 0;
  for (const step of program) {
    if ('label' in step) at.set(step.label, index);
    else index++;
  }
  const instructions: Instruction[] = [];
  for (const step of program) {
    if ('label' in step) continue;
    if (Array.isArray(step)) instructions.push(step);
    else instructions.push([JEQ_K, at.get(step.to)! - instructions.length - 1, 0, step.jeq]);
  }
  // struct sock_filter, in the machine's byte order (both architectures above are little-endian).
  const bytes = Buffer.alloc(instructions.length * 8);
  instructions.forEach(([code, jt, jf, k], i) => {
    bytes.writeUInt16LE(code, i * 8);
    bytes.writeUInt8(jt, i * 8 + 2);
    bytes.writeUInt8(jf, i * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return bytes;
}
