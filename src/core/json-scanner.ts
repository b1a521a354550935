// An incremental, validating scan of one JSON object (RFC 8259) that remembers only where some of its top-level
// members are. The hook reads native payloads of many megabytes (a tool response, a written file) of which it needs a
// few short fields: this finds them without building the rest, tells the reader when the object is complete (so a
// stdin held open costs nothing), and keeps working on a prefix when the input is cut (hook-input.ts).

/** Where a wanted member's value is in the input: `end` is undefined while the value is still being read. */
export interface MemberSpan {
  readonly start: number;
  end: number | undefined;
  readonly kind: "string" | "other";
  /** How many times the key occurred (a repeated key makes its value ambiguous). */
  count: number;
}

/** `more`: a valid prefix, more input needed; `complete`: the object ended at `end`; `invalid`: not JSON; `not-object`: JSON, but not an object. */
export type ScanState = "more" | "complete" | "invalid" | "not-object";

// Parser states.
const VALUE = 0; // a value is expected
const VALUE_OR_CLOSE = 1; // after `[`
const KEY_OR_CLOSE = 2; // after `{`
const KEY = 3; // after `,` in an object
const COLON = 4;
const AFTER = 5; // after a value: `,`, a closing bracket, or the end
const STRING = 6;
const ESCAPE = 7;
const UNICODE = 8;
const MINUS = 9; // number states: after `-`
const ZERO = 10; // after a leading 0
const INT = 11;
const DOT = 12;
const FRAC = 13;
const EXP = 14; // after e/E
const EXP_SIGN = 15;
const EXP_DIGITS = 16;
const LITERAL = 17;

const OBJECT = 1;
const ARRAY = 2;
/** Keys longer than this are never wanted, so they are not decoded. */
const MAX_WANTED_KEY_BYTES = 64;

const isWhitespace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const LITERALS = { t: Buffer.from("true"), f: Buffer.from("false"), n: Buffer.from("null") };

export class JsonObjectScanner {
  readonly members = new Map<string, MemberSpan>();
  /** Bytes scanned so far. */
  scanned = 0;
  /** Offset just past the object, once complete. */
  end: number | undefined;
  /** Why the input is not JSON, once invalid. */
  error: string | undefined;
  private state: ScanState = "more";
  private mode = VALUE;
  /** Container kinds, innermost last (grows with the nesting; the nesting is bounded by the input's length). */
  private stack = new Uint8Array(64);
  private depth = 0;
  private stringIsKey = false;
  private stringStart = 0;
  private stringEscaped = false;
  private hexLeft = 0;
  private literal: Buffer = LITERALS.t;
  private literalAt = 0;
  /** The wanted member whose key was just read at the top level, until its value ends. */
  private pendingKey: string | undefined;
  private capturing: MemberSpan | undefined;

  private readonly wanted: ReadonlySet<string>;

  constructor(wanted: ReadonlySet<string>) {
    this.wanted = wanted;
  }

  /** Scan `bytes[scanned, length)`; `bytes` holds the whole input so far (it may be a new, longer buffer each time). */
  feed(bytes: Uint8Array, length: number): ScanState {
    if (this.state !== "more") return this.state;
    let i = this.scanned;
    while (i < length) {
      const c = bytes[i] as number;
      switch (this.mode) {
        case STRING: {
          // The hot loop: most of a large payload is string content.
          let j = i;
          while (j < length) {
            const d = bytes[j] as number;
            if (d === 0x22 || d === 0x5c || d < 0x20) break;
            j++;
          }
          i = j;
          if (i === length) break;
          const d = bytes[i] as number;
          if (d === 0x22) this.endString(bytes, i);
          else if (d === 0x5c) {
            this.stringEscaped = true;
            this.mode = ESCAPE;
          } else return this.fail(i, "control character in a string");
          i++;
          break;
        }
        case ESCAPE:
          if (c === 0x75) {
            this.mode = UNICODE;
            this.hexLeft = 4;
          } else if (c === 0x22 || c === 0x5c || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74)
            this.mode = STRING;
          else return this.fail(i, "bad escape");
          i++;
          break;
        case UNICODE:
          if (!isHex(c)) return this.fail(i, "bad \\u escape");
          if (--this.hexLeft === 0) this.mode = STRING;
          i++;
          break;
        case VALUE:
        case VALUE_OR_CLOSE:
          if (isWhitespace(c)) i++;
          else if (c === 0x5d && this.mode === VALUE_OR_CLOSE) {
            this.close(i);
            i++;
          } else {
            if (this.depth === 0 && c !== 0x7b) {
              // The hook's payloads are objects; say "not an object" for any other value that starts like JSON.
              this.state =
                c === 0x5b || c === 0x22 || c === 0x2d || isDigit(c) || c === 0x74 || c === 0x66 || c === 0x6e ? "not-object" : "invalid";
              if (this.state === "invalid") this.error = `unexpected byte at ${i}`;
              this.scanned = i;
              return this.state;
            }
            if (!this.startValue(c, i)) return this.fail(i, "unexpected byte");
            i++;
          }
          break;
        case KEY_OR_CLOSE:
        case KEY:
          if (isWhitespace(c)) i++;
          else if (c === 0x7d && this.mode === KEY_OR_CLOSE) {
            this.close(i);
            i++;
          } else if (c === 0x22) {
            this.startString(i, true);
            i++;
          } else return this.fail(i, "expected a key");
          break;
        case COLON:
          if (isWhitespace(c)) i++;
          else if (c === 0x3a) {
            this.mode = VALUE;
            i++;
          } else return this.fail(i, "expected ':'");
          break;
        case AFTER: {
          // Never at depth 0: the object's end stops the scan below.
          const top = this.stack[this.depth - 1];
          if (isWhitespace(c)) i++;
          else if (c === 0x2c) {
            this.mode = top === OBJECT ? KEY : VALUE;
            i++;
          } else if ((c === 0x7d && top === OBJECT) || (c === 0x5d && top === ARRAY)) {
            this.close(i);
            i++;
          } else return this.fail(i, "expected ',' or a closing bracket");
          break;
        }
        case MINUS:
          if (c === 0x30) this.mode = ZERO;
          else if (isDigit(c)) this.mode = INT;
          else return this.fail(i, "bad number");
          i++;
          break;
        case ZERO:
        case INT:
        case FRAC:
        case EXP_DIGITS:
          if (isDigit(c) && this.mode !== ZERO) i++;
          else if (c === 0x2e && (this.mode === ZERO || this.mode === INT)) {
            this.mode = DOT;
            i++;
          } else if ((c === 0x65 || c === 0x45) && this.mode !== EXP_DIGITS) {
            this.mode = EXP;
            i++;
          } else this.valueEnded(i); // the byte that ends a number is read again as what follows it
          break;
        case DOT:
          if (!isDigit(c)) return this.fail(i, "bad number");
          this.mode = FRAC;
          i++;
          break;
        case EXP:
          if (c === 0x2b || c === 0x2d) this.mode = EXP_SIGN;
          else if (isDigit(c)) this.mode = EXP_DIGITS;
          else return this.fail(i, "bad number");
          i++;
          break;
        case EXP_SIGN:
          if (!isDigit(c)) return this.fail(i, "bad number");
          this.mode = EXP_DIGITS;
          i++;
          break;
        case LITERAL:
          if (c !== this.literal[this.literalAt]) return this.fail(i, "bad literal");
          i++;
          if (++this.literalAt === this.literal.length) this.valueEnded(i);
          break;
      }
      if (this.end !== undefined) {
        // The object just closed: nothing after it is scanned (the reader stops too, so a stdin held open costs nothing).
        this.state = "complete";
        this.scanned = this.end;
        return this.state;
      }
    }
    this.scanned = i;
    return this.state;
  }

  private fail(at: number, why: string): ScanState {
    this.state = "invalid";
    this.error = `${why} at byte ${at}`;
    this.scanned = at;
    return this.state;
  }

  /** `c` starts a value at `at` (whitespace already skipped); false when it cannot. */
  private startValue(c: number, at: number): boolean {
    if (this.depth === 1 && this.pendingKey !== undefined) {
      const name = this.pendingKey;
      const previous = this.members.get(name);
      const span: MemberSpan = { start: at, end: undefined, kind: c === 0x22 ? "string" : "other", count: (previous?.count ?? 0) + 1 };
      this.members.set(name, span);
      this.capturing = span;
    }
    this.pendingKey = undefined;
    if (c === 0x7b || c === 0x5b) {
      if (this.depth === this.stack.length) {
        const grown = new Uint8Array(this.stack.length * 2);
        grown.set(this.stack);
        this.stack = grown;
      }
      this.stack[this.depth++] = c === 0x7b ? OBJECT : ARRAY;
      this.mode = c === 0x7b ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
    } else if (c === 0x22) this.startString(at, false);
    else if (c === 0x2d) this.mode = MINUS;
    else if (c === 0x30) this.mode = ZERO;
    else if (isDigit(c)) this.mode = INT;
    else if (c === 0x74 || c === 0x66 || c === 0x6e) {
      this.literal = c === 0x74 ? LITERALS.t : c === 0x66 ? LITERALS.f : LITERALS.n;
      this.literalAt = 1;
      this.mode = LITERAL;
    } else return false;
    return true;
  }

  private startString(at: number, isKey: boolean): void {
    this.mode = STRING;
    this.stringIsKey = isKey;
    this.stringStart = at;
    this.stringEscaped = false;
  }

  /** The closing quote of a string is at `at`. */
  private endString(bytes: Uint8Array, at: number): void {
    if (!this.stringIsKey) return this.valueEnded(at + 1);
    this.mode = COLON;
    if (this.depth !== 1) return;
    const length = at - this.stringStart - 1;
    if (length > MAX_WANTED_KEY_BYTES) return;
    const raw = Buffer.from(bytes.buffer, bytes.byteOffset + this.stringStart, length + 2);
    // A key spelled with escapes ("session\u005fid") is the same key to JSON.parse, so it is to us.
    const name = this.stringEscaped ? (JSON.parse(raw.toString("utf8")) as string) : raw.toString("latin1", 1, length + 1);
    if (this.wanted.has(name)) this.pendingKey = name;
  }

  /** The innermost container closes at `at` (the caller checked the bracket matches it). */
  private close(at: number): void {
    this.depth--;
    if (this.depth === 0) this.end = at + 1;
    this.valueEnded(at + 1);
  }

  /** A value ended just before `end`. */
  private valueEnded(end: number): void {
    this.mode = AFTER;
    if (this.depth === 1 && this.capturing) {
      this.capturing.end = end;
      this.capturing = undefined;
    }
  }
}
