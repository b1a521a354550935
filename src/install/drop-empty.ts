// Tidying after a harness's own command removed our entry: `claude mcp remove` (2.1.332) leaves `"mcpServers": {}`
// and `pi remove` (1.6.0) leaves `"packages": []`, which install brought there. The plan names the keys only when
// our entry was the last one in them; this reads the file as the command left it and removes each key that is now
// empty, then the file itself when install created it and nothing is left.
import { isRecord } from "../core/json-value.ts";
import { deleteConfigFile, readConfigFile, writeConfigFile, type WriteResult } from "./file-edit.ts";
import { parseJsonDocument, removeJsonValue } from "./json-text.ts";

export const isEmptyContainer = (value: unknown): boolean =>
  (Array.isArray(value) && value.length === 0) || (isRecord(value) && Object.keys(value).length === 0);

/** True when a config file's text holds nothing: whitespace only, or (JSON) an object without keys. */
export function isEmptyConfig(text: string): boolean {
  if (text.trim() === "") return true;
  const doc = parseJsonDocument(text);
  return doc.ok && Object.keys(doc.data).length === 0;
}

export async function dropEmpty(path: string, keys: readonly string[], deleteIfEmpty: boolean): Promise<WriteResult> {
  const read = readConfigFile(path);
  if (!read.ok || read.text === null) return read.ok ? { ok: true } : read;
  const doc = parseJsonDocument(read.text);
  // A file the command left unreadable is not ours to judge: leave it as it is.
  if (!doc.ok) return { ok: true };
  let text = doc.text;
  for (const key of keys) if (isEmptyContainer(doc.data[key])) text = removeJsonValue(text, [key]);
  if (deleteIfEmpty && isEmptyConfig(text)) return deleteConfigFile(path, read.text);
  return text === read.text ? { ok: true } : writeConfigFile(path, read.text, text);
}
