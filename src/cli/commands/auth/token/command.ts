// agctl auth token: the declaration.
import { Command, type Input } from '../../../declare.js';

export const command = () =>
  new Command('token').description('Print a valid access token (for scripts: curl -H "Authorization: Bearer $(agctl auth token)")');

export type TokenInput = Input<ReturnType<typeof command>>;
