// Flag parsing: argv -> the options object each command's run() receives, and
// the global flags the context resolves. The runner is replaced by a recorder,
// so nothing runs and nothing touches the network.
import { CommanderError, type Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const h = vi.hoisted(() => ({
  calls: [] as { name: string; opts: any; ctx: unknown; cmd?: Command }[],
  globals: undefined as Record<string, unknown> | undefined,
}));

// The runner is replaced by a recorder: it records the command and what its
// run would receive, and runs nothing (no command's run.ts is imported).
vi.mock('../../../src/cli/run.js', async () => {
  const { inputOf } = await import('../../../src/cli/tree/entries.js');
  const path = (c: Command): string => (c.parent?.parent ? `${path(c.parent)} ${c.name()}` : c.name());
  return {
    execute: async (cmd: Command) => {
      h.globals = cmd.optsWithGlobals();
      h.calls.push({ name: path(cmd), opts: inputOf(cmd as never), ctx: { fake: 'ctx' }, cmd });
    },
  };
});

const { buildProgram, groupsFor, walk, wantsJson } = await import('../../../src/cli/program.js');
const { positiveInt, collect } = await import('../../../src/cli/tree/util.js');

/** The groups, as src/cli/tree/commands.ts declares them. */
const GROUPS = ['auth', 'rules', 'mcp', 'task', 'webhook'];

interface Call {
  name: string;
  opts: any;
  ctx: unknown;
  cmd?: Command;
  globals: Record<string, unknown>;
  output: string;
}
interface ParseFailure {
  error: CommanderError;
  output: string;
}

/** Parses argv (without "node agctl") on a fresh program; returns the recorded call or the commander error. */
async function attempt(argv: string[]): Promise<Call | ParseFailure> {
  // As main() does: only the groups this command line names are loaded.
  const program = await buildProgram(argv);
  const out: string[] = [];
  for (const c of walk(program)) c.configureOutput({ writeOut: (s) => void out.push(s), writeErr: (s) => void out.push(s) });
  h.calls.length = 0;
  h.globals = undefined;
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return { error: err, output: out.join('') };
    throw err;
  }
  expect(h.calls).toHaveLength(1);
  return { ...h.calls[0]!, globals: h.globals!, output: out.join('') };
}

async function parse(...argv: string[]): Promise<Call> {
  const r = await attempt(argv);
  if ('error' in r) throw new Error(`unexpected parse error for ${argv.join(' ')}: ${r.output}`);
  return r;
}

async function parseError(...argv: string[]): Promise<ParseFailure> {
  const r = await attempt(argv);
  if (!('error' in r)) throw new Error(`expected a parse error for ${argv.join(' ')}`);
  return r;
}

beforeEach(() => {
  h.calls.length = 0;
});

describe('the tree', () => {
  it('has every command folder (a folder with a command.ts), each once, and nothing else', async () => {
    const root = fileURLToPath(new URL('../../../src/cli/commands/', import.meta.url));
    const folders = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => basename(f) === 'command.ts');
    const inTree = [...walk(await buildProgram())].slice(1);
    const found = await Promise.all(
      folders.map(async (f) => {
        const declared = (await import(join(root, f))).command() as Command;
        return inTree.filter((c) => c.name() === declared.name() && c.description() === declared.description());
      }),
    );
    for (const [i, f] of folders.entries()) expect(found[i], f).toHaveLength(1);
    expect(new Set(found.flat()).size).toBe(inTree.length);
  });
});

describe('group loading', () => {
  it('loads only the group a command line names', () => {
    expect([...groupsFor(['rules', 'list', 'x'], GROUPS)]).toEqual(['rules']);
    expect([...groupsFor(['--profile', 'rules', 'mcp', 'get', 'a', 'b'], GROUPS)]).toEqual(['mcp']);
    expect([...groupsFor(['-o', 'json', 'task', 'approve-step-up', 't'], GROUPS)]).toEqual(['task']);
    expect([...groupsFor(['--output=json', 'webhook', 'send'], GROUPS)]).toEqual(['webhook']);
    expect([...groupsFor(['help', 'rules', 'list'], GROUPS)]).toEqual(['rules']);
    expect([...groupsFor(['--help'], GROUPS)]).toEqual([]);
    expect([...groupsFor(['login', '--client-id', 'x'], GROUPS)]).toEqual([]);
    expect([...groupsFor(['completion', 'bash'], GROUPS)].sort()).toEqual(['auth', 'mcp', 'rules', 'task', 'webhook']);
    expect([...groupsFor(['--', 'rules'], GROUPS)].sort()).toEqual(['auth', 'mcp', 'rules', 'task', 'webhook']);
    // Commands declare the variables they read: `help environment` needs them all.
    expect([...groupsFor(['help', 'environment'], GROUPS)].sort()).toEqual(['auth', 'mcp', 'rules', 'task', 'webhook']);
    expect([...groupsFor(['help', 'exit-codes'], GROUPS)]).toEqual([]);
    expect([...groupsFor(['auth', 'status'], GROUPS)]).toEqual(['auth']);
    expect([...groupsFor(['rules', 'list', '--', 'x'], GROUPS)]).toEqual(['rules']);
  });

  it('shows every group in the root help whether or not it is loaded', async () => {
    const lean = (await buildProgram(['--help'])).helpInformation();
    const full = (await buildProgram()).helpInformation();
    expect(lean).toBe(full);
  });
});

describe('environment variables', () => {
  it('are listed from the declarations of the loaded commands, once each', async () => {
    const { environment } = await import('../../../src/cli/environment.js');
    const names = environment(await buildProgram(['help', 'environment'])).map((v) => v.name);
    expect(names.filter((n) => n === 'AGCTL_WEBHOOK_SECRET')).toHaveLength(1);
    // Between the variables every command reads (the proxies last) and the terminal conventions, in the order of the tree.
    const declared = names.slice(names.indexOf('NO_PROXY') + 1, names.indexOf('NO_COLOR'));
    expect(declared).toEqual([
      // The MCP secrets in the order of the auth method table (src/api/mcp-auth.ts).
      'AGCTL_MCP_BEARER_TOKEN',
      'AGCTL_MCP_OAUTH2_CLIENT_SECRET',
      'AGCTL_MCP_JWT_PRIVATE_KEY',
      'AGCTL_MCP_HEADER_VALUE',
      'AGCTL_MCP_GOOGLE_CREDENTIALS',
      'AGCTL_MCP_AWS_SECRET_ACCESS_KEY',
      'AGCTL_MCP_AWS_SESSION_TOKEN',
      'AGCTL_MCP_PASSWORD',
      'BROWSER',
      'AGCTL_WEBHOOK_SECRET',
      'AGCTL_COMPLETE_BUDGET_MS',
    ]);
    expect(environment(await buildProgram(['help', 'rules'])).map((v) => v.name)).not.toContain('AGCTL_WEBHOOK_SECRET');
  });

  it('declared by mcp set-credentials are the ones its secret inputs read', async () => {
    const { SECRET_INPUTS } = await import('../../../src/cli/commands/mcp/draft.js');
    const { command: setCredentials } = await import('../../../src/cli/commands/mcp/set-credentials/command.js');
    const { declaredEnv } = await import('../../../src/cli/declare.js');
    expect(declaredEnv(setCredentials()).map((v) => v.name)).toEqual(SECRET_INPUTS.map((i) => i.env));
  });
});

describe('command options', () => {
  it('rules list', async () => {
    expect(await parse('rules', 'list', 'crm-app')).toMatchObject({
      name: 'rules list',
      opts: { args: ['crm-app'], opts: {} },
      ctx: { fake: 'ctx' },
    });
    expect((await parse('rules', 'list', 'crm-app', '--limit', '5', '--page-size', '7')).opts).toEqual({
      args: ['crm-app'],
      opts: { limit: 5, pageSize: 7 },
    });
    expect((await parse('rules', 'list', '--page-size=250', 'x')).opts).toEqual({ args: ['x'], opts: { pageSize: 250 } });
  });

  it('rules delete', async () => {
    expect((await parse('rules', 'delete', 'crm-app', 'ecr-1')).opts).toEqual({ args: ['crm-app', ['ecr-1']], opts: {} });
    expect((await parse('rules', 'delete', 'crm-app', 'ecr-1', 'ecr-2', '-y')).opts).toEqual({
      args: ['crm-app', ['ecr-1', 'ecr-2']],
      opts: { yes: true },
    });
    expect((await parse('rules', 'delete', '--yes', 'a', 'b')).opts).toEqual({ args: ['a', ['b']], opts: { yes: true } });
  });

  it('rules get', async () => {
    expect(await parse('rules', 'get', 'crm-app', 'ecr-1')).toMatchObject({
      name: 'rules get',
      opts: { args: ['crm-app', 'ecr-1'], opts: {} },
    });
  });

  it('mcp list, mcp catalog list and get', async () => {
    expect(await parse('mcp', 'list', 'ai-tools')).toMatchObject({ name: 'mcp list', opts: { args: ['ai-tools'], opts: {} } });
    expect((await parse('mcp', 'list', 'ai-tools', '--limit', '2', '--page-size', '100')).opts).toEqual({
      args: ['ai-tools'],
      opts: { limit: 2, pageSize: 100 },
    });
    expect(await parse('mcp', 'catalog', 'list')).toMatchObject({ name: 'mcp catalog list', opts: { args: [], opts: {} } });
    expect((await parse('mcp', 'catalog', 'list', '--query', 'git', '--limit', '3')).opts).toEqual({
      args: [],
      opts: { query: 'git', limit: 3 },
    });
    expect(await parse('mcp', 'catalog', 'get', 'c1')).toMatchObject({ name: 'mcp catalog get', opts: { args: ['c1'], opts: {} } });
  });

  it('task list and get', async () => {
    expect(await parse('task', 'list')).toMatchObject({ name: 'task list', opts: { args: [], opts: { state: 'open' } } });
    const r = await parse('task', 'list', '--state', 'all', '--query', 'crm', '--mine', '--limit', '5', '--page-size', '20');
    expect(r.opts).toEqual({ args: [], opts: { state: 'all', query: 'crm', mine: true, limit: 5, pageSize: 20 } });
    expect(await parse('task', 'get', 't1', '--expand', 'app')).toMatchObject({
      name: 'task get',
      opts: { args: ['t1'], opts: { expand: 'app' } },
    });
  });

  it('login', async () => {
    expect((await parse('login')).opts).toEqual({ args: [], opts: { switch: true } });
    expect((await parse('login', '--client-secret-stdin')).opts).toEqual({ args: [], opts: { clientSecretStdin: true, switch: true } });
    expect((await parse('login', '--client-secret-file', '/tmp/s')).opts).toEqual({
      args: [],
      opts: { clientSecretFile: '/tmp/s', switch: true },
    });
    expect((await parse('login', '--no-switch')).opts).toEqual({ args: [], opts: { switch: false } });
    expect((await parse('login', '--insecure-storage')).opts).toEqual({ args: [], opts: { insecureStorage: true, switch: true } });
  });

  it('logout, auth status, auth token, auth list, auth switch', async () => {
    expect(await parse('logout')).toMatchObject({ name: 'logout', opts: { args: [], opts: {} } });
    expect(await parse('auth', 'status')).toMatchObject({ name: 'auth status', opts: { args: [], opts: {} } });
    expect(await parse('auth', 'status', '--offline')).toMatchObject({ name: 'auth status', opts: { args: [], opts: { offline: true } } });
    expect(await parse('auth', 'token')).toMatchObject({ name: 'auth token', opts: { args: [], opts: {} } });
    expect(await parse('auth', 'list')).toMatchObject({ name: 'auth list', opts: { args: [], opts: {} } });
    expect(await parse('auth', 'switch', 'ci')).toMatchObject({ name: 'auth switch', opts: { args: ['ci'], opts: {} } });
  });

  it('mcp set-credentials and get', async () => {
    expect(await parse('mcp', 'get', 'ai-tools', 'wiki-mcp')).toMatchObject({
      name: 'mcp get',
      opts: { args: ['ai-tools', 'wiki-mcp'], opts: {} },
    });
    const r = await parse(
      'mcp',
      'set-credentials',
      'a',
      'c',
      '--external',
      '--transport',
      'sse',
      '--config',
      'k=v',
      '--config',
      'k2=v2',
      '--auth',
      'bearer',
      '--bearer-token-stdin',
      '--oauth2-authorize-param',
      'x=1',
      '--update-mask',
      'url',
      '-i',
      '--dry-run',
    );
    expect(r.opts).toEqual({
      args: ['a', 'c'],
      opts: {
        external: true,
        transport: 'sse',
        config: ['k=v', 'k2=v2'],
        auth: 'bearer',
        bearerTokenStdin: true,
        oauth2AuthorizeParam: ['x=1'],
        updateMask: 'url',
        interactive: true,
        dryRun: true,
      },
    });
  });

  it('task approve-step-up', async () => {
    expect(await parse('task', 'approve-step-up', 't1')).toMatchObject({
      name: 'task approve-step-up',
      opts: { args: ['t1'], opts: { wait: true } },
    });
    const r = await parse(
      'task',
      'approve-step-up',
      't1',
      '--step',
      's1',
      '--transaction-id',
      'tx',
      '--comment',
      'ok',
      '--expand',
      '*',
      '--open',
      '--no-wait',
      '--wait-timeout',
      '60',
    );
    expect(r.opts).toEqual({
      args: ['t1'],
      opts: { step: 's1', transactionId: 'tx', comment: 'ok', expand: '*', open: true, wait: false, waitTimeout: 60 },
    });
  });

  it('api, its repeatable flags collected in order', async () => {
    expect((await parse('api', '/api/v1/x')).opts).toEqual({ args: ['/api/v1/x'], opts: { rawField: [], field: [], header: [] } });
    const r = await parse(
      'api',
      '/api/v1/x',
      '-X',
      'POST',
      '-f',
      'a=1',
      '-f',
      'b[]=2',
      '-F',
      'n=3',
      '--input',
      'body.json',
      '-H',
      'X-A: 1',
      '-H',
      'X-B: 2',
      '-i',
      '--paginate',
      '--allow-any-path',
    );
    expect(r).toMatchObject({ name: 'api' });
    expect(r.opts).toEqual({
      args: ['/api/v1/x'],
      opts: {
        method: 'POST',
        rawField: ['a=1', 'b[]=2'],
        field: ['n=3'],
        input: 'body.json',
        header: ['X-A: 1', 'X-B: 2'],
        include: true,
        paginate: true,
        allowAnyPath: true,
      },
    });
  });

  it('doctor', async () => {
    expect(await parse('doctor')).toMatchObject({ name: 'doctor', opts: { args: [], opts: {} } });
  });

  it('serve, with its defaults', async () => {
    expect((await parse('serve')).opts).toEqual({ args: [], opts: { host: '127.0.0.1', tokenTtl: 3600 } });
    const r = await parse(
      'serve',
      '--host',
      '0.0.0.0',
      '--port',
      '8080',
      '--data-dir',
      'd',
      '--ready-file',
      'r.json',
      '--token-ttl',
      '5',
      '--frontend-url',
      'https://ui.example.com',
      '--trust-proxy',
      '--allow-insecure-jwks',
      '--quiet',
    );
    expect(r.opts).toEqual({
      args: [],
      opts: {
        host: '0.0.0.0',
        port: 8080,
        dataDir: 'd',
        readyFile: 'r.json',
        tokenTtl: 5,
        frontendUrl: 'https://ui.example.com',
        trustProxy: true,
        allowInsecureJwks: true,
        quiet: true,
      },
    });
  });

  it('webhook send, verify and keygen', async () => {
    expect(await parse('webhook', 'send', 'L1')).toMatchObject({
      name: 'webhook send',
      opts: { args: ['L1'], opts: { jwtTtl: 300, header: [] } },
    });
    const send = await parse(
      'webhook',
      'send',
      'L1',
      '-d',
      '{}',
      '-H',
      'A: 1',
      '--header',
      'B: 2',
      '--alg',
      'EdDSA',
      '--jwt-key',
      'k',
      '--timestamp',
      '1700000000',
      '--count',
      '3',
      '--dry-run',
      '--secret-stdin',
    );
    expect(send.opts).toEqual({
      args: ['L1'],
      opts: {
        data: '{}',
        header: ['A: 1', 'B: 2'],
        alg: 'EdDSA',
        jwtKey: 'k',
        timestamp: 1700000000,
        count: 3,
        dryRun: true,
        secretStdin: true,
        jwtTtl: 300,
      },
    });
    const verify = await parse(
      'webhook',
      'verify',
      '--request',
      'r.http',
      '--allowed-cidr',
      '10.0.0.0/8',
      '--allowed-cidr',
      '::1/128',
      '--now',
      '5',
      '--trust-proxy',
    );
    expect(verify.opts).toEqual({
      args: [],
      opts: { request: 'r.http', header: [], allowedCidr: ['10.0.0.0/8', '::1/128'], now: 5, trustProxy: true },
    });
    expect((await parse('webhook', 'keygen')).opts).toEqual({ args: [], opts: { alg: 'ES256' } });
    expect((await parse('webhook', 'keygen', '--alg', 'RS256', '--out', 'k/p', '--force')).opts).toEqual({
      args: [],
      opts: { alg: 'RS256', out: 'k/p', force: true },
    });
    // Algorithm names in any case, given to run in their canonical spelling.
    expect((await parse('webhook', 'keygen', '--alg', 'es256')).opts).toEqual({ args: [], opts: { alg: 'ES256' } });
    expect((await parse('webhook', 'keygen', '--alg', 'eddsa')).opts).toEqual({ args: [], opts: { alg: 'EdDSA' } });
    expect((await parse('webhook', 'send', 'L1', '--alg', 'rs256')).opts.opts).toMatchObject({ alg: 'RS256' });
  });

  it('webhook listeners list|create and webhook runs', async () => {
    expect(await parse('webhook', 'listeners', 'list', '--limit', '5')).toMatchObject({
      name: 'webhook listeners list',
      opts: { args: [], opts: { limit: 5 } },
    });
    const create = await parse(
      'webhook',
      'listeners',
      'create',
      '--auth-method',
      'jwt',
      '--name',
      'Partner',
      '--jwks-url',
      'https://k.example.com/jwks.json',
      '--allowed-cidr',
      '10.0.0.0/8,::1',
      '--allowed-cidr',
      '192.168.0.0/16',
    );
    expect(create).toMatchObject({ name: 'webhook listeners create' });
    expect(create.opts).toEqual({
      args: [],
      opts: {
        authMethod: 'JWT',
        name: 'Partner',
        jwksUrl: 'https://k.example.com/jwks.json',
        allowedCidr: ['10.0.0.0/8,::1', '192.168.0.0/16'],
      },
    });
    expect((await parse('webhook', 'listeners', 'create', '--secret-out', 's.txt')).opts).toEqual({
      args: [],
      opts: { authMethod: 'HMAC', allowedCidr: [], secretOut: 's.txt' },
    });
    expect((await parse('webhook', 'runs', 'L1', '--limit', '3', '--event-id', 'e1')).opts).toEqual({
      args: ['L1'],
      opts: { limit: 3, eventId: 'e1' },
    });
  });

  it('help and completion receive the program', async () => {
    const help = await parse('help', 'rules', 'list');
    expect(help.opts.args).toEqual([['rules', 'list']]);
    expect(help.cmd!.parent!.name()).toBe('agctl');
    expect((await parse('help')).opts.args).toEqual([[]]);
    const comp = await parse('completion', 'zsh');
    expect(comp.opts.args).toEqual(['zsh']);
    expect(comp.cmd!.parent!.name()).toBe('agctl');
  });
});

describe('global flags', () => {
  it('are accepted before or after the command and reach the context', async () => {
    const before = await parse(
      '--profile',
      'ci',
      '--base-url',
      'https://a.example.com',
      '--client-id',
      'bot',
      '-o',
      'json',
      '--no-input',
      '--no-color',
      '--debug',
      '--timeout',
      '3',
      '--embedded',
      'rules',
      'list',
      'x',
    );
    expect(before.globals).toMatchObject({
      profile: 'ci',
      baseUrl: 'https://a.example.com',
      clientId: 'bot',
      output: 'json',
      input: false,
      color: false,
      debug: true,
      timeout: '3',
      embedded: true,
    });
    const after = await parse('rules', 'list', 'x', '--output', 'table', '--profile', 'p2', '--debug');
    expect(after.globals).toMatchObject({ output: 'table', profile: 'p2', debug: true, input: true, color: true });
    expect(after.opts).toEqual({ args: ['x'], opts: {} });
  });

  it('default to prompting and colour allowed, nothing else set', async () => {
    const r = await parse('auth', 'status');
    expect(r.globals).toEqual({ input: true, color: true });
  });
});

describe('usage errors', () => {
  it('reject bad option values with one line naming the flag', async () => {
    const cases: [string[], RegExp][] = [
      [['rules', 'list', 'x', '--limit', '0'], /--limit must be a whole number 1 or more$/m],
      [['rules', 'list', 'x', '--limit', 'ten'], /--limit must be a whole number 1 or more$/m],
      [['rules', 'list', 'x', '--limit', '99999999999999999999'], /--limit is too large$/m],
      [['rules', 'list', 'x', '--page-size', '251'], /--page-size must be a whole number from 1 to 250$/m],
      [['serve', '--port', '70000'], /--port must be an integer from 0 to 65535/],
      [['task', 'approve-step-up', 't1', '--wait-timeout', '86401'], /--wait-timeout must be a whole number from 1 to 86400$/m],
      [['serve', '--token-ttl', '-5'], /--token-ttl must be a whole number from 1 to 2592000$/m],
      [['webhook', 'send', 'L1', '--timestamp', 'soon'], /--timestamp must be a Unix time in seconds/],
      [['webhook', 'keygen', '--alg', 'HS256'], /argument 'HS256' is invalid\. Allowed choices are ES256, RS256, EdDSA/],
      [['webhook', 'listeners', 'create', '--auth-method', 'basic'], /argument 'basic' is invalid\. Allowed choices are HMAC, JWT/],
      [['webhook', 'runs', 'L1', '--limit', '1001'], /--limit must be a whole number from 1 to 1000$/m],
      [['-o', 'xml', 'auth', 'status'], /argument 'xml' is invalid\. Allowed choices are table, wide, json, yaml/],
    ];
    for (const [argv, re] of cases) {
      const { error, output } = await parseError(...argv);
      expect(error.code).toBe('commander.invalidArgument');
      expect(output).toMatch(re);
      expect(output.startsWith('agctl: ')).toBe(true);
      expect(output.trim().split('\n')).toHaveLength(1);
    }
    expect(h.calls).toEqual([]);
  });

  it('reject unknown options and commands and missing arguments', async () => {
    expect((await parseError('rules', 'list', 'x', '--bogus')).error.code).toBe('commander.unknownOption');
    const typo = await parseError('rulez');
    expect(typo.error.code).toBe('commander.unknownCommand');
    expect(typo.output).toMatch(/^hint: did you mean rules\?$/m);
    expect((await parseError('rules', 'delete', 'crm-app')).error.code).toBe('commander.missingArgument');
    expect((await parseError('rules', 'list')).output).toBe(
      "agctl: missing required argument 'app-id'\nUsage: agctl rules list [options] <app-id>\nSee `agctl rules list --help`.\n",
    );
    expect((await parseError('rules', 'list', 'a', 'b')).output).toMatch(
      /^agctl: too many arguments for 'list'\. Expected 1 argument but got 2\.\nUsage: agctl rules list \[options\] <app-id>\n/,
    );
    expect((await parseError('login', '--client-secret', 'x')).error.code).toBe('commander.unknownOption');
  });

  it('print help and the version without running anything', async () => {
    const help = await parseError('rules', 'list', '--help');
    expect(help.error.code).toBe('commander.helpDisplayed');
    expect(help.output).toContain('Usage: agctl rules list [options] <app-id>');
    expect(help.output).toContain('--page-size <n>');
    const v = await parseError('--version');
    expect(v.error.code).toBe('commander.version');
    expect(v.output).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('option parsers', () => {
  it('positiveInt', () => {
    const p = positiveInt('--n', 10);
    expect(p('1')).toBe(1);
    expect(p('10')).toBe(10);
    for (const bad of ['0', '11', '-1', '1.5', '1e2', '', ' 3', '0x5']) expect(() => p(bad)).toThrow(InvalidArgumentError);
    expect(() => p('11')).toThrow('--n must be a whole number from 1 to 10');
    expect(() => p('0')).toThrow('--n must be a whole number from 1 to 10');
    expect(positiveInt('--big')('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => positiveInt('--big')('0')).toThrow(/^--big must be a whole number 1 or more$/);
    expect(() => positiveInt('--big')('9007199254740992')).toThrow(/^--big is too large$/);
  });

  it('every flag that takes a count (or a time) refuses 0 naming a bound a person would write', async () => {
    const refusals: string[] = [];
    for (const c of walk(await buildProgram())) {
      for (const o of c.options) {
        const parse = (o as unknown as { parseArg?: (v: string, prev: unknown) => unknown }).parseArg;
        if (!parse) continue;
        try {
          parse('0', undefined);
        } catch (err) {
          // A column list (--columns) is a name, not a count.
          if (err instanceof InvalidArgumentError && !err.message.startsWith('Allowed choices') && o.long !== '--columns')
            refusals.push(err.message);
        }
      }
    }
    expect(refusals.length).toBeGreaterThan(10);
    for (const m of refusals)
      expect(m).toMatch(/^--[a-z-]+ must be a (whole number (1 or more|from 1 to \d{1,7})|number of seconds from 0\.001 to \d{1,7})$/);
  });

  it('collect', () => {
    expect(collect('a')).toEqual(['a']);
    expect(collect('b', ['a'])).toEqual(['a', 'b']);
  });
});

describe('JSON errors before parsing', () => {
  it('wantsJson reads -o/--output in every spelling, the last one winning, and AGCTL_OUTPUT', async () => {
    expect(wantsJson(['rules', 'list', '-o', 'json'], {})).toBe(true);
    expect(wantsJson(['--output', 'json', 'rules'], {})).toBe(true);
    expect(wantsJson(['--output=json'], {})).toBe(true);
    expect(wantsJson(['-ojson'], {})).toBe(true);
    expect(wantsJson(['rules'], { AGCTL_OUTPUT: 'json' })).toBe(true);
    expect(wantsJson(['-o', 'table'], { AGCTL_OUTPUT: 'json' })).toBe(false);
    expect(wantsJson(['-o', 'json', '-o', 'table'], {})).toBe(false);
    expect(wantsJson(['rules', '--', '-o', 'json'], {})).toBe(false);
    expect(wantsJson(['rules', 'list', 'json'], {})).toBe(false);
    // --jq implies JSON, -o on the command line still decides (--jq with -o table is a usage error, shown as a table).
    expect(wantsJson(['--jq', '.', 'rules'], { AGCTL_OUTPUT: 'table' })).toBe(true);
    expect(wantsJson(['--jq=.', '-o', 'table'], {})).toBe(false);
    // A global flag's value is its value, as commander reads it: here the profile is "-o".
    expect(wantsJson(['--profile', '-o', 'table', 'rules'], { AGCTL_OUTPUT: 'json' })).toBe(true);
  });

  it('are read with the global flags as the program declares them', async () => {
    const { readLine } = await import('../../../src/cli/global-flags.js');
    const program = await buildProgram();
    const valued = program.options.filter((o) => o.required);
    expect(valued.map((o) => o.long)).toEqual(['--profile', '--base-url', '--client-id', '--output', '--jq', '--timeout']);
    for (const o of valued) {
      for (const spelling of [[o.long!, 'v'], [`${o.long}=v`], ...(o.short ? [[o.short, 'v'], [`${o.short}v`]] : [])]) {
        const line = readLine([...spelling, 'rules', '-o', 'json', 'list']);
        expect(line.words, spelling.join(' ')).toEqual(['rules', 'list']);
        expect(line.values.get(o.attributeName()), spelling.join(' ')).toBe(o.long === '--output' ? 'json' : 'v');
        expect([...groupsFor([...spelling, 'rules', 'list'], GROUPS)]).toEqual(['rules']);
      }
    }
  });
});
