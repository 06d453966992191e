#!/usr/bin/env node
/**
 * The `firstlight` command. Thin: parse, call a folder's index, print. Each command module is
 * imported lazily so `firstlight hook …` (run on every tool call) loads only what it needs.
 */
import { runCli } from './run.js';

process.exitCode = await runCli(process.argv.slice(2));
