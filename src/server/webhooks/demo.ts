// The webhook demo data: three listeners (HMAC, JWT, IP-restricted) and the
// demo JWT key, whose public half the embedded server serves itself.
import { generateListenerKey } from '../../webhook/keys.js';
import type { SeedContext } from '../module.js';
import type { Store } from '../store/db.js';
import { JWK_COLUMN } from '../store/json.js';
import { insertListener } from './listeners.js';
import { listenerPath, secretPlace } from './schema.js';

/** The key set of the demo JWT key, served by the embedded server itself. */
export const DEMO_JWKS_PATH = '/_embedded/v1/demo/jwks.json';
/** Demo allowlist that excludes loopback (TEST-NET-3 and the IPv6 documentation range). */
const DEMO_RESTRICTED_CIDRS = ['203.0.113.0/24', '2001:db8::/32'];

const keyPlace = (kid: string) => ['webhook_demo_keys', kid, 'private_jwk'] as const;

export function seedWebhooks({ store, clock }: SeedContext): Record<string, unknown> {
  const now = clock.now();
  const key = generateListenerKey('ES256');
  store.db
    .prepare('INSERT INTO webhook_demo_keys (kid, alg, private_sealed, public_jwk) VALUES (?, ?, ?, ?)')
    .run(key.kid, key.alg, store.seal(JWK_COLUMN.text(key.privateJwk), ...keyPlace(key.kid)), JWK_COLUMN.text(key.publicJwks.keys[0]!));
  const on = { published: true, triggerEnabled: true };
  const hmac = insertListener(store, now, { authMethod: 'HMAC', ...on }, 'Demo: HMAC webhook');
  const jwt = insertListener(store, now, { authMethod: 'JWT', jwksUrl: DEMO_JWKS_PATH, ...on }, 'Demo: JWT webhook');
  const restricted = insertListener(
    store,
    now,
    { authMethod: 'HMAC', allowedCidrs: DEMO_RESTRICTED_CIDRS, ...on },
    'Demo: IP-restricted webhook',
  );
  // Paths are relative to the server's base URL (known only once it listens).
  // Secrets are not part of the saved fragment; `revealWebhookSecrets` adds them on every start.
  return {
    webhooks: {
      hmac: { listenerId: hmac.row.id, path: listenerPath(hmac.row.id) },
      jwt: { listenerId: jwt.row.id, path: listenerPath(jwt.row.id), jwksPath: DEMO_JWKS_PATH, kid: key.kid, alg: key.alg },
      restricted: { listenerId: restricted.row.id, path: listenerPath(restricted.row.id), allowedCidrs: DEMO_RESTRICTED_CIDRS },
    },
  };
}

/** Adds the demo HMAC secret and the demo private JWT key to the saved demo fragment. */
export function revealWebhookSecrets(part: Record<string, unknown>, { store }: SeedContext): Record<string, unknown> {
  const w = part.webhooks as { hmac?: { listenerId?: string }; jwt?: { kid?: string } } | undefined;
  const hmacId = w?.hmac?.listenerId;
  const kid = w?.jwt?.kid;
  if (!w || !hmacId || !kid) return part;
  const l = store.db.prepare('SELECT secret_sealed FROM webhook_listeners WHERE id = ?').get(hmacId) as
    | { secret_sealed: string }
    | undefined;
  const k = store.db.prepare('SELECT private_sealed FROM webhook_demo_keys WHERE kid = ?').get(kid) as
    | { private_sealed: string }
    | undefined;
  return {
    ...part,
    webhooks: {
      ...w,
      hmac: { ...w.hmac, ...(l ? { secret: store.open(l.secret_sealed, ...secretPlace(hmacId)) } : {}) },
      jwt: { ...w.jwt, ...(k ? { privateJwk: JWK_COLUMN.value(store.open(k.private_sealed, ...keyPlace(kid))) } : {}) },
    },
  };
}

const demoKeySets = new WeakMap<Store, { keys: unknown[] }>();

/** The public demo key set (read once per store). */
export function demoJwks(store: Store): { keys: unknown[] } {
  let set = demoKeySets.get(store);
  if (!set) {
    const rows = store.db.prepare('SELECT public_jwk FROM webhook_demo_keys ORDER BY kid').pluck().all() as string[];
    // A key that cannot be read (no key type) is left out of the set.
    demoKeySets.set(store, (set = { keys: rows.map((r) => JWK_COLUMN.value(r)).filter((k) => k.kty) }));
  }
  return set;
}
