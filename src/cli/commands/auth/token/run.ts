import type { CommandContext } from '../../../context.js';
import type { TokenInput } from './command.js';

/** Prints a valid access token on stdout, for scripts (like `gh auth token`). */
export async function run(_input: TokenInput, ctx: CommandContext): Promise<number> {
  const { provider, baseUrl } = await ctx.tokens();
  const token = await provider.token();
  if (ctx.out.json) ctx.out.printJson({ accessToken: token, baseUrl });
  else ctx.out.print(token);
  return 0;
}
