// Whether a process still runs, for lock files that name their holder's PID
// (the config directory's locks, src/config/lock.ts; serve's data directory
// lock, src/server/lock.ts).

/** Whether a process with this PID runs on this machine (EPERM: it runs, as another user). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
