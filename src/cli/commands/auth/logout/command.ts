// agctl logout: the declaration.
import { Command, type Input } from '../../../declare.js';

export const command = () =>
  new Command('logout').description("Remove the profile's stored client secret, its OS keyring entry and its cached tokens");

export type LogoutInput = Input<ReturnType<typeof command>>;
