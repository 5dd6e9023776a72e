// The targets thread's entry when running from source (the built package runs targets-worker.js directly):
// registers tsx's loader in this thread, then imports the TypeScript entry point. tsx is a dev dependency only.
import { register } from "tsx/esm/api";

register();
await import("./targets-worker.ts");
