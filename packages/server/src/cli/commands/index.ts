import type { Command } from "commander";
import type { CliRuntime } from "../cli-runtime.js";
import { registerBacktestCommand } from "./backtest.js";
import { registerBatchCommands } from "./batch.js";
import { registerCompanyCommands } from "./company.js";
import { registerDataCommands } from "./data.js";
import { registerDbCommands } from "./db.js";
import { registerDemoCommand } from "./demo.js";
import { registerInitCommand } from "./init.js";
import { registerModelCommand } from "./model.js";
import { registerOpenApiCommand } from "./openapi.js";
import { registerOverrideCommands } from "./override.js";
import { registerPartnerCommands } from "./partner.js";
import { registerPromoteCommand } from "./promote.js";
import { registerServeCommand } from "./serve.js";
import { registerStoreCommands } from "./store.js";
import { registerTrainCommand } from "./train.js";
import { registerWebhookCommands } from "./webhook.js";
import { registerWorkerCommand } from "./worker.js";

export type RegisterCommands = (program: Command, cli: CliRuntime) => void;

/** Every top-level command group, in `--help` order. Adding a command is one file plus one line here. */
export const COMMANDS: readonly RegisterCommands[] = [
  registerInitCommand,
  registerPartnerCommands,
  registerCompanyCommands,
  registerDataCommands,
  registerDbCommands,
  registerServeCommand,
  registerWorkerCommand,
  registerOpenApiCommand,
  registerTrainCommand,
  registerPromoteCommand,
  registerModelCommand,
  registerBacktestCommand,
  registerOverrideCommands,
  registerBatchCommands,
  registerStoreCommands,
  registerWebhookCommands,
  registerDemoCommand,
];
