// Runs in every test worker before any test file: the worker's own environment points into a temp sandbox, so even a
// test that forgets to pass an env cannot reach the real user's config or state.
import { afterAll } from "vitest";
import { makeSandbox } from "./sandbox.ts";

const sandbox = makeSandbox("tongs-worker-");
for (const [key, value] of Object.entries(sandbox.env)) if (value !== undefined) process.env[key] = value;
for (const key of Object.keys(process.env)) if (!(key in sandbox.env)) delete process.env[key];
afterAll(() => sandbox.cleanup());
