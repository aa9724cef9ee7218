// Data directories written by earlier versions of agctl open in this one with
// their data (their storage layout brought forward); one written by a later
// version is refused and left as it was. The earlier directories are built from
// test/fixtures/store/layout-2.sql: the schema and rows of a data directory of
// layout 2 (agctl 0.1.0, commit 4464d91), not a binary database file.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RULE_SETTINGS } from '../../../src/api/rules.js';
import { OffsetClock } from '../../../src/lib/clock.js';
import { StartupError, startEmbeddedServer } from '../../../src/server/app.js';
import { SCHEMA_VERSION } from '../../../src/server/store/db.js';
import { jsonColumn } from '../../../src/server/store/json.js';
import { openDatabase } from '../../../src/server/store/sqlite.js';
import { hmacSignature } from '../../../src/webhook/sign.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const root = mkdtempSync(join(tmpdir(), 'agctl-layouts-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const LAYOUT_2 = readFileSync(new URL('../../fixtures/store/layout-2.sql', import.meta.url), 'utf8');
/** The seal key the fixture's secrets were sealed with. */
const SEAL_KEY = Buffer.alloc(32, 7);
/** When the fixture's webhook events were received (its event records are kept 7 days). */
const WRITTEN_AT = 1795877134319;

const STEP_UP_TX = '3Mjw9czC1BZP55wMGph2zSvndHb';
const STEP_UP_TASK = '3Mjw9bvroQNwPAUrTTR9xDjmihV';
const HMAC_LISTENER = '3Mjw9ZXuejB55sNWUTn45nknIxj';
const SENT_EVENTS = ['6f1c1c9e-3d0a-4c1e-9a53-0d6f1f2b7a10', '0b9a7d55-8f4e-4b61-8d3c-5a2e9c4f6b21'];
const RULES = ['ecr-001', 'ecr-004', 'ecr-008', 'ecr-012', 'ecr-019', 'ecr-023'];

/** A data directory holding the fixture's database, then `sql` run on it (to make an earlier layout of it). */
function dataDir(name: string, sql = ''): string {
  const dir = join(root, name);
  mkdirSync(dir, { mode: 0o700 });
  const db = openDatabase(join(dir, 'agctl.db'));
  db.exec(LAYOUT_2 + sql);
  db.close();
  return dir;
}

const layoutOf = (dir: string) => {
  const db = openDatabase(join(dir, 'agctl.db'));
  const v = db.pragma('user_version', { simple: true });
  db.close();
  return v;
};

async function open(dir: string): Promise<TestServer> {
  const clock = new OffsetClock();
  clock.offsetMs = WRITTEN_AT + 3600_000 - Date.now();
  return startTestServer({ dataDir: dir, sealKey: SEAL_KEY, clock });
}

async function sendEvent(s: TestServer, id: string): Promise<number> {
  const hmac = s.demo.webhooks.hmac as { path: string; secret: string };
  const ts = Math.floor(s.clock.now() / 1000);
  const body = Buffer.from(JSON.stringify({ id }));
  const res = await fetch(s.baseUrl + hmac.path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-timestamp': String(ts),
      'webhook-event-id': id,
      'webhook-signature': hmacSignature(hmac.secret, ts, id, body),
    },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

/** Everything the fixture holds, read through the API of the server that opened it. */
async function expectFixtureData(s: TestServer): Promise<void> {
  // Rules, in order, with their settings (not seeded again: only the six of the fixture).
  const rules = await s.api('/api/v1/apps/crm-app/entitlement_configuration_rules?page_size=100');
  expect(rules.status).toBe(200);
  expect(rules.body.list.map((r: { id: string }) => r.id).sort()).toEqual(RULES);
  // Read through the settings' shape: a member added to it has to be given a value here (and a step, when its default will not do).
  expect(rules.body.list.find((r: { id: string }) => r.id === 'ecr-001').settings).toEqual({
    requestPolicyId: 'policy-1',
    requestSchemaId: 'schema-1',
    emergencyGrantEnabled: true,
    emergencyGrantPolicyId: 'policy-emergency',
    maxGrantDuration: '86400s',
  });
  // MCP servers, their catalog entries and their sealed secrets.
  const servers = await s.api('/api/v1/apps/ai-tools/mcp_servers?page_size=100');
  expect(servers.status).toBe(200);
  expect(servers.body.list.map((m: { connectorId: string }) => m.connectorId).sort()).toEqual([
    'analytics-mcp',
    'crm-mcp',
    'datadog-mcp',
    'future-mcp',
    'tickets-mcp',
    'wiki-mcp',
  ]);
  const wiki = await s.api('/api/v1/apps/ai-tools/mcp_servers/wiki-mcp');
  expect(wiki.status).toBe(200);
  expect(wiki.body.mcpServer.displayName).toBe('Team Wiki');
  // The step-up transaction, for its task.
  const tx = await s.api(`/api/v1/step-up/transactions/${STEP_UP_TX}`);
  expect(tx.status, JSON.stringify(tx.body)).toBe(200);
  expect(tx.body.transaction.id).toBe(STEP_UP_TX);
  expect(tx.body.transaction.approveTask.taskId).toBe(STEP_UP_TASK);
  // The listener (its secret opens: the demo secret is revealed), its runs and its event records.
  expect(s.demo.webhooks.hmac.listenerId).toBe(HMAC_LISTENER);
  const runs = await s.api(`/_embedded/v1/webhook_listeners/${HMAC_LISTENER}/runs`);
  expect(runs.status).toBe(200);
  expect(runs.body.total).toBe(2);
  expect(runs.body.runs.map((r: { eventId: string }) => r.eventId)).toEqual([...SENT_EVENTS].reverse());
  expect(runs.body.runs[1].context.trigger).toEqual({ order: '6f1c', amount: 12 });
  for (const id of SENT_EVENTS) expect(await sendEvent(s, id)).toBe(409);
  expect(await sendEvent(s, 'c4a1f7e2-5b6d-4e8f-9a0b-1c2d3e4f5a6b')).toBe(200);
}

describe('a JSON column', () => {
  it('is read through its shape: a member the row lacks at its default, one the shape does not declare dropped', () => {
    const settings = jsonColumn(RULE_SETTINGS);
    expect(settings.value('{"requestPolicyId":"p","emergencyGrantEnabled":true,"retired":1}')).toEqual({
      requestPolicyId: 'p',
      requestSchemaId: '',
      emergencyGrantEnabled: true,
      emergencyGrantPolicyId: '',
      maxGrantDuration: '',
    });
    const full = {
      requestPolicyId: 'p',
      requestSchemaId: 's',
      emergencyGrantEnabled: false,
      emergencyGrantPolicyId: 'e',
      maxGrantDuration: '60s',
    };
    expect(settings.value(settings.text(full))).toEqual(full);
  });
});

describe('storage layouts', () => {
  it('opens a data directory of layout 2 (agctl 0.1.0) with every rule, MCP server, listener, event record and step-up transaction', async () => {
    const dir = dataDir('layout-2');
    expect(layoutOf(dir)).toBe(2);
    const s = await open(dir);
    try {
      await expectFixtureData(s);
    } finally {
      await s.close();
    }
    expect(layoutOf(dir)).toBe(SCHEMA_VERSION);
  });

  it('brings a data directory of layout 1 (catalog entries without auth modes) forward, its data kept', async () => {
    const dir = dataDir('layout-1', 'ALTER TABLE mcp_catalog DROP COLUMN auth_modes; PRAGMA user_version = 1;');
    const s = await open(dir);
    try {
      await expectFixtureData(s);
      const catalog = await s.api('/api/v1/mcp_server_catalog?page_size=100');
      expect(catalog.status).toBe(200);
      expect(catalog.body.list).toHaveLength(4);
      for (const e of catalog.body.list) expect(e.authModes).toEqual([]);
      expect(
        catalog.body.list
          .find((e: { serviceName: string }) => e.serviceName === 'datadog')
          .configSchema.fields.map((f: { name: string }) => f.name),
      ).toEqual(['site', 'apiKey']);
    } finally {
      await s.close();
    }
    expect(layoutOf(dir)).toBe(SCHEMA_VERSION);
  });

  it('refuses a data directory of a later layout, and changes nothing in it', async () => {
    const dir = dataDir('later', `PRAGMA user_version = ${SCHEMA_VERSION + 1};`);
    const file = join(dir, 'agctl.db');
    const hash = () => createHash('sha256').update(readFileSync(file)).digest('hex');
    const before = hash();
    const err = await startEmbeddedServer({ dataDir: dir, sealKey: SEAL_KEY, dataDirFlag: '--data-dir' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StartupError);
    expect((err as StartupError).message).toBe(
      `the database ${file} has storage layout ${SCHEMA_VERSION + 1}, written by a newer version of agctl (this one reads layouts up to ${SCHEMA_VERSION}); nothing was changed`,
    );
    expect((err as StartupError).hint).toBe('use that newer version of agctl, or choose another data directory with --data-dir');
    expect(hash()).toBe(before);
  });
});
