// Loads the TypeScript training worker: registers tsx's loader in this thread, then imports the entry point.
import { register } from "tsx/esm/api";

register();
await import("./train-worker.ts");
