#!/usr/bin/env node
// Thin shim: process → main(argv, io) → process.exitCode.
import { runCli } from '../dist/cli/node-io.js';

process.exitCode = await runCli(process.argv.slice(2));
