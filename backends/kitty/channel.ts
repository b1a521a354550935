// How the kitty backend talks to one kitty: its remote-control protocol over the socket, falling back to the
// `kitten @` / `kitty @` command line where the CLI could succeed and the socket did not (docs/focus.md, "kitty").
import type { FocusContext } from "../contract.ts";
import { parseListenOn, sendCommand, type RcReply, type SendCommand } from "./rc.ts";

export interface Channel {
  /** How the commands went: `socket`, or the CLI used and why. */
  readonly via: () => string;
  call(cmd: "ls" | "focus-window", payload?: Record<string, unknown>): Promise<RcReply>;
}

/**
 * A socket failure the CLI could handle: a reply it cannot read or no reply (a kitty that expects another framing),
 * a kitty older than this client's protocol version, or a refusal the CLI can answer with a password
 * (KITTY_RC_PASSWORD, rc-pass; kitty 0.26 says "Remote control is disabled" for a command without one). Not: nothing
 * listening (the CLI would find the same dead socket), an unknown window, or any other error kitty reports.
 */
export function cliCouldHandle(reply: RcReply): reply is Extract<RcReply, { kind: "error" | "no-reply" }> {
  if (reply.kind === "no-reply") return true;
  return reply.kind === "error" && /newer than this kitty|password|encrypt|remote control is disabled/i.test(reply.error);
}

/** Arguments after `kitten`/`kitty` for one command; the listen address is passed as is. */
export function cliArgs(listenOn: string, cmd: "ls" | "focus-window", payload?: Record<string, unknown>): string[] {
  const match = typeof payload?.match === "string" ? ["--match", payload.match] : [];
  return ["@", "--to", listenOn, cmd, ...match];
}

function cliChannel(listenOn: string, context: Pick<FocusContext, "run" | "env">, why: string): Channel {
  let program: "kitten" | "kitty" = "kitten";
  return {
    via: () => `${program} @ (${why})`,
    async call(cmd, payload) {
      let result = await context.run(program, cliArgs(listenOn, cmd, payload), { env: context.env });
      // `kitten` (Go) exists from kitty 0.28; 0.26 has only the Python `kitty @`.
      if (result.failure === "not-found" && program === "kitten") {
        program = "kitty";
        result = await context.run(program, cliArgs(listenOn, cmd, payload), { env: context.env });
      }
      if (result.failure === "not-found") return { kind: "no-reply", detail: "neither kitten nor kitty is on PATH" };
      if (result.failure === "timeout") return { kind: "no-reply", detail: `${program} @ ${cmd} timed out` };
      if (result.ok) return { kind: "ok", data: result.stdout };
      const message = result.stderr.trim().split("\n").at(-1) || `exit ${result.code}`;
      if (/No listen on socket found|Connection refused|No such file/i.test(message)) return { kind: "unreachable", detail: message };
      return { kind: "error", error: message };
    },
  };
}

/** Talk over the socket until it fails in a way the CLI could handle; from then on, through the CLI. */
export function openChannel(listenOn: string, context: Pick<FocusContext, "run" | "env">, send: SendCommand = sendCommand): Channel {
  const address = parseListenOn(listenOn);
  if (!address) return cliChannel(listenOn, context, `this client does not speak the address ${listenOn}`);
  let fallback: Channel | undefined;
  return {
    via: () => fallback?.via() ?? "socket",
    async call(cmd, payload) {
      if (fallback) return fallback.call(cmd, payload);
      const reply = await send(address, cmd, payload);
      if (!cliCouldHandle(reply)) return reply;
      fallback = cliChannel(listenOn, context, `the socket said: ${reply.kind === "error" ? reply.error : reply.detail}`);
      const viaCli = await fallback.call(cmd, payload);
      // A CLI that could not run or got no answer either says less than the socket did.
      if (viaCli.kind !== "no-reply") return viaCli;
      return reply.kind === "error"
        ? { kind: "error", error: `${reply.error} (CLI fallback: ${viaCli.detail})` }
        : { kind: "no-reply", detail: `${reply.detail}; CLI fallback: ${viaCli.detail}` };
    },
  };
}
