// Runs in every e2e worker after test/setup.ts sandboxed its environment: testcontainers and the image builder read
// these variables from process.env.
import { inject } from "vitest";

Object.assign(process.env, inject("containerEnv"));
