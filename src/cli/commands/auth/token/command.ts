// agctl auth token: the declaration.
import { Command, type Input } from '../../../declare.js';

/** The declaration; its run is ./run.ts, imported when it runs (see the group's file in src/cli/tree/). */
export const token = () =>
  new Command('token').description('Print a valid access token (for scripts: curl -H "Authorization: Bearer $(agctl auth token)")');

export type TokenInput = Input<ReturnType<typeof token>>;
