// The vendor's contract, enforced: every request the fake tenant receives on
// an /api route is validated against vendor-openapi.yaml (a verbatim copy of
// the vendor's OpenAPI that service-notes.md refers to) with openapi-backend,
// a maintained, framework-agnostic OpenAPI 3 router and validator (Ajv
// underneath): the path must be a route of the document, the path and query
// parameters those the route declares (an undeclared query parameter is an
// error), the JSON body valid against the route's request schema. The tenant's
// own answers are validated against the response schemas too, so that a full
// or sparse answer it gives is one the contract allows.
//
// Two readings of the document, both faithful to it:
// - it declares `openapi: 3.1.0` but, where it was copied from sdk-ts, marks
//   nullable members the OpenAPI 3.0 way (`nullable: true`, also on `allOf`
//   wrappers without a `type`, which Ajv refuses to compile): such a schema is
//   read as "this schema, or null", what the generator meant;
// - openapi-backend's check of the document itself (openapi-schema-validator
//   12) knows only the OpenAPI 3.0 meta-schema and refuses 3.1's type arrays,
//   so the document is loaded without that check ("quick" mode); the request
//   and response validation does not depend on it.
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { OpenAPIBackend, type Operation } from 'openapi-backend';

export const SPEC_FILE = new URL('./vendor-openapi.yaml', import.meta.url);

/**
 * Query parameters a route takes although the document does not declare them,
 * with the reason. Only these routes; every other undeclared parameter is a
 * violation.
 */
export const UNDECLARED_QUERY_PARAMETERS: Record<string, { names: string[]; why: string }> = {
  'c1.api.app.v1.AppEntitlementRoutingRuleService.ListAppEntitlementRoutingRules': {
    names: ['page_size', 'page_token'],
    // service-notes.md §4: the List request has no paging parameters in sdk-go, but its answer carries
    // nextPageToken and every other list route pages with page_size/page_token: agctl sends them so that
    // a service that honours them pages as it does elsewhere, and works when it ignores them.
    why: 'service-notes.md §4: the rules list answers nextPageToken; agctl follows it with the paging parameters of the other list routes',
  },
};

/**
 * Requests agctl is known to send that the contract forbids, each let through
 * (and recorded in `knownViolations`) instead of failing the test, until the
 * code that sends it is fixed. Every entry names the operation and a pattern
 * of the violation message. Empty when agctl sends nothing the contract forbids.
 */
export const KNOWN_VIOLATIONS: { operationId: string; message: RegExp; why: string }[] = [];

export interface ContractRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body; undefined when there is none. */
  body: unknown;
}

export interface Violation {
  /** `request` (agctl sent it) or `answer` (the fake tenant's own answer broke the contract: a bug of the fake). */
  kind: 'request' | 'answer';
  operationId: string;
  method: string;
  path: string;
  message: string;
}

/**
 * The document as loaded: the vendor's file, with its 3.0-style nullable marks
 * read as "or null" and the documented extra query parameters. For answers
 * (`openEnums`), enums are open: a value the client does not know is allowed,
 * as proto3 enums are (the service adds values; sdk-ts marks its enums
 * `x-speakeasy-unknown-values: allow`); a request must use a listed value.
 */
export function loadContract(opts: { openEnums?: boolean } = {}): Record<string, unknown> {
  const doc = load(readFileSync(SPEC_FILE, 'utf8')) as Record<string, any>;
  readNullable(doc);
  if (opts.openEnums) openEnums(doc);
  for (const methods of Object.values(doc.paths as Record<string, Record<string, any>>)) {
    for (const op of Object.values(methods)) {
      const extra = UNDECLARED_QUERY_PARAMETERS[op?.operationId];
      if (!extra) continue;
      op.parameters = [...(op.parameters ?? []), ...extra.names.map((name) => ({ in: 'query', name, schema: { type: 'string' } }))];
    }
  }
  return doc;
}

/** `{..., nullable: true}` without a `type` becomes `{anyOf: [{...}, {type: 'null'}]}` (Ajv compiles `nullable` only next to `type`). */
function readNullable(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(readNullable);
  if (node === null || typeof node !== 'object') return;
  const o = node as Record<string, unknown>;
  for (const v of Object.values(o)) readNullable(v);
  if (o.nullable === true && o.type === undefined) {
    const { nullable: _n, description: _d, ...rest } = o;
    for (const k of Object.keys(o)) delete o[k];
    o.anyOf = [rest, { type: 'null' }];
  }
}

/** RFC 3339, as proto3 JSON writes a Timestamp. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** The document's formats: `date-time` checked; the numeric and proto3 ones (int64 as a string, duration `1.5s`, ...) left to their `type`. */
function addFormats<A extends { addFormat(name: string, f: RegExp | true): unknown }>(ajv: A): A {
  ajv.addFormat('date-time', DATE_TIME);
  for (const f of ['int32', 'int64', 'uint32', 'uint64', 'float', 'double', 'duration', 'base64', 'byte', 'binary', 'email', 'uri'])
    ajv.addFormat(f, true);
  return ajv;
}

function openEnums(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(openEnums);
  if (node === null || typeof node !== 'object') return;
  const o = node as Record<string, unknown>;
  if (Array.isArray(o.enum) && o.enum.every((v) => typeof v === 'string')) delete o.enum;
  for (const v of Object.values(o)) openEnums(v);
}

const shared: Partial<Record<'requests' | 'answers', Promise<OpenAPIBackend>>> = {};

/** One validator for requests and one for answers per test worker (loading the document takes ~0.1 s; an operation compiles on first use). */
export function contract(kind: 'requests' | 'answers' = 'requests'): Promise<OpenAPIBackend> {
  shared[kind] ??= (async () => {
    const definition = loadContract({ openEnums: kind === 'answers' });
    // Ajv's code optimisation costs more than it saves on schemas this large that compile once and check a few answers.
    const ajvOpts = { code: { optimize: false }, inlineRefs: false };
    const api = new OpenAPIBackend({
      definition: definition as never,
      quick: true,
      strict: true,
      validate: true,
      ajvOpts,
      customizeAjv: addFormats,
    });
    await api.init();
    return api;
  })();
  return shared[kind];
}

const summarize = (errors: { instancePath?: string; message?: string; params?: unknown }[] | null | undefined): string =>
  (errors ?? [])
    .slice(0, 5)
    .map(
      (e) =>
        `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`,
    )
    .join('; ');

/** The operation a request is for, and what is wrong with it ('' when nothing). */
export async function checkRequest(req: ContractRequest): Promise<{ operation?: Operation; problem: string }> {
  const api = await contract();
  const query: Record<string, string | string[]> = {};
  for (const k of new Set(req.query.keys())) {
    const all = req.query.getAll(k);
    query[k] = all.length === 1 ? all[0]! : all;
  }
  const r = {
    method: req.method.toLowerCase(),
    path: req.path,
    query,
    headers: req.headers as Record<string, string | string[]>,
    body: req.body,
  };
  try {
    const operation = api.matchOperation(r);
    if (!operation) return { problem: `${req.method} ${req.path} is not a route of the vendor OpenAPI` };
    const v = api.validateRequest(r, operation);
    return { operation, problem: v.valid ? '' : summarize(v.errors as never) };
  } catch (err) {
    return { problem: `the request cannot be read: ${(err as Error).message}` };
  }
}

/** What is wrong with an answer to `operation` ('' when nothing). */
export async function checkAnswer(operation: Operation, status: number, body: unknown): Promise<string> {
  const api = await contract('answers');
  const v = api.validateResponse(body, operation.operationId!, status);
  return v.valid ? '' : summarize(v.errors as never);
}
