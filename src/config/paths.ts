// Where agctl keeps its files. AGCTL_CONFIG_DIR / AGCTL_DATA_DIR override the defaults.
import { homedir } from 'node:os';
import { join } from 'node:path';

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AGCTL_CONFIG_DIR) return env.AGCTL_CONFIG_DIR;
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'agctl');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Preferences', 'agctl');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'agctl');
}

/** Data directory of the embedded server used by `agctl serve` and `--embedded`. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AGCTL_DATA_DIR) return env.AGCTL_DATA_DIR;
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'agctl', 'server');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'agctl', 'server');
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'agctl', 'server');
}
