// A planning thread's entry when running from source (the built package runs plan-thread.js directly): registers
// tsx's loader in this thread, then imports the TypeScript entry (another one when the pool was given one, in
// tests). tsx is a dev dependency only.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData.entry ?? "./plan-thread.ts");
