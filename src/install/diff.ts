// A unified-diff-like listing of one file's change, for --dry-run and for the report of what was done.

function lcsPairs(a: readonly string[], b: readonly string[]): [number, number][] {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const table = new Uint32Array(rows * cols);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * cols + j] =
        a[i] === b[j]
          ? (table[(i + 1) * cols + j + 1] as number) + 1
          : Math.max(table[(i + 1) * cols + j] as number, table[i * cols + j + 1] as number);
    }
  }
  const pairs: [number, number][] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i] === b[j]) pairs.push([i++, j++]);
    else if ((table[(i + 1) * cols + j] as number) >= (table[i * cols + j + 1] as number)) i++;
    else j++;
  }
  return pairs;
}

function splitLines(text: string | null): string[] {
  if (text === null || text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((line) => line.replace(/\r$/, ""));
}

const MAX_CELLS = 4_000_000;

/** Lines prefixed with " ", "-" or "+", in hunks with `context` lines around each change. */
export function diffLines(before: string | null, after: string | null, context = 2): string[] {
  const a = splitLines(before);
  const b = splitLines(after);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const midA = a.slice(prefix, a.length - suffix);
  const midB = b.slice(prefix, b.length - suffix);
  const pairs = (midA.length + 1) * (midB.length + 1) <= MAX_CELLS ? lcsPairs(midA, midB) : [];
  const ops: { op: " " | "-" | "+"; text: string; line: number }[] = [];
  for (let i = 0; i < prefix; i++) ops.push({ op: " ", text: a[i] as string, line: i + 1 });
  let i = 0;
  let j = 0;
  for (const [pi, pj] of [...pairs, [midA.length, midB.length] as [number, number]]) {
    for (; i < pi; i++) ops.push({ op: "-", text: midA[i] as string, line: prefix + i + 1 });
    for (; j < pj; j++) ops.push({ op: "+", text: midB[j] as string, line: prefix + i + 1 });
    if (i < midA.length && j < midB.length) ops.push({ op: " ", text: midA[i++] as string, line: prefix + i });
    j = Math.max(j, pj + (pj < midB.length ? 1 : 0));
  }
  for (let k = a.length - suffix; k < a.length; k++) ops.push({ op: " ", text: a[k] as string, line: k + 1 });
  const keep = ops.map((entry, index) => ops.slice(Math.max(0, index - context), index + context + 1).some((near) => near.op !== " "));
  const out: string[] = [];
  let gap = true;
  ops.forEach((entry, index) => {
    if (!keep[index]) {
      gap = true;
      return;
    }
    if (gap) out.push(`@@ line ${entry.line} @@`);
    gap = false;
    out.push(`${entry.op} ${entry.text}`.trimEnd());
  });
  return out;
}
