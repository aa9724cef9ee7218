// Loads the two parts of undici the client uses. The package index loads every
// API and dispatcher (~50 ms of start-up); the agent and request modules alone
// are what a command needs. Falls back to the package index if its layout changes.
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import type { Agent as AgentType, Dispatcher } from 'undici';

const require = createRequire(import.meta.url);

type RequestFn = (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
interface UndiciParts {
  Agent: typeof AgentType;
  request: RequestFn;
}

let parts: UndiciParts | undefined;

export function undici(): UndiciParts {
  if (parts) return parts;
  // undici parses HTTP with a WebAssembly build of llhttp. V8 optimises that
  // module on background threads and process exit waits for them: ~45 ms of
  // every short command. The baseline compiler alone is plenty for a CLI.
  // (Set here, not at start-up: node:v8 itself costs ~10% of `agctl --help`.)
  setFlagsFromString('--liftoff-only');
  try {
    parts = { Agent: require('undici/lib/dispatcher/agent.js'), request: require('undici/lib/api/api-request.js') };
  } catch {
    const u = require('undici') as typeof import('undici');
    parts = { Agent: u.Agent, request: function (this: Dispatcher, opts: Dispatcher.RequestOptions) { return this.request(opts); } };
  }
  return parts;
}
