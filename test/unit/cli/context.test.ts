// The context and the commands built on it, run in-process with a context
// built directly: fake terminal streams, a scripted prompter, a temp config dir,
// and the in-process embedded server.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError, EXIT_INTERRUPTED, Exit, UsageError } from '../../../src/lib/exit.js';
import { CommandContext } from '../../../src/cli/context.js';
import { noPromptHint, promptsAllowed, readStdin } from '../../../src/cli/io.js';
import { colorEnabled } from '../../../src/cli/paint.js';
import type { Prompter } from '../../../src/cli/prompt.js';
import { missingSecret, readSecret, type SecretSource } from '../../../src/cli/secrets.js';
import { run as login } from '../../../src/cli/commands/auth/login/run.js';
import { run as rulesDelete } from '../../../src/cli/commands/rules/delete/run.js';
import { run as rulesList } from '../../../src/cli/commands/rules/list/run.js';
import type { GlobalFlags } from '../../../src/config/resolve.js';
import { startTestServer } from '../../helpers/server.js';
import { fakeIO } from '../../helpers/io.js';
import { testClock } from '../../helpers/cli.js';

const root = mkdtempSync(join(tmpdir(), 'agctl-ctx-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** A prompter answering from a script, recording the questions. */
function scripted(answers: Record<string, string | boolean>, enabled = true) {
  const asked: string[] = [];
  const answer = (m: string) => {
    asked.push(m);
    const a = Object.entries(answers).find(([k]) => m.startsWith(k));
    if (!a) throw new Error(`unexpected prompt: ${m}`);
    return a[1];
  };
  const p: Prompter = {
    enabled,
    input: async (m, o) => {
      const v = String(answer(m));
      if (o?.validate) expect(o.validate(v)).toBe(true);
      return v;
    },
    password: async (m) => String(answer(m)),
    confirm: async (m) => Boolean(answer(m)),
    select: async () => {
      throw new Error('no select expected');
    },
  };
  return { p, asked };
}

function makeCtx(opts: { env?: Record<string, string>; flags?: GlobalFlags; tty?: boolean; stdin?: string; prompter?: Prompter } = {}) {
  const f = fakeIO(opts);
  const env = { AGCTL_CONFIG_DIR: join(root, `cfg${n++}`), ...opts.env };
  const ctx = new CommandContext({
    io: f.io,
    env,
    flags: { input: true, color: true, ...opts.flags },
    prompter: opts.prompter,
    clock: testClock,
  });
  return { ctx, ...f, env };
}

const s = await startTestServer();
const app = s.demo.rules.appId as string;
const plainEnv = { AGCTL_BASE_URL: s.baseUrl, AGCTL_CLIENT_ID: s.plainClient.clientId, AGCTL_CLIENT_SECRET: s.plainClient.clientSecret };

describe('terminal decisions', () => {
  const io = (tty: boolean) => fakeIO({ tty }).io;
  it('colour: on for a terminal unless NO_COLOR, --no-color or TERM=dumb; FORCE_COLOR forces it', () => {
    expect(colorEnabled(io(true), {}, undefined)).toBe(true);
    expect(colorEnabled(io(false), {}, undefined)).toBe(false);
    expect(colorEnabled(io(true), { NO_COLOR: '1' }, undefined)).toBe(false);
    expect(colorEnabled(io(true), { NO_COLOR: '' }, undefined)).toBe(true);
    expect(colorEnabled(io(true), {}, false)).toBe(false);
    expect(colorEnabled(io(true), { TERM: 'dumb' }, undefined)).toBe(false);
    expect(colorEnabled(io(false), { FORCE_COLOR: '1' }, undefined)).toBe(true);
    expect(colorEnabled(io(false), { FORCE_COLOR: '0' }, undefined)).toBe(false);
    // The prompts write on stderr: its terminal decides for them.
    const stderrOnly = { ...io(false), isStderrTTY: true };
    expect(colorEnabled(stderrOnly, {}, undefined, 'stderr')).toBe(true);
    expect(colorEnabled(stderrOnly, {}, undefined)).toBe(false);
    expect(colorEnabled(stderrOnly, { NO_COLOR: '1' }, undefined, 'stderr')).toBe(false);
  });

  it('prompts: only with terminals on stdin and stdout, CI unset and without --no-input', () => {
    expect(promptsAllowed(io(true), {}, true)).toBe(true);
    expect(promptsAllowed(io(false), {}, true)).toBe(false);
    expect(promptsAllowed(io(true), { CI: '1' }, true)).toBe(false);
    expect(promptsAllowed(io(true), { CI: 'true' }, true)).toBe(false);
    expect(promptsAllowed(io(true), { CI: 'false' }, true)).toBe(true);
    expect(promptsAllowed(io(true), {}, false)).toBe(false);
    const half = { ...io(true), isStdoutTTY: false };
    expect(promptsAllowed(half, {}, true)).toBe(false);
  });

  it('the hint says when agctl asks and what stops it here', () => {
    const half = { ...io(true), isStdinTTY: false };
    expect(noPromptHint(io(false), {}, true)).toBe(
      'agctl asks only on a terminal, with CI unset and without --no-input; here stdin and stdout are not terminals',
    );
    expect(noPromptHint(half, { CI: 'yes' }, true)).toBe(
      'agctl asks only on a terminal, with CI unset and without --no-input; here the CI variable is set (CI=yes) and stdin is not a terminal',
    );
    // A prompter turned off by its caller: only the rule.
    expect(noPromptHint(io(true), {}, true)).toBe('agctl asks only on a terminal, with CI unset and without --no-input');
  });

  it('the context refuses a bad output format before anything runs', () => {
    expect(() => makeCtx({ flags: { output: 'csv' } })).toThrow(UsageError);
    expect(() => makeCtx({ env: { AGCTL_OUTPUT: 'xml' } })).toThrow(/AGCTL_OUTPUT/);
  });
});

describe('readSecret', () => {
  const src: SecretSource = { name: 'client secret', flag: '--client-secret', env: 'AGCTL_CLIENT_SECRET', prompt: 'Client secret' };
  const fake = (o: { stdin?: string; tty?: boolean; env?: Record<string, string>; prompter?: Prompter }) => {
    const { io } = fakeIO(o);
    return { io, env: o.env ?? {}, canPrompt: Boolean(o.prompter?.enabled), prompt: o.prompter } as unknown as CommandContext;
  };

  it('reads stdin, a file, the environment or a prompt, in that order', async () => {
    expect(await readSecret(fake({ stdin: 'from-stdin\n', env: { AGCTL_CLIENT_SECRET: 'env' } }), { ...src, stdin: true })).toBe(
      'from-stdin',
    );
    const file = join(root, 'secret.txt');
    writeFileSync(file, 'from-file\r\n');
    expect(await readSecret(fake({ env: { AGCTL_CLIENT_SECRET: 'env' } }), { ...src, file })).toBe('from-file');
    expect(await readSecret(fake({ env: { AGCTL_CLIENT_SECRET: 'from-env' }, prompter: scripted({ Client: 'p' }).p }), src)).toBe(
      'from-env',
    );
    const { p, asked } = scripted({ 'Client secret': 'typed' });
    expect(await readSecret(fake({ prompter: p }), src)).toBe('typed');
    expect(asked).toEqual(['Client secret']);
    expect(await readSecret(fake({}), src)).toBeUndefined();
  });

  it('refuses ambiguous, empty or unreadable input with usage errors that name the flags', async () => {
    await expect(readSecret(fake({}), { ...src, stdin: true, file: 'x' })).rejects.toThrow(
      'use either --client-secret-stdin or --client-secret-file, not both',
    );
    await expect(readSecret(fake({ tty: true }), { ...src, stdin: true })).rejects.toThrow(/expects the client secret on a pipe/);
    await expect(readSecret(fake({ stdin: '\n' }), { ...src, stdin: true })).rejects.toThrow('the client secret is empty');
    await expect(readSecret(fake({}), { ...src, file: join(root, 'missing') })).rejects.toThrow(
      /^--client-secret-file .*missing: no such file or directory$/,
    );
    await expect(readStdin(fakeIO({ stdin: 'x'.repeat(11) }).io, 'the data', 10)).rejects.toThrow(UsageError);
    expect(await readStdin(fakeIO({ stdin: 'x'.repeat(10) }).io, 'the data', 10)).toBe('x'.repeat(10));
    const m = missingSecret(src);
    expect(m).toBeInstanceOf(UsageError);
    expect(m.message).toBe(
      'missing client secret: provide it with --client-secret-stdin, --client-secret-file, AGCTL_CLIENT_SECRET (or run on a terminal to be prompted)',
    );
  });

  it('drops the whitespace around a secret from every source, and refuses whitespace inside, naming the source', async () => {
    const file = join(root, 'secret-ws.txt');
    writeFileSync(file, '\tfrom-file \r\n');
    expect(await readSecret(fake({ stdin: ' from-stdin \r\n' }), { ...src, stdin: true })).toBe('from-stdin');
    expect(await readSecret(fake({}), { ...src, file })).toBe('from-file');
    expect(await readSecret(fake({ env: { AGCTL_CLIENT_SECRET: 'from-env\r\n' } }), src)).toBe('from-env');
    expect(await readSecret(fake({ prompter: scripted({ 'Client secret': 'typed \t' }).p }), src)).toBe('typed');
    await expect(readSecret(fake({ stdin: 'two words\n' }), { ...src, stdin: true })).rejects.toThrow(
      'the client secret from --client-secret-stdin has whitespace or a control character inside it',
    );
    await expect(readSecret(fake({ env: { AGCTL_CLIENT_SECRET: 'a\r\nb' } }), src)).rejects.toThrow(
      'the client secret from AGCTL_CLIENT_SECRET has whitespace',
    );
    await expect(readSecret(fake({ stdin: ' \r\n' }), { ...src, stdin: true })).rejects.toThrow('the client secret is empty');
  });

  it('asks again at the prompt when the secret typed has whitespace inside', async () => {
    let validate: ((v: string) => true | string) | undefined;
    const p: Prompter = { ...scripted({}).p, password: async (_m, o) => ((validate = o?.validate), 'ok') };
    await readSecret(fake({ prompter: p }), src);
    expect(validate!('two words')).toMatch(/^the client secret has whitespace or a control character inside it/);
    expect(validate!(' ')).toBe('the client secret cannot be empty');
    expect(validate!(' fine\t')).toBe(true);
  });

  it('keeps a text secret (a password, a PEM key) as given, less one trailing line break', async () => {
    const text: SecretSource = { name: 'basic auth password', flag: '--password', text: true };
    expect(await readSecret(fake({ stdin: ' pass word \r\n' }), { ...text, stdin: true })).toBe(' pass word ');
    expect(await readSecret(fake({ stdin: '-----BEGIN KEY-----\nabc\n-----END KEY-----\n\n' }), { ...text, stdin: true })).toBe(
      '-----BEGIN KEY-----\nabc\n-----END KEY-----\n',
    );
  });
});

describe('login (in-process)', () => {
  it('asks for what is missing on a terminal, proves the credentials, then saves the profile', async () => {
    const { p, asked } = scripted({
      'Client ID': s.plainClient.clientId,
      'Base URL': s.baseUrl,
      'Client secret': s.plainClient.clientSecret,
    });
    const { ctx, err, env } = makeCtx({ tty: true, prompter: p });
    expect(await login({ args: [], opts: { switch: true } }, ctx)).toBe(0);
    await ctx.close();
    expect(asked).toEqual(['Client ID', 'Base URL', 'Client secret']);
    expect(err()).toContain(`Logged in to ${s.baseUrl} as ${s.plainClient.clientId} (profile "default")`);
    expect(err()).not.toContain(s.plainClient.clientSecret);
    const config = JSON.parse(readFileSync(join(env.AGCTL_CONFIG_DIR, 'config.json'), 'utf8'));
    expect(config).toEqual({ profiles: { default: { baseUrl: s.baseUrl, clientId: s.plainClient.clientId } }, currentProfile: 'default' });
    expect(ctx.vault.loadCredential({ profile: 'default', baseUrl: s.baseUrl, clientId: s.plainClient.clientId })).toBe(
      s.plainClient.clientSecret,
    );
  });

  // These two wait out the retries of a refused connection, side by side.
  it.concurrent('hints at the base URL typed at the prompt when it cannot be reached, and not at `agctl login` for a wrong secret', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const unreachable = scripted({ 'Client ID': 'bot', 'Base URL': `http://127.0.0.1:${port}`, 'Client secret': 'x' });
    const a = makeCtx({ tty: true, prompter: unreachable.p });
    const e1 = await login({ args: [], opts: { switch: true } }, a.ctx).catch((e: unknown) => e);
    await a.ctx.close();
    expect(e1).toBeInstanceOf(CliError);
    expect((e1 as CliError).hint).toBe('is the server running? check the base URL you entered');
    const wrong = scripted({ 'Client ID': s.plainClient.clientId, 'Base URL': s.baseUrl, 'Client secret': 'wrong-secret' });
    const b = makeCtx({ tty: true, prompter: wrong.p });
    const e2 = await login({ args: [], opts: { switch: true } }, b.ctx).catch((e: unknown) => e);
    await b.ctx.close();
    expect((e2 as CliError).exitCode).toBe(Exit.Unauthenticated);
    expect((e2 as CliError).hint).toBe('check the client ID and secret');
  });

  it.concurrent('takes a base URL typed without scheme as https, and shows it', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const { p } = scripted({ 'Client ID': 'bot', 'Base URL': `127.0.0.1:${port}`, 'Client secret': 'x' });
    const { ctx, err } = makeCtx({ tty: true, prompter: p });
    const e = await login({ args: [], opts: { switch: true } }, ctx).catch((x: unknown) => x);
    await ctx.close();
    expect(err()).toContain(`Base URL: https://127.0.0.1:${port} (https:// assumed)`);
    expect((e as CliError).message).toContain(`cannot reach https://127.0.0.1:${port}`);
  });

  it('suggests the tenant a name@host/suffix client ID names', async () => {
    let suggested: string | undefined;
    const { p } = scripted({ 'Client secret': 'x' });
    p.input = async (_m, o) => {
      suggested = o?.default;
      throw new Error('stop here');
    };
    const { ctx } = makeCtx({ tty: true, prompter: p, flags: { clientId: 'bot@acme.example.com/agctl' } });
    await expect(login({ args: [], opts: { switch: true } }, ctx)).rejects.toThrow('stop here');
    expect(suggested).toBe('https://acme.example.com');
  });

  it('without a terminal, names the flag and the env var of what is missing', async () => {
    const none = makeCtx({ prompter: scripted({}, false).p });
    await expect(login({ args: [], opts: { switch: true } }, none.ctx)).rejects.toThrow(
      'missing client ID: pass --client-id or set AGCTL_CLIENT_ID',
    );
    const noUrl = makeCtx({ prompter: scripted({}, false).p, flags: { clientId: 'plain-bot' } });
    await expect(login({ args: [], opts: { switch: true } }, noUrl.ctx)).rejects.toThrow(
      'missing base URL: pass --base-url or set AGCTL_BASE_URL',
    );
    const noSecret = makeCtx({ prompter: scripted({}, false).p, flags: { clientId: 'plain-bot', baseUrl: s.baseUrl } });
    await expect(login({ args: [], opts: { switch: true } }, noSecret.ctx)).rejects.toThrow(
      /missing client secret: provide it with --client-secret-stdin/,
    );
  });

  it('saves nothing when the token request fails', async () => {
    const { ctx, env } = makeCtx({ prompter: scripted({}, false).p, env: { ...plainEnv, AGCTL_CLIENT_SECRET: 'wrong' } });
    const err = await login({ args: [], opts: { switch: true } }, ctx).catch((e: unknown) => e);
    await ctx.close();
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(Exit.Unauthenticated);
    expect(() => readFileSync(join(env.AGCTL_CONFIG_DIR, 'config.json'))).toThrow();
    expect(ctx.vault.storedRecords('default')).toEqual([]);
  });
});

describe('login on a profile logged in to another tenant or as another client', async () => {
  /** A prompter answering by the start of the message (a function: from the prompt's default), recording the defaults offered. */
  function recording(answers: Record<string, string | boolean | ((d: string | undefined) => string)>) {
    const asked: { message: string; default?: string }[] = [];
    const answer = (m: string, d?: string) => {
      asked.push({ message: m, default: d });
      const a = Object.entries(answers).find(([k]) => m.startsWith(k));
      if (!a) throw new Error(`unexpected prompt: ${m}`);
      return typeof a[1] === 'function' ? a[1](d) : a[1];
    };
    const p: Prompter = {
      enabled: true,
      input: async (m, o) => String(answer(m, o?.default)),
      password: async (m) => String(answer(m)),
      confirm: async (m) => Boolean(answer(m)),
      select: async () => {
        throw new Error('no select expected');
      },
    };
    return { p, asked };
  }
  const other = await startTestServer();
  /** A config directory whose "default" profile is logged in to the test server as its plain client. */
  async function loggedIn() {
    const { ctx, env } = makeCtx({ env: plainEnv });
    expect(await login({ args: [], opts: { switch: true } }, ctx)).toBe(0);
    await ctx.close();
    return env.AGCTL_CONFIG_DIR;
  }
  const configOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));

  it("on a terminal: the base URL prompt offers the profile's own, and a change of client or base URL is asked about first (No: nothing changed, nothing sent)", async () => {
    const dir = await loggedIn();
    const before = configOf(dir);
    // a client ID naming another tenant: the base URL offered is still the profile's
    const { p, asked } = recording({
      'Client ID': 'bot@elsewhere.example.com/x',
      'Base URL': (d) => d!,
      'Profile "default" is saved for': false,
    });
    const { ctx, err } = makeCtx({ tty: true, prompter: p, env: { AGCTL_CONFIG_DIR: dir } });
    expect(await login({ args: [], opts: { switch: true } }, ctx)).toBe(EXIT_INTERRUPTED);
    await ctx.close();
    expect(asked.map((a) => [a.message, a.default])).toEqual([
      ['Client ID', s.plainClient.clientId],
      ['Base URL', s.baseUrl],
      [
        `Profile "default" is saved for ${s.baseUrl} as ${s.plainClient.clientId}. Replace it (client ID ${s.plainClient.clientId} -> bot@elsewhere.example.com/x)?`,
        undefined,
      ],
    ]);
    expect(err()).toContain('Nothing changed: profile "default" is kept as it was');
    expect(configOf(dir)).toEqual(before);

    // Yes: replaced by the login to the other server
    const yes = recording({
      'Client ID': (d) => d!,
      'Base URL': other.baseUrl,
      'Profile "default" is saved for': true,
      'Client secret': other.plainClient.clientSecret,
    });
    const second = makeCtx({ tty: true, prompter: yes.p, env: { AGCTL_CONFIG_DIR: dir } });
    expect(await login({ args: [], opts: { switch: true } }, second.ctx)).toBe(0);
    await second.ctx.close();
    expect(yes.asked.map((a) => a.message)).toEqual([
      'Client ID',
      'Base URL',
      `Profile "default" is saved for ${s.baseUrl} as ${s.plainClient.clientId}. Replace it (base URL ${s.baseUrl} -> ${other.baseUrl})?`,
      'Client secret',
    ]);
    expect(configOf(dir).profiles.default).toEqual({ baseUrl: other.baseUrl, clientId: other.plainClient.clientId });
    // only the new credential is left
    expect(second.ctx.vault.storedRecords('default').map((r) => r.baseUrl)).toEqual([other.baseUrl]);
  });

  it('without a terminal: another client or base URL needs --force (exit 2 naming it, nothing sent); the same client and base URL log in again as before', async () => {
    const dir = await loggedIn();
    const before = configOf(dir);
    for (const change of [{ AGCTL_CLIENT_ID: 'another-client' }, { AGCTL_BASE_URL: other.baseUrl }]) {
      const { ctx } = makeCtx({ env: { ...plainEnv, ...change, AGCTL_CONFIG_DIR: dir } });
      const err = await login({ args: [], opts: { switch: true } }, ctx).catch((e: unknown) => e);
      await ctx.close();
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).message).toMatch(
        /^profile "default" is saved for .*: this login would replace it \(.*\); pass --force to replace it$/,
      );
      expect(configOf(dir)).toEqual(before);
    }
    // the same client and base URL: a new secret, no question
    const same = makeCtx({ env: { ...plainEnv, AGCTL_CONFIG_DIR: dir } });
    expect(await login({ args: [], opts: { switch: true } }, same.ctx)).toBe(0);
    await same.ctx.close();
    // --force replaces it
    const forced = makeCtx({
      env: { ...plainEnv, AGCTL_BASE_URL: other.baseUrl, AGCTL_CLIENT_SECRET: other.plainClient.clientSecret, AGCTL_CONFIG_DIR: dir },
    });
    expect(await login({ args: [], opts: { switch: true, force: true } }, forced.ctx)).toBe(0);
    await forced.ctx.close();
    expect(configOf(dir).profiles.default.baseUrl).toBe(other.baseUrl);
  });
});

describe('rules commands (in-process)', () => {
  it('delete asks on a terminal and deletes nothing when the answer is no (exit 130, as a cancel)', async () => {
    const { p, asked } = scripted({ Delete: false });
    const { ctx, err } = makeCtx({ tty: true, prompter: p }); // no credentials: any API call would fail
    expect(await rulesDelete({ args: [app, ['ecr-001', 'ecr-002', 'ecr-001']], opts: {} }, ctx)).toBe(EXIT_INTERRUPTED);
    expect(asked).toEqual([`Delete 2 rules (ecr-001, ecr-002) from app ${app}?`]);
    expect(err()).toContain('Nothing deleted');
  });

  it('delete needs --yes without a terminal', async () => {
    const { ctx } = makeCtx({ prompter: scripted({}, false).p, env: plainEnv });
    await expect(rulesDelete({ args: [app, ['ecr-001']], opts: {} }, ctx)).rejects.toThrow(
      'refusing to delete without confirmation: pass --yes',
    );
  });

  it('delete without --yes on a terminal: the hint names what stops the prompt (CI, --no-input)', async () => {
    const hintOf = async (o: Parameters<typeof makeCtx>[0]) => {
      const err = await rulesDelete({ args: [app, ['ecr-001']], opts: {} }, makeCtx({ env: plainEnv, ...o, tty: true }).ctx).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).message).toBe('refusing to delete without confirmation: pass --yes');
      return (err as UsageError).hint;
    };
    expect(await hintOf({ env: { ...plainEnv, CI: 'true' } })).toBe(
      'agctl asks only on a terminal, with CI unset and without --no-input; here the CI variable is set (CI=true)',
    );
    expect(await hintOf({ flags: { input: false } })).toBe(
      'agctl asks only on a terminal, with CI unset and without --no-input; here --no-input was given',
    );
    expect(await hintOf({ env: { ...plainEnv, CI: '1' }, flags: { input: false } })).toMatch(
      /; here --no-input was given and the CI variable is set \(CI=1\)$/,
    );
  });

  it('delete reports each rule and returns the worst exit code', async () => {
    const { p } = scripted({ Delete: true });
    const { ctx, err } = makeCtx({ tty: true, prompter: p, env: plainEnv });
    expect(await rulesDelete({ args: [app, ['ecr-020', 'ecr-nope']], opts: {} }, ctx)).toBe(Exit.NotFound);
    await ctx.close();
    expect(err()).toContain('Deleted rule ecr-020');
    expect(err()).toMatch(/rule ecr-nope: entitlement configuration rule ecr-nope not found in app crm-app \(HTTP 404, NotFound\)/);
  });

  it('list prints a table in evaluation order, or JSON', async () => {
    const table = makeCtx({ env: plainEnv });
    expect(await rulesList({ args: [app], opts: { limit: 4, pageSize: 3 } }, table.ctx)).toBe(0);
    await table.ctx.close();
    const lines = table.out().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PRIORITY\s+ID\s+NAME\s+ENABLED\s+CONDITION\s+REQUEST POLICY$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[1])).toEqual(['ecr-001', 'ecr-002', 'ecr-003', 'ecr-004']);

    const json = makeCtx({ env: plainEnv, flags: { output: 'json' } });
    expect(await rulesList({ args: ['empty-app'], opts: {} }, json.ctx)).toBe(0);
    await json.ctx.close();
    expect(JSON.parse(json.out())).toEqual([]);
  });
});

describe('User-Agent', () => {
  it('every request of a command says agctl/<package version> and the Node version', async () => {
    const { tinyServer } = await import('../client/tiny-server.js');
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    const t = await tinyServer();
    t.reset((_r, res) => res.end('{}'));
    const { ctx } = makeCtx();
    try {
      await ctx.http.send({ method: 'GET', url: `${t.url}/x` });
      expect(t.seen[0]!.headers['user-agent']).toBe(`agctl/${pkg.version} node/${process.versions.node}`);
    } finally {
      await ctx.close();
      await t.close();
    }
  });
});
