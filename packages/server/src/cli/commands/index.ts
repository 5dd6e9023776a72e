import type { Command } from "commander";
import type { CliRuntime } from "../cli-runtime.js";
import { registerCompanyCommands } from "./company.js";
import { registerDataCommands } from "./data.js";
import { registerDbCommands } from "./db.js";
import { registerOpenApiCommand } from "./openapi.js";
import { registerPartnerCommands } from "./partner.js";
import { registerServeCommand } from "./serve.js";

export type RegisterCommands = (program: Command, cli: CliRuntime) => void;

/** Every top-level command group, in `--help` order. Adding a command is one file plus one line here. */
export const COMMANDS: readonly RegisterCommands[] = [
  registerPartnerCommands,
  registerCompanyCommands,
  registerDataCommands,
  registerDbCommands,
  registerServeCommand,
  registerOpenApiCommand,
];
