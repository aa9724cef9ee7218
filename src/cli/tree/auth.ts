// login, logout and `agctl auth` (the group is declared here: it is always
// loaded): each declaration, with the run it is checked against and imports
// when it runs.
import type { Command } from 'commander';
import { addCommands, lazyRun } from '../declare.js';
import { login } from '../commands/auth/login/command.js';
import { logout } from '../commands/auth/logout/command.js';
import { status } from '../commands/auth/status/command.js';
import { token } from '../commands/auth/token/command.js';
import { list } from '../commands/auth/list/command.js';
import { switchProfile } from '../commands/auth/switch/command.js';

export function register(program: Command): void {
  addCommands(
    program,
    lazyRun(login(), () => import('../commands/auth/login/run.js')),
    lazyRun(logout(), () => import('../commands/auth/logout/run.js')),
  );
  const auth = program.command('auth').description('Inspect authentication state and manage profiles');
  addCommands(
    auth,
    lazyRun(status(), () => import('../commands/auth/status/run.js')),
    lazyRun(token(), () => import('../commands/auth/token/run.js')),
    lazyRun(list(), () => import('../commands/auth/list/run.js')),
    lazyRun(switchProfile(), () => import('../commands/auth/switch/run.js')),
  );
}
