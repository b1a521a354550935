// A vitest reporter that ends the run with where its time went: each project's wall span (the projects run one after
// another: vitest.config.ts, groupOrder) and each test file's wall time from its start to its end (set-up hooks, such as
// a container suite's image build and container start, included), slowest first. Beside each project, how busy the
// machine's CPUs were over its span (from /proc/stat, sampled each second): near 100% a project waits on CPU, well below
// it on timers, polls and other programs. The CI log ends with it (docs/containers.md, "Where CI's time goes").
import { readFileSync } from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

interface Span {
  readonly project: string;
  readonly file: string;
  readonly started: number;
  ended?: number;
  state?: string;
}

interface CpuSample {
  readonly at: number;
  readonly busy: number;
  readonly total: number;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The machine's CPU time so far, in clock ticks: all of it, and all but idle and iowait; undefined off Linux. */
function cpuSample(): CpuSample | undefined {
  try {
    const [, user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = readFileSync("/proc/stat", "utf8")
      .slice(0, 200)
      .split(/\s+/)
      .map(Number);
    const busy = user + nice + system + irq + softirq + steal;
    return { at: Date.now(), busy, total: busy + idle + iowait };
  } catch {
    return undefined;
  }
}

/** How busy the CPUs were between two instants, from the samples nearest inside them. */
function busyShare(samples: readonly CpuSample[], from: number, to: number): string {
  const inside = samples.filter((sample) => sample.at >= from && sample.at <= to);
  const first = inside[0];
  const last = inside.at(-1);
  if (!first || !last || last.total === first.total) return "";
  return `, CPUs ${Math.round((100 * (last.busy - first.busy)) / (last.total - first.total))}% busy`;
}

export class TimingReporter implements Reporter {
  private readonly spans = new Map<string, Span>();
  private runStarted = Date.now();
  private readonly root = process.cwd();
  private readonly cpu: CpuSample[] = [];
  private sampler: NodeJS.Timeout | undefined;

  onTestRunStart(): void {
    this.runStarted = Date.now();
    this.sampleCpu();
    this.sampler = setInterval(() => this.sampleCpu(), 1000);
    this.sampler.unref();
  }

  onTestModuleStart(module: TestModule): void {
    this.spans.set(module.id, { project: module.project.name, file: this.relative(module.moduleId), started: Date.now() });
  }

  onTestModuleEnd(module: TestModule): void {
    const span = this.spans.get(module.id);
    if (!span) return;
    span.ended = Date.now();
    span.state = module.state();
  }

  onTestRunEnd(): void {
    clearInterval(this.sampler);
    this.sampleCpu();
    const done = [...this.spans.values()].filter((span): span is Span & { ended: number } => span.ended !== undefined);
    if (done.length === 0) return;
    const lines = [`\nwall time: ${seconds(Date.now() - this.runStarted)} in all`, "project spans (first file started -> last ended):"];
    const projects = new Map<string, { from: number; to: number; files: number; busy: number }>();
    for (const span of done) {
      const project = projects.get(span.project) ?? { from: span.started, to: span.ended, files: 0, busy: 0 };
      project.from = Math.min(project.from, span.started);
      project.to = Math.max(project.to, span.ended);
      project.files++;
      project.busy += span.ended - span.started;
      projects.set(span.project, project);
    }
    for (const [name, project] of [...projects].sort((a, b) => a[1].from - b[1].from))
      lines.push(
        `  ${name.padEnd(12)} ${seconds(project.to - project.from).padStart(9)}  ${project.files} files, ${seconds(project.busy)} of file time${busyShare(this.cpu, project.from, project.to)}`,
      );
    lines.push("slowest files (wall, start to end):");
    for (const span of [...done].sort((a, b) => b.ended - b.started - (a.ended - a.started)).slice(0, 40))
      lines.push(
        `  ${seconds(span.ended - span.started).padStart(9)}  ${span.project.padEnd(12)} ${span.file}${span.state === "passed" ? "" : ` (${span.state})`}`,
      );
    process.stdout.write(`${lines.join("\n")}\n`);
  }

  private sampleCpu(): void {
    const sample = cpuSample();
    if (sample) this.cpu.push(sample);
  }

  private relative(path: string): string {
    return path.startsWith(`${this.root}/`) ? path.slice(this.root.length + 1) : path;
  }
}
