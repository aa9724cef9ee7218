// The config directory's lock files (config.lock, tokens/<hash>.lock), around
// a read-modify-write there, so that agctl processes started at once (logins,
// a switch, a logout, token renewals) take turns. The lock itself is the one
// of src/lib/private-fs.ts (serve's data directory lock is the same).
export { LockBusyError, acquireLock, withLock } from '../lib/private-fs.js';
