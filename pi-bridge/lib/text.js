// @ts-check
// Bounded, display-safe text for the normalized payload. The hook rejects a payload whose text is too long, contains
// NUL or is not well-formed Unicode (docs/contract.md, "Bounds"), so everything is cleaned and cut here first.

/** Byte limits the hook enforces (src/core/bounds.ts). */
export const LIMITS = Object.freeze({ idBytes: 512, cwdBytes: 4096, detailBytes: 512, toolBytes: 256 });

// C0/C1 controls (ESC too, so ANSI sequences lose their teeth), DEL, and bidirectional overrides and isolates.
// eslint-disable-next-line no-control-regex
const UNSAFE_FOR_DISPLAY = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const encoder = new TextEncoder();

/** @param {string} text */
export function byteLength(text) {
  return encoder.encode(text).length;
}

/**
 * One display line: lone surrogates replaced, unsafe characters become spaces, runs of whitespace one space.
 * @param {unknown} value
 * @returns {string}
 */
export function displayLine(value) {
  if (typeof value !== "string") return "";
  return value.toWellFormed().replace(UNSAFE_FOR_DISPLAY, " ").replace(/\s+/g, " ").trim();
}

/**
 * Cut to at most `maxBytes` UTF-8 bytes on a code point boundary, marking a cut with an ellipsis.
 * @param {string} text
 * @param {number} maxBytes
 * @returns {string}
 */
export function truncateBytes(text, maxBytes) {
  if (byteLength(text) <= maxBytes) return text;
  const ellipsis = "…";
  const budget = maxBytes - byteLength(ellipsis);
  let out = "";
  let used = 0;
  for (const char of text) {
    const size = byteLength(char);
    if (used + size > budget) break;
    out += char;
    used += size;
  }
  return out + ellipsis;
}

/**
 * A display line of at most `maxBytes` bytes.
 * @param {unknown} value
 * @param {number} maxBytes
 */
export function boundedLine(value, maxBytes) {
  return truncateBytes(displayLine(value), maxBytes);
}

/**
 * An identifier or path passed through unchanged when the hook would accept it, else undefined (never cut: a cut id
 * would name another session).
 * @param {unknown} value
 * @param {number} maxBytes
 * @returns {string | undefined}
 */
export function acceptableText(value, maxBytes) {
  if (typeof value !== "string" || value.length === 0) return undefined;
  if (!value.isWellFormed() || value.includes("\0") || byteLength(value) > maxBytes) return undefined;
  return value;
}
