/**
 * A classic BPF seccomp program, built here byte by byte (no libseccomp), that makes
 * `socket(AF_UNIX, ...)` and `io_uring_setup` fail with EPERM. Loaded by bwrap via
 * `--seccomp FD` when the network is off, so a command cannot reach a docker.sock or an
 * ssh-agent socket through the filesystem (the network namespace already cuts TCP/UDP and
 * abstract unix sockets). io_uring is refused because its IORING_OP_SOCKET bypasses seccomp.
 * `socketpair(2)` stays allowed: it only connects a process to itself (node, git need it).
 */

const BPF_LD_W_ABS = 0x20;
const BPF_JMP_JEQ_K = 0x15;
const BPF_JMP_JGE_K = 0x35;
const BPF_RET_K = 0x06;

const SECCOMP_RET_ALLOW = 0x7fff_0000;
const SECCOMP_RET_ERRNO = 0x0005_0000;
const SECCOMP_RET_KILL_PROCESS = 0x8000_0000;
const EPERM = 1;
const AF_UNIX = 1;

/** Offsets inside `struct seccomp_data`. */
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0_LOW = 16;

interface ArchitectureTable {
  audit: number;
  /** Syscall numbers refused outright. */
  deny: number[];
  /** `socket` syscall number, refused when its first argument is AF_UNIX. */
  socket?: number;
  /** Numbers at or above this are refused (x32 ABI on x86_64). */
  denyFrom?: number;
}

/** Syscall tables per Node `process.arch`: the native ABI plus the 32-bit compat ABI the kernel also accepts. */
const ARCHITECTURES: Record<string, ArchitectureTable[]> = {
  x64: [
    { audit: 0xc000_003e, socket: 41, deny: [425], denyFrom: 0x4000_0000 },
    // i386 compat: socketcall(102) hides its arguments behind a pointer, so it is refused whole.
    { audit: 0x4000_0003, socket: 359, deny: [102, 425] },
  ],
  arm64: [
    { audit: 0xc000_00b7, socket: 198, deny: [425] },
    { audit: 0x4000_0028, socket: 281, deny: [425] },
  ],
};

type Instruction = { label: string } | { code: number; k: number; jt?: string; jf?: string };

function assemble(program: Instruction[]): Uint8Array {
  const labels = new Map<string, number>();
  const instructions: { code: number; k: number; jt?: string; jf?: string }[] = [];
  for (const item of program) {
    if ('label' in item) labels.set(item.label, instructions.length);
    else instructions.push(item);
  }
  const bytes = new Uint8Array(instructions.length * 8);
  const view = new DataView(bytes.buffer);
  instructions.forEach((instruction, index) => {
    const offsetTo = (label: string | undefined): number => {
      if (label === undefined) return 0;
      const target = labels.get(label);
      if (target === undefined) throw new Error(`seccomp: unknown label ${label}`);
      const offset = target - index - 1;
      if (offset < 0 || offset > 255) throw new Error(`seccomp: jump to ${label} out of range`);
      return offset;
    };
    view.setUint16(index * 8, instruction.code, true);
    view.setUint8(index * 8 + 2, offsetTo(instruction.jt));
    view.setUint8(index * 8 + 3, offsetTo(instruction.jf));
    view.setUint32(index * 8 + 4, instruction.k, true);
  });
  return bytes;
}

/** True when {@link buildUnixSocketFilter} has a syscall table for this Node `process.arch`. */
export function isSeccompArchitectureSupported(architecture: string): boolean {
  return architecture in ARCHITECTURES;
}

/**
 * Builds the seccomp program (an array of 8-byte little-endian `struct sock_filter`) for
 * bwrap's `--seccomp FD`. Unknown architectures in the filtered process are killed (fail closed).
 *
 * @param architecture - Node's `process.arch` of the host: `x64` or `arm64`.
 * @returns the program bytes.
 * @throws Error when the architecture has no table (callers check {@link isSeccompArchitectureSupported}).
 * @example
 * ```ts
 * const bytes = buildUnixSocketFilter('x64'); // pass as stdio[3] and `--seccomp 3`
 * ```
 */
export function buildUnixSocketFilter(architecture: string): Uint8Array {
  const tables = ARCHITECTURES[architecture];
  if (tables === undefined) throw new Error(`seccomp: no syscall table for ${architecture}`);
  const program: Instruction[] = [{ code: BPF_LD_W_ABS, k: OFFSET_ARCH }];
  tables.forEach((table, index) => {
    program.push({
      code: BPF_JMP_JEQ_K,
      k: table.audit,
      jt: `arch${index}`,
      jf: index + 1 < tables.length ? `check${index + 1}` : 'kill',
    });
    if (index + 1 < tables.length) program.push({ label: `check${index + 1}` });
  });
  program.push({ label: 'kill' }, { code: BPF_RET_K, k: SECCOMP_RET_KILL_PROCESS });
  tables.forEach((table, index) => {
    program.push({ label: `arch${index}` }, { code: BPF_LD_W_ABS, k: OFFSET_NR });
    if (table.denyFrom !== undefined)
      program.push(
        { code: BPF_JMP_JGE_K, k: table.denyFrom, jt: 'deny', jf: `n${index}` },
        { label: `n${index}` },
      );
    for (const number of table.deny)
      program.push(
        { code: BPF_JMP_JEQ_K, k: number, jt: 'deny', jf: `d${index}-${number}` },
        { label: `d${index}-${number}` },
      );
    if (table.socket !== undefined)
      program.push({ code: BPF_JMP_JEQ_K, k: table.socket, jt: 'socket', jf: 'allow' });
    else program.push({ code: BPF_RET_K, k: SECCOMP_RET_ALLOW });
  });
  program.push(
    { label: 'socket' },
    { code: BPF_LD_W_ABS, k: OFFSET_ARG0_LOW },
    { code: BPF_JMP_JEQ_K, k: AF_UNIX, jt: 'deny', jf: 'allow' },
    { label: 'allow' },
    { code: BPF_RET_K, k: SECCOMP_RET_ALLOW },
    { label: 'deny' },
    { code: BPF_RET_K, k: SECCOMP_RET_ERRNO | EPERM },
  );
  return assemble(program);
}
