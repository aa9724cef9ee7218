// The subcommands of `agctl webhook` (the group itself is declared in program.ts).
import type { Command } from 'commander';
import { addCommands } from '../declare.js';
import { keygen } from '../commands/webhook/keygen/command.js';
import { send } from '../commands/webhook/send/command.js';
import { verify } from '../commands/webhook/verify/command.js';

export function register(webhook: Command): void {
  addCommands(webhook, send(), verify(), keygen());
}
