import type { Command } from 'commander';
import { addCommands } from '../declare.js';
import { serve } from '../commands/serve/command.js';

export function register(program: Command): void {
  addCommands(program, serve());
}
