import type { CommandContext } from '../../context.js';

/** Prints a valid access token on stdout, for scripts (like `gh auth token`). */
export async function run(_opts: unknown, ctx: CommandContext): Promise<number> {
  const { provider, baseUrl } = await ctx.tokens();
  const token = await provider.token();
  if (ctx.out.json) ctx.out.printJson({ accessToken: token, baseUrl });
  else ctx.out.print(token);
  return 0;
}
