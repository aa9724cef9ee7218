// agctl auth status: the declaration.
import { Command, type Input } from '../../../declare.js';

/** The declaration; its run is ./run.ts, imported when it runs (see the group's file in src/cli/tree/). */
export const status = () => new Command('status').description('Show the profile, base URL, client ID and token expiry (never the token)');

export type StatusInput = Input<ReturnType<typeof status>>;
