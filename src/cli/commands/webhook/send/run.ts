// agctl webhook send: one signed event (or N in load mode) to a listener.
import { EXIT_INTERRUPTED, Exit, UsageError, exitCodeForStatus } from '../../../../lib/exit.js';
import { pathSegment } from '../../../../client/paths.js';
import { isUuidV4 } from '../../../../lib/ids.js';
import { KeyError, checkSigningKey, loadSigningKey } from '../../../../webhook/keys.js';
import { createWebhookJwt, hmacSignature, newEventId } from '../../../../webhook/sign.js';
import type { CommandContext } from '../../../context.js';
import type { SendInput } from './command.js';
import type { EventsFile } from '../events.js';
import { statusText } from '../../../../client/http.js';
import { proxyFor } from '../../../../lib/proxy.js';
import { readFileBytes } from '../../../io.js';
import { shellQuote } from '../../../shell-quote.js';
import { parseSendHeaderFlags, readBody, readWebhookSecret } from '../common.js';
import { hasScheme, hideUserinfo } from '../../../../lib/url.js';
import { MAX_BODY_BYTES, jsonBody } from '../../../../webhook/verify.js';
import { INCOMING_PATH } from '../../../../api/webhook-listeners.js';
import { notShown, shownAnswer } from './answer.js';

type SendOptions = SendInput['opts'];

/** Produces the authentication headers of one request. */
export type Signer = (timestamp: number, eventId: string, body: Buffer) => Promise<Record<string, string>>;

/** A listener URL as given, or the listener ID on the configured base URL. */
export async function listenerUrl(target: string, ctx: CommandContext): Promise<string> {
  if (hasScheme(target)) {
    let u: URL;
    try {
      u = new URL(target);
    } catch {
      throw new UsageError(`"${hideUserinfo(target)}" is not a valid URL`);
    }
    if (u.protocol !== 'https:' && u.protocol !== 'http:')
      throw new UsageError(`the listener URL must use https (or http for a local server), not ${u.protocol.replace(/:$/, '')}`);
    if (u.username || u.password) throw new UsageError('the listener URL must not carry credentials');
    return u.href;
  }
  if (!target || /[/?#\s]/.test(target)) throw new UsageError(`"${target}" is neither a listener URL nor a listener ID`);
  return (await ctx.baseUrl()) + INCOMING_PATH + pathSegment(target, 'listener ID');
}

/** `stdinTaken`: what standard input carried (the events, the body), when it carried something; it cannot carry the secret too. */
async function makeSigner(
  opts: SendOptions,
  ctx: CommandContext,
  url: string,
  tenantOf: string,
  stdinTaken?: string,
): Promise<{ signer: Signer; method: 'HMAC' | 'JWT'; detail: string }> {
  if (opts.jwtKey === undefined) {
    if (opts.kid !== undefined || opts.alg !== undefined) throw new UsageError('--kid and --alg apply to JWT sends: add --jwt-key');
    const secret = await readWebhookSecret(
      ctx,
      { ...opts, stdinTaken: stdinTaken !== undefined },
      stdinTaken && `standard input carries ${stdinTaken}`,
    );
    return {
      method: 'HMAC',
      detail: 'HMAC-SHA256',
      signer: async (ts, id, body) => ({ 'Webhook-Signature': hmacSignature(secret, ts, id, body) }),
    };
  }
  if (opts.secretFile !== undefined || opts.secretStdin)
    throw new UsageError('use either an HMAC secret (--secret-file/--secret-stdin) or --jwt-key, not both');
  const text = readFileBytes(opts.jwtKey, '--jwt-key').toString('utf8');
  let key: ReturnType<typeof loadSigningKey>;
  try {
    key = loadSigningKey(text, { alg: opts.alg, kid: opts.kid });
    await checkSigningKey(key);
  } catch (err) {
    if (err instanceof KeyError) throw new UsageError(`--jwt-key ${opts.jwtKey}: ${err.message}`);
    throw err;
  }
  // The JWT sub is the tenant the listener belongs to: the origin of the listener URL
  // (for a listener ID, the configured base URL), never a profile's other host.
  const tenant = (opts.tenant ?? tenantOf).replace(/\/+$/, '');
  return {
    method: 'JWT',
    detail: `JWT ${key.alg}, kid ${key.kid}, sub ${tenant}`,
    signer: async (ts, id, body) => {
      const jwt = await createWebhookJwt({
        key: key.key,
        alg: key.alg,
        kid: key.kid,
        tenant,
        endpointUrl: url,
        eventId: id,
        body,
        nowSeconds: ts,
        ttlSeconds: opts.jwtTtl,
      });
      return { Authorization: `Bearer ${jwt}` };
    },
  };
}

/** Request headers: the webhook headers, then the auth headers, then any -H overrides (by name, case-insensitively). */
function buildHeaders(ts: number, id: string, auth: Record<string, string>, extra: [string, string][]): Record<string, string> {
  const h: Record<string, string> = {
    'Content-Type': 'application/json',
    'Webhook-Timestamp': String(ts),
    'Webhook-Event-Id': id,
    ...auth,
  };
  for (const [name, value] of extra) {
    for (const k of Object.keys(h)) if (k.toLowerCase() === name) delete h[k];
    h[name] = value;
  }
  return h;
}

export function curlCommand(url: string, headers: Record<string, string>, body: Buffer, file?: string): string {
  const lines = [`curl -sS -X POST ${shellQuote(url)}`];
  for (const [k, v] of Object.entries(headers)) lines.push(`-H ${shellQuote(`${k}: ${v}`)}`);
  lines.push(file ? `--data-binary @${shellQuote(file)}` : `--data-binary ${shellQuote(body.toString('utf8'))}`);
  return lines.join(' \\\n  ');
}

/** The signed request as data (`--dry-run -o json`): the body as text, or base64 when it is not UTF-8. */
export function requestJson(url: string, headers: Record<string, string>, body: Buffer) {
  const text = body.toString('utf8');
  const exact = Buffer.from(text, 'utf8').equals(body);
  return { method: 'POST', url, headers, ...(exact ? { body: text } : { body: body.toString('base64'), bodyEncoding: 'base64' }) };
}

/** What an answer says in words: a listener's `reason`, else an error body's `message` (google.rpc.Status, OAuth `error_description`). */
function answerReason(answer: Record<string, unknown> | undefined): string | undefined {
  for (const k of ['reason', 'message', 'error_description'] as const) {
    const v = answer?.[k];
    if (typeof v === 'string' && v.trim()) return v.trim().slice(0, 500);
  }
  return undefined;
}

/** The JSON value of an answer's text, when it is JSON. */
function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    return text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    return undefined;
  }
}

/** The flag that puts the command in load mode, if one does. */
const loadFlag = (opts: SendOptions) =>
  opts.count !== undefined ? '--count' : opts.duration !== undefined ? '--duration' : opts.events !== undefined ? '--events' : undefined;

function checkOptions(opts: SendOptions): void {
  const load = loadFlag(opts);
  if (!load && (opts.concurrency !== undefined || opts.rate !== undefined))
    throw new UsageError('--concurrency and --rate apply to load mode: add --count N, --duration SECONDS or --events FILE');
  if (load && opts.eventId !== undefined)
    throw new UsageError(`--event-id cannot be used with ${load}: load mode sends a fresh event ID per event`);
  if (load && opts.dryRun) throw new UsageError(`--dry-run prints one request; it cannot be used with ${load}`);
  if (opts.events !== undefined && (opts.data !== undefined || opts.dataFile !== undefined))
    throw new UsageError('use either --events or --data/--data-file: with --events each line is a body');
  if (opts.events === '-' && opts.secretStdin)
    throw new UsageError(
      'standard input cannot carry both the events and the secret: pass the secret with --secret-file or AGCTL_WEBHOOK_SECRET',
    );
  if (opts.tenant !== undefined && opts.jwtKey === undefined) throw new UsageError('--tenant applies to JWT sends: add --jwt-key');
}

interface LoadRun {
  url: string;
  signer: Signer;
  extra: [string, string][];
  /** One body for every event, or the checked corpus of --events. */
  source: Buffer | EventsFile;
}

/** Load mode: the run, its summary, and the exit code. */
async function sendLoad(opts: SendOptions, ctx: CommandContext, { url, signer, extra, source }: LoadRun): Promise<number> {
  const [{ runLoad, printSummary, loadExitCode, reportFailure }, { EventLines }] = await Promise.all([
    import('../load.js'),
    import('../events.js'),
  ]);
  const events = Buffer.isBuffer(source) ? undefined : source;
  const lines = events && new EventLines(events.path, events.fd);
  try {
    const summary = await runLoad({
      url,
      count: opts.count ?? events?.lines ?? Infinity,
      durationMs: opts.duration !== undefined ? Math.round(opts.duration * 1000) : undefined,
      concurrency: opts.concurrency ?? (events ? 1 : 16),
      rate: opts.rate,
      body: lines ?? (source as Buffer),
      events: events && { file: events.name, lines: events.lines },
      headersFor: async (id, bytes) => {
        const ts = opts.timestamp ?? Math.floor(ctx.clock.now() / 1000);
        return buildHeaders(ts, id, await signer(ts, id, bytes), extra);
      },
      timeoutMs: ctx.settings.timeoutMs,
      progress: ctx.io.isStderrTTY ? ctx.io.stderr : undefined,
      onInterrupt: (listener) => ctx.io.onInterrupt(listener),
      proxy: proxyFor(new URL(url), ctx.env),
    });
    await printSummary(summary, ctx);
    if (lines?.failure) {
      reportFailure(ctx, `--events ${events!.name}: ${lines.failure}; the run ended there`, Exit.Usage);
      return Exit.Usage;
    }
    return summary.interrupted ? EXIT_INTERRUPTED : loadExitCode(summary);
  } finally {
    await lines?.close();
  }
}

export async function run({ args: [target], opts }: SendInput, ctx: CommandContext): Promise<number> {
  checkOptions(opts);
  const extra = parseSendHeaderFlags(opts.header);
  const url = await listenerUrl(target, ctx);
  const tenantOf = hasScheme(target) ? new URL(url).origin : await ctx.baseUrl();
  // The body (or every line of --events) first: a missing or bad body is reported before any secret prompt.
  if (opts.events !== undefined) {
    const events = await (await import('../events.js')).checkEvents(opts.events, ctx);
    const { signer } = await makeSigner(opts, ctx, url, tenantOf, opts.events === '-' ? 'the events' : undefined);
    return sendLoad(opts, ctx, { url, signer, extra, source: events });
  }
  const body = await readBody(ctx, { data: opts.data, dataFile: opts.dataFile, stdinTaken: opts.secretStdin === true });
  const { signer, detail } = await makeSigner(
    opts,
    ctx,
    url,
    tenantOf,
    opts.data === undefined && body.file === undefined ? 'the body' : undefined,
  );
  // The listener's own rule (UTF-8 JSON text, no byte order mark), as --events checks each line.
  if ('problem' in jsonBody(body.bytes)) ctx.out.warn('the body is not valid JSON: the listener will answer 400');
  if (body.bytes.length > MAX_BODY_BYTES)
    ctx.out.warn(`the body is ${body.bytes.length} bytes: listeners refuse more than ${MAX_BODY_BYTES} (413)`);
  if (loadFlag(opts)) return sendLoad(opts, ctx, { url, signer, extra, source: body.bytes });

  const id = opts.eventId ?? newEventId();
  if (!isUuidV4(id)) ctx.out.warn(`event ID "${id}" is not a UUID v4: the listener will answer 400`);
  const ts = opts.timestamp ?? Math.floor(ctx.clock.now() / 1000);
  const headers = buildHeaders(ts, id, await signer(ts, id, body.bytes), extra);

  if (opts.dryRun) {
    if (ctx.out.json) {
      ctx.out.printJson(requestJson(url, headers, body.bytes));
      return 0;
    }
    ctx.out.print(curlCommand(url, headers, body.bytes, body.file));
    ctx.out.info(`# ${detail}; valid while the timestamp is within 5 minutes of the listener's clock`);
    return 0;
  }

  ctx.debug(`webhook ${detail}`);
  const urlSource = hasScheme(target) ? 'the listener URL' : undefined;
  const res = await ctx.http.send({ method: 'POST', url, headers, body: body.bytes, idempotent: false, urlSource });
  // A compressed answer is decoded (its decoded size counted against the answer cap); one in another encoding is not shown.
  const shown = shownAnswer(res, ctx.http.maxResponseBytes, url);
  const text = 'body' in shown ? shown.body.toString('utf8') : '';
  const answer = 'body' in shown ? parseObject(text) : undefined;
  if (ctx.out.json) {
    const response =
      'body' in shown ? { response: answer ?? text } : { response: null, responseEncoding: shown.encoding, responseBytes: shown.bytes };
    ctx.out.printJson({ status: res.status, url, eventId: id, timestamp: ts, ...response });
  } else {
    const reason = 'body' in shown ? (answerReason(answer) ?? text.trim().slice(0, 500)) : notShown(shown);
    ctx.out.fields([
      ['Status', statusText(res.status)],
      ['Reason', reason],
      ['Event ID', id],
      ...(typeof answer?.runId === 'string' ? ([['Run ID', answer.runId]] as [string, string][]) : []),
    ]);
  }
  return exitCodeForStatus(res.status);
}
