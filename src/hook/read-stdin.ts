// Read the hook's stdin without ever blocking a thread on it, so the hook can always exit. A read blocked in the thread
// pool (fs.read on fd 0) outlives process.exit: on exit libuv joins its threads, and one of them waits in read(2) for
// as long as the harness keeps stdin open. So each kind of stdin gets a read that cannot block:
// - a pipe or FIFO (Codex 0.171.0 gives one, observed; shells): re-opened through /proc/self/fd/0 with O_NONBLOCK
//   (a file description of our own, so the harness's is left as it was) and polled;
// - a socket (Claude Code 2.1.332 runs its hooks with one, observed; Node's child_process gives a socketpair: the Pi
//   bridge), or a pipe that cannot be re-opened (no /proc): a net.Socket on fd 0, which libuv polls. Sockets cannot
//   be re-opened through /proc (ENXIO), and node:net is the only public way to poll one (it costs ~2-3 ms of
//   start-up, so it is loaded only then);
// - a regular file: plain reads, which cannot block;
// - a terminal or other character device (someone running the hook by hand, /dev/null): nothing to read.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";

export type StdinEnd =
  /** The writer closed stdin. */
  | "eof"
  /** The caller had what it needed (the JSON value ended); the rest, if any, is not read. */
  | "enough"
  /** `maxBytes` were read and there may be more. */
  | "cap"
  /** The deadline passed with the writer still open. */
  | "deadline";

export interface StdinRead {
  readonly bytes: Buffer;
  readonly end: StdinEnd;
  /** What stdin is (a FIFO counts as a pipe): "none" for a terminal, another character device, or no stdin. */
  readonly source: StdinSource;
}

export type StdinSource = "pipe" | "socket" | "file" | "none";

export interface StdinOptions {
  readonly maxBytes: number;
  /** Epoch milliseconds: whatever has been read by then is returned. */
  readonly deadline: number;
  /** Called with everything read so far after each read; true stops reading. */
  readonly enough?: (bytes: Buffer, length: number) => boolean;
  readonly fd?: number;
  readonly now?: () => number;
  /** How to re-open `fd` as a file description of our own; the default uses /proc (Linux). */
  readonly reopenPath?: (fd: number) => string;
}

const CHUNK_BYTES = 64 * 1024;
/** Polling a pipe: this many immediate retries (a writer that is mid-way through a large payload refills it at once), then timers. */
const SPIN_RETRIES = 20;
const MAX_POLL_DELAY_MS = 8;
const MIN_SOCKET_WAIT_MS = 20;

/** What has been read so far, in one buffer that grows by doubling up to the cap. */
class Accumulator {
  buffer: Buffer;
  length = 0;
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
    this.buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes));
  }
  get full(): boolean {
    return this.length >= this.maxBytes;
  }
  /** Room for the next read, growing the buffer when it is full. */
  room(): number {
    if (this.length === this.buffer.length && this.buffer.length < this.maxBytes) {
      const grown = Buffer.allocUnsafe(Math.min(this.buffer.length * 2, this.maxBytes));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    return this.buffer.length - this.length;
  }
  append(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length && !this.full) {
      const count = Math.min(this.room(), chunk.length - offset);
      chunk.copy(this.buffer, this.length, offset, offset + count);
      this.length += count;
      offset += count;
    }
  }
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

function statOf(fd: number): Stats | undefined {
  try {
    return fstatSync(fd);
  } catch {
    return undefined; // no stdin at all (Node re-opens a closed fd 0 on /dev/null, so rarely)
  }
}

export function readStdin(options: StdinOptions): Promise<StdinRead> {
  const { fd = 0, reopenPath = (n: number) => `/proc/self/fd/${n}` } = options;
  const stats = statOf(fd);
  if (!stats || stats.isCharacterDevice() || !(stats.isFIFO() || stats.isSocket() || stats.isFile())) {
    return Promise.resolve({ bytes: Buffer.alloc(0), end: "eof", source: "none" });
  }
  if (stats.isFile()) return Promise.resolve(readFile(fd, options));
  if (stats.isFIFO()) {
    let own: number | undefined;
    try {
      own = openSync(reopenPath(fd), constants.O_RDONLY | constants.O_NONBLOCK);
    } catch {
      // No /proc, or not allowed: the socket path works for pipes too.
    }
    if (own !== undefined) return pollPipe(own, options);
  }
  return readStream(fd, stats.isFIFO() ? "pipe" : "socket", options);
}

function readFile(fd: number, options: StdinOptions): StdinRead {
  const sink = new Accumulator(options.maxBytes);
  for (;;) {
    if (sink.full) return { bytes: sink.bytes(), end: "cap", source: "file" };
    const room = sink.room(); // may grow the buffer, so before reading sink.buffer
    let count: number;
    try {
      count = readSync(fd, sink.buffer, sink.length, room, null);
    } catch {
      count = 0; // an I/O error ends the input like its end would
    }
    if (count === 0) return { bytes: sink.bytes(), end: "eof", source: "file" };
    sink.length += count;
    if (options.enough?.(sink.buffer, sink.length)) return { bytes: sink.bytes(), end: "enough", source: "file" };
  }
}

function pollPipe(fd: number, options: StdinOptions): Promise<StdinRead> {
  const { now = Date.now } = options;
  const sink = new Accumulator(options.maxBytes);
  let idle = 0;
  return new Promise((resolve) => {
    const finish = (end: StdinEnd) => {
      closeSync(fd);
      resolve({ bytes: sink.bytes(), end, source: "pipe" });
    };
    const step = () => {
      for (;;) {
        if (sink.full) return finish("cap");
        const room = sink.room(); // may grow the buffer, so before reading sink.buffer
        let count: number;
        try {
          count = readSync(fd, sink.buffer, sink.length, room, null);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EAGAIN") return finish("eof");
          if (now() >= options.deadline) return finish("deadline");
          idle++;
          if (idle <= SPIN_RETRIES) setImmediate(step);
          else setTimeout(step, Math.min(2 ** (idle - SPIN_RETRIES - 1), MAX_POLL_DELAY_MS));
          return;
        }
        if (count === 0) return finish("eof");
        idle = 0;
        sink.length += count;
        if (options.enough?.(sink.buffer, sink.length)) return finish("enough");
      }
    };
    step();
  });
}

/** Through libuv, which polls the descriptor (it sets O_NONBLOCK on it, as process.stdin would). */
async function readStream(fd: number, source: StdinSource, options: StdinOptions): Promise<StdinRead> {
  const { now = Date.now } = options;
  const sink = new Accumulator(options.maxBytes);
  // Loaded here, not at the top: a hook given a pipe or a file never pays for it.
  const net = await import("node:net");
  return new Promise((resolve) => {
    let socket: InstanceType<typeof net.Socket>;
    try {
      socket = new net.Socket({ fd, readable: true, writable: false });
    } catch {
      resolve({ bytes: sink.bytes(), end: "eof", source }); // a kind of file libuv cannot poll
      return;
    }
    let finished = false;
    const finish = (end: StdinEnd) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      // Done with it: this closes `fd` (the harness's further writes, if any, fail as they would once the hook exits).
      socket.removeAllListeners("data");
      socket.on("error", () => undefined);
      socket.destroy();
      resolve({ bytes: sink.bytes(), end, source });
    };
    // Even past the deadline (a start-up slowed by a loaded machine), give libuv one short wait: a payload already
    // written is read, not dropped. (Pipes and files need no such grace: their first read is synchronous.)
    const timer = setTimeout(() => finish("deadline"), Math.max(MIN_SOCKET_WAIT_MS, options.deadline - now()));
    socket.on("data", (chunk: Buffer) => {
      sink.append(chunk);
      if (options.enough?.(sink.buffer, sink.length)) finish("enough");
      else if (sink.full) finish("cap");
    });
    socket.on("end", () => finish("eof"));
    socket.on("error", () => finish("eof"));
  });
}
