// agctl logout: the declaration.
import { Command, type Input } from '../../../declare.js';

/** The declaration; its run is ./run.ts, imported when it runs (see the group's file in src/cli/tree/). */
export const logout = () => new Command('logout').description("Remove the profile's stored client secret, its OS keyring entry and its cached tokens");

export type LogoutInput = Input<ReturnType<typeof logout>>;
