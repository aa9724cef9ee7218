// help topics and shell completion.
import type { Command } from 'commander';
import { addCommands } from '../declare.js';
import { completion } from '../commands/completion/command.js';
import { help } from '../commands/help/command.js';

export function register(program: Command): void {
  addCommands(program, help(), completion());
}
