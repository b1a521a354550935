// A vitest reporter that ends the run with where its time went: each project's wall span (the projects run one after
// another: vitest.config.ts, groupOrder) and each test file's wall time from its start to its end (set-up hooks, such as
// a container suite's image build and container start, included), slowest first. The CI log ends with it
// (docs/containers.md, "Where CI's time goes").
import type { Reporter, TestModule } from "vitest/node";

interface Span {
  readonly project: string;
  readonly file: string;
  readonly started: number;
  ended?: number;
  state?: string;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export class TimingReporter implements Reporter {
  private readonly spans = new Map<string, Span>();
  private runStarted = Date.now();
  private readonly root = process.cwd();

  onTestRunStart(): void {
    this.runStarted = Date.now();
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
        `  ${name.padEnd(12)} ${seconds(project.to - project.from).padStart(9)}  ${project.files} files, ${seconds(project.busy)} of file time`,
      );
    lines.push("slowest files (wall, start to end):");
    for (const span of [...done].sort((a, b) => b.ended - b.started - (a.ended - a.started)).slice(0, 40))
      lines.push(
        `  ${seconds(span.ended - span.started).padStart(9)}  ${span.project.padEnd(12)} ${span.file}${span.state === "passed" ? "" : ` (${span.state})`}`,
      );
    process.stdout.write(`${lines.join("\n")}\n`);
  }

  private relative(path: string): string {
    return path.startsWith(`${this.root}/`) ? path.slice(this.root.length + 1) : path;
  }
}
