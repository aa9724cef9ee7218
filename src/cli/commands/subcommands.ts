// The program's commands, in help order: one line a command or group (src/cli/README.md).
import { command, group, hiddenWithoutContext, type Entry } from '../tree/entries.js';

export const subcommands: readonly Entry[] = [
  command(
    () => import('./auth/login/command.js'),
    () => import('./auth/login/run.js'),
  ),
  command(
    () => import('./auth/logout/command.js'),
    () => import('./auth/logout/run.js'),
  ),
  group(
    () => import('./auth/command.js'),
    () => import('./auth/subcommands.js'),
  ),
  group(
    () => import('./rules/command.js'),
    () => import('./rules/subcommands.js'),
  ),
  group(
    () => import('./mcp/command.js'),
    () => import('./mcp/subcommands.js'),
  ),
  group(
    () => import('./task/command.js'),
    () => import('./task/subcommands.js'),
  ),
  group(
    () => import('./webhook/command.js'),
    () => import('./webhook/subcommands.js'),
  ),
  command(
    () => import('./api/command.js'),
    () => import('./api/run.js'),
  ),
  command(
    () => import('./serve/command.js'),
    () => import('./serve/run.js'),
  ),
  command(
    () => import('./doctor/command.js'),
    () => import('./doctor/run.js'),
  ),
  command(
    () => import('./help/command.js'),
    () => import('./help/run.js'),
  ),
  command(
    () => import('./completion/command.js'),
    () => import('./completion/run.js'),
  ),
  command(
    () => import('./version/command.js'),
    () => import('./version/run.js'),
  ),
  hiddenWithoutContext(
    () => import('./__complete/command.js'),
    () => import('./__complete/run.js'),
  ),
];
