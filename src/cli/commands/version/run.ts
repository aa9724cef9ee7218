import { runtime, version } from '../../../version.js';
import type { CommandContext } from '../../context.js';
import type { VersionInput } from './command.js';

export async function run(_input: VersionInput, ctx: CommandContext): Promise<number> {
  const info = { version: version(), ...runtime() };
  if (ctx.out.json) ctx.out.printJson(info);
  else ctx.out.print(`agctl ${info.version}\nNode.js ${info.node} (${info.platform} ${info.arch})`);
  return 0;
}
