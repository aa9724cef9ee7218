// agctl webhook verify: the listener pipeline, offline, on a captured request.
import { UsageError, exitCodeForStatus } from '../../../../lib/exit.js';
import { AllowList, CidrError, normalizeIp } from '../../../../webhook/cidr.js';
import { JwksError, loadJwks } from '../../../../webhook/jwks.js';
import { verifyWebhook, type ListenerConfig, type VerifyResult } from '../../../../webhook/verify.js';
import { isIP } from 'node:net';
import type { CommandContext } from '../../../context.js';
import { styled } from '../../../output.js';
import type { VerifyInput } from './command.js';
import { statusText } from '../../../../client/http.js';
import { allowedRanges, parseHeaderFlags, readInputFile, readStdinBytes, readWebhookSecret } from '../common.js';
import { CaptureError, addHeader, parseCapturedRequest, type CapturedRequest } from '../request-file.js';
import { hideUserinfo } from '../../../../lib/url.js';

type VerifyOptions = VerifyInput['opts'];

const STEP_NAMES = [
  'HTTP framing, before the webhook checks',
  'source address',
  'request headers and body',
  'authentication',
  'idempotency',
  'accepted',
];

async function readCapture(opts: VerifyOptions, ctx: CommandContext): Promise<CapturedRequest> {
  const stdinUses = [opts.request === '-', opts.bodyFile === '-', opts.secretStdin].filter(Boolean).length;
  if (stdinUses > 1) throw new UsageError('only one input can come from standard input');
  if (opts.request !== undefined) {
    if (opts.header.length || opts.bodyFile !== undefined) throw new UsageError('use either --request or --header/--body-file, not both');
    const raw = opts.request === '-' ? await readStdinBytes(ctx, 'captured request') : readInputFile(opts.request, '--request');
    try {
      return parseCapturedRequest(raw);
    } catch (err) {
      if (err instanceof CaptureError) throw new UsageError(`--request ${opts.request}: ${err.message}`);
      throw err;
    }
  }
  if (!opts.header.length) throw new UsageError('nothing to verify: pass --request FILE, or --header ... with --body-file');
  if (opts.bodyFile === undefined) throw new UsageError('--header needs --body-file (the exact body bytes)');
  const headers: Record<string, string> = {};
  for (const [k, v] of parseHeaderFlags(opts.header)) addHeader(headers, k, v);
  const body = opts.bodyFile === '-' ? await readStdinBytes(ctx, 'body') : readInputFile(opts.bodyFile, '--body-file');
  return { headers, body, notes: [] };
}

function parseUrl(v: string, flag: string): URL {
  const u = URL.canParse(v) ? new URL(v) : undefined;
  if (u?.protocol === 'http:' || u?.protocol === 'https:') return u;
  throw new UsageError(`${flag}: "${hideUserinfo(v)}" is not an http(s) URL`);
}

export async function run({ opts }: VerifyInput, ctx: CommandContext): Promise<number> {
  const req = await readCapture(opts, ctx);
  if (opts.allowedCidr.length && !opts.sourceIp)
    throw new UsageError('--allowed-cidr needs --source-ip (the address the request came from)');
  if (opts.sourceIp && isIP(normalizeIp(opts.sourceIp)) === 0) throw new UsageError(`--source-ip: "${opts.sourceIp}" is not an IP address`);
  // Like the listener's allowedCidrs: several ranges, given as repeated flags or comma-separated.
  const ranges = allowedRanges(opts.allowedCidr);
  let allowList: AllowList | null = null;
  try {
    if (ranges.length) allowList = new AllowList(ranges);
  } catch (err) {
    if (err instanceof CidrError) throw new UsageError(`--allowed-cidr: ${err.message}`);
    throw err;
  }

  const path = req.target?.startsWith('/') ? req.target : undefined;
  const tenantRaw = opts.tenant ?? ctx.settings.baseUrl;
  let url = opts.url ? parseUrl(opts.url, '--url').href : undefined;
  if (!url && tenantRaw && path) url = parseUrl(tenantRaw, '--tenant').origin + path;
  // The JWT sub: the tenant the endpoint belongs to (the origin of --url), unless --tenant says otherwise.
  const tenant = (opts.tenant ?? (url ? new URL(url).origin : '')).replace(/\/+$/, '');

  let listener: ListenerConfig;
  if (opts.jwks !== undefined) {
    if (opts.secretFile !== undefined || opts.secretStdin)
      throw new UsageError('use either an HMAC secret (--secret-file/--secret-stdin) or --jwks, not both');
    if (!url)
      throw new UsageError(
        'a JWT check needs the endpoint URL (the aud claim): pass --url, or --tenant with a --request that has a request line',
      );
    try {
      listener = {
        authMethod: 'JWT',
        jwks: await loadJwks(opts.jwks, { allowInsecure: opts.allowInsecureJwks === true }),
        endpointUrl: url,
        tenantBaseUrl: tenant,
      };
    } catch (err) {
      if (err instanceof JwksError) throw new UsageError(`--jwks: ${err.message}`);
      throw err;
    }
  } else {
    listener = { authMethod: 'HMAC', secret: await readWebhookSecret(ctx, opts), endpointUrl: url ?? '', tenantBaseUrl: tenant };
  }
  listener.allowedCidrs = allowList;

  const now = opts.now !== undefined ? opts.now * 1000 : ctx.clock.now();
  const result: VerifyResult = req.refused
    ? {
        status: req.refused.status,
        step: 0,
        eventId: null,
        reason: `${req.refused.status === 400 ? 'malformed HTTP request' : 'request header fields too large'}: ${req.refused.reason}; the service's HTTP layer answers ${req.refused.status} before any webhook check`,
      }
    : await verifyWebhook({
        sourceIp: opts.sourceIp ?? '127.0.0.1',
        headers: req.headers,
        body: req.body,
        listener,
        now,
        trustProxy: opts.trustProxy,
      });
  const notes = [...req.notes];
  if (req.method && req.method !== 'POST') notes.push(`the request method is ${req.method}: the service answers 405 to anything but POST`);
  if (!allowList) notes.push('step 1 (source address) not checked: no --allowed-cidr given');
  print(result, notes, listener, now, ctx);
  return exitCodeForStatus(result.status);
}

function print(r: VerifyResult, notes: string[], l: ListenerConfig, now: number, ctx: CommandContext): void {
  if (ctx.out.json) {
    ctx.out.printJson({ ...r, offline: true, authMethod: l.authMethod, judgedAt: Math.floor(now / 1000), notes });
    return;
  }
  ctx.out.fields([
    ['Status', [styled(statusText(r.status), r.status === 200 ? 'green' : 'red'), ' (what the service would answer)']],
    ['Step', `${r.step} (${STEP_NAMES[r.step]})`],
    ['Reason', r.reason],
    ['Event ID', r.eventId ?? '-'],
    ['Method', l.authMethod],
    ['Judged at', `${Math.floor(now / 1000)} (${new Date(now).toISOString()})`],
  ]);
  for (const n of [...(r.skipped ?? []).map((x) => `step ${x} skipped offline`), ...notes]) ctx.out.info(`note: ${n}`);
}
