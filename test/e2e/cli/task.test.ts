// agctl task approve-step-up end to end: the real binary against the in-process
// embedded server (whose OffsetClock the tests move for expiry).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TASK_PATH_FIELDS, resolveTaskViewPaths } from '../../../src/api/tasks.js';
import { insertStepUpTask } from '../../../src/server/fixtures/tasks.js';
import { BIN, ROOT, baseEnv, cliFor, spawnCli, startCli, tempDir } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';

const URL_RE = /(http:\/\/127\.0\.0\.1:\d+\/step-up\/\S+)/;
const TX_RE = /Step-up transaction: (\S+)/;
/** Transaction IDs are the server's: the embedded server issues KSUIDs (not UUIDs), which agctl treats as opaque. */
const SERVER_TX = /^[0-9A-Za-z]{27}$/;
const count = (text: string, part: string) => text.split(part).length - 1;

const confirm = async (url: string) => {
  const res = await fetch(url, { method: 'POST', body: 'confirm=yes', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  return res.status;
};

describe('agctl task approve-step-up', async () => {
  const s = await startTestServer();
  const dir = tempDir();
  const env = { AGCTL_BASE_URL: s.baseUrl, AGCTL_CLIENT_ID: s.plainClient.clientId, AGCTL_CLIENT_SECRET: s.plainClient.clientSecret };
  const cli = cliFor(dir, env);
  const spawnEnv = { ...baseEnv(dir), ...env };
  const fresh = (opts?: Parameters<typeof insertStepUpTask>[2]) => insertStepUpTask(s.server.store, s.clock, opts);
  const currentStep = (taskId: string) => {
    const row = s.server.store.db.prepare('SELECT policy FROM tasks WHERE id = ?').get(taskId) as { policy: string };
    return JSON.parse(row.policy).current;
  };

  // The tests up to the wait timeout spend most of their time waiting (polls, a real process's start-up): each on a task
  // of its own, they run side by side. The tests that move the server's clock come after them.
  it.concurrent('runs the full flow: issued transaction, redirect, confirmation while waiting, approval', async () => {
    const { taskId, stepId } = fresh();
    const run = startCli(['task', 'approve-step-up', taskId, '--comment', 'quarterly clean-up'], spawnEnv);
    const [, url] = await run.waitForStderr(URL_RE);
    const [, tx] = await run.waitForStderr(TX_RE);
    expect(tx).toMatch(SERVER_TX);
    expect(s.server.store.db.prepare('SELECT task_id, step_id, user_id, state FROM step_up_transactions WHERE id = ?').get(tx)).toEqual({
      task_id: taskId,
      step_id: stepId,
      user_id: 'user-ci',
      state: 'pending',
    });
    await run.waitForStderr(/Waiting up to 5m00s/);
    // Still pending: the task has not moved.
    expect(currentStep(taskId).id).toBe(stepId);
    expect(await confirm(url!)).toBe(200);
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(count(r.stderr + r.stdout, url!)).toBe(1);
    expect(r.stderr).not.toMatch(/resume/i);
    expect(r.stderr).toContain(`Approved step ${stepId}`);
    // Resolved through the path fields of the default expand mask.
    expect(r.stdout).toMatch(/^Task: +#\d+ CRM Administrator for Grace Hopper$/m);
    expect(r.stdout).toMatch(new RegExp(`^ID: +${taskId}$`, 'm'));
    expect(r.stdout).toMatch(/^App: +Demo CRM \(crm-app\)$/m);
    expect(r.stdout).toMatch(/^Requester: +Grace Hopper <grace@example\.com>$/m);
    expect(r.stdout).toMatch(
      new RegExp(`^Approved step: +approval ${stepId} by CI Robot \\(user-ci\\) at \\d{4}-.*\\(step-up ${tx}\\)$`, 'm'),
    );
    expect(r.stdout).toMatch(/^Next step: +provision [0-9A-Za-z]{27}, then 1 more$/m);
    const cur = currentStep(taskId);
    expect(cur.provision).toBeDefined();
    const action = s.server.store.db.prepare('SELECT * FROM task_approve_actions WHERE task_id = ?').get(taskId) as any;
    expect(action).toMatchObject({ step_id: stepId, user_id: 'user-ci', step_up_transaction_id: tx, comment: 'quarterly clean-up' });
    // The approve action's ID, as the server answered it in ticketActionId.
    expect(r.stdout).toMatch(new RegExp(`^Approve action: +${action.id}$`, 'm'));
  });

  it.concurrent('--no-wait exits 10 with the URL and a resume command, each printed once; the resume approves', async () => {
    const { taskId, stepId } = fresh();
    const first = await cli(['task', 'approve-step-up', taskId, '--no-wait', '-o', 'json']);
    expect(first.code, first.stderr).toBe(10);
    const p = first.json();
    expect(p).toMatchObject({ status: 'pending', taskId, policyStepId: stepId, stepUpTransactionId: expect.stringMatching(SERVER_TX) });
    expect(p.redirectUrl).toMatch(URL_RE);
    expect(p.resumeCommand).toBe(`agctl task approve-step-up ${taskId} --step ${stepId} --transaction-id ${p.stepUpTransactionId}`);
    expect(first.stderr).toMatch(/pending/);
    expect(first.stderr).not.toContain(p.redirectUrl);
    expect(currentStep(taskId).id).toBe(stepId);

    // Resuming before the confirmation is still pending.
    const resumeArgs = p.resumeCommand.split(' ').slice(1);
    const early = await cli([...resumeArgs, '--no-wait']);
    expect(early.code, early.stderr).toBe(10);
    expect(early.stdout).toMatch(new RegExp(`^Transaction: +${p.stepUpTransactionId}$`, 'm'));
    expect(count(early.stdout + early.stderr, p.resumeCommand)).toBe(1);
    expect(early.stdout).toMatch(/^Resume with: +agctl task approve-step-up /m);
    // The URL again: the transaction does not carry it, agctl kept it when the step-up started.
    expect(early.stdout.split('\n').filter((l) => /^Confirm at: /.test(l))).toEqual([expect.stringContaining(p.redirectUrl)]);

    expect(await confirm(p.redirectUrl)).toBe(200);
    const done = await cli(resumeArgs);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/^Approved step: +approval .* by CI Robot \(user-ci\)/m);
    expect(currentStep(taskId).id).not.toBe(stepId);
  });

  it.concurrent('--no-wait in a table prints the URL and the resume command once each; the printed command resumes while waiting', async () => {
    const { taskId, stepId } = fresh();
    const first = await cli(['task', 'approve-step-up', taskId, '--no-wait', '--comment', "it's fine"]);
    expect(first.code, first.stderr).toBe(10);
    const url = /^Confirm at: +(\S+)$/m.exec(first.stdout)![1]!;
    const resume = /^Resume with: +(.+)$/m.exec(first.stdout)![1]!;
    const all = first.stdout + first.stderr;
    expect(count(all, url)).toBe(1);
    expect(count(all, resume)).toBe(1);
    expect(resume).toMatch(
      new RegExp(`^agctl task approve-step-up ${taskId} --step ${stepId} --transaction-id [0-9A-Za-z]{27} --comment 'it'\\\\''s fine'$`),
    );
    // The printed command, run as a shell would: waits, and the page is confirmed meanwhile.
    const run = spawn('/bin/sh', ['-c', resume.replace(/^agctl /, `"${process.execPath}" "${BIN}" `)], {
      env: spawnEnv,
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    run.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    run.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d;
      if (/Waiting up to/.test(stderr) && !stderr.includes('[confirmed]')) {
        stderr += '[confirmed]';
        void confirm(url);
      }
    });
    const code = await new Promise<number | null>((resolve) => run.on('close', resolve));
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/Resuming step-up transaction [0-9A-Za-z]{27}: waiting for it to be verified\. Confirm it at:\n {2}(\S+)/);
    expect(/Confirm it at:\n {2}(\S+)/.exec(stderr)![1]).toBe(url);
    expect(stdout).toMatch(/^Approve action: +[0-9A-Za-z]{27}$/m);
    const action = s.server.store.db.prepare('SELECT comment FROM task_approve_actions WHERE task_id = ?').get(taskId) as any;
    expect(action.comment).toBe("it's fine");
  });

  it.concurrent('--no-wait still exits 10 when the reader of its output has gone (`| head -1`, `| grep -q`)', async () => {
    const { taskId, stepId } = fresh();
    const child = spawn(process.execPath, [BIN, 'task', 'approve-step-up', taskId, '--no-wait'], {
      env: spawnEnv,
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy(); // the reader stops before agctl writes anything
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code, stderr).toBe(10);
    expect(stderr).toContain('step-up authentication pending');
    expect(currentStep(taskId).id).toBe(stepId);
  });

  // A real process and a real SIGINT: the signal reaches the wait as Ctrl-C.
  it.concurrent('Ctrl-C while waiting prints the resume command once and exits 130; the resume approves', async () => {
    const { taskId, stepId } = fresh();
    const run = spawnCli(['task', 'approve-step-up', taskId], spawnEnv);
    const [, url] = await run.waitForStderr(URL_RE);
    const [, tx] = await run.waitForStderr(TX_RE);
    await run.waitForStderr(/Waiting up to 5m00s/);
    const resume = `agctl task approve-step-up ${taskId} --step ${stepId} --transaction-id ${tx}`;
    run.kill('SIGINT');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.at(-2)).toBe(`Waiting up to 5m00s for the step-up to be confirmed...`);
    expect(lines.at(-1)).toBe(`! cancelled (Ctrl-C) while waiting for the step-up; to resume: ${resume}`);
    expect(currentStep(taskId).id).toBe(stepId);

    expect(await confirm(url!)).toBe(200);
    const done = await cli(resume.split(' ').slice(1));
    expect(done.code, done.stderr).toBe(0);
    expect(currentStep(taskId).id).not.toBe(stepId);
  });

  // In-process (Ctrl-C as the command sees it): the real SIGINT is the test above's.
  it.concurrent('Ctrl-C while waiting with -o json prints the transaction as "cancelled", the resume command once', async () => {
    const { taskId, stepId } = fresh();
    const run = startCli(['task', 'approve-step-up', taskId, '-o', 'json'], spawnEnv);
    const [, tx] = await run.waitForStderr(TX_RE);
    await run.waitForStderr(/Waiting up to/);
    run.interrupt();
    const r = await run.done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.json()).toMatchObject({
      status: 'cancelled',
      taskId,
      policyStepId: stepId,
      stepUpTransactionId: tx,
      redirectUrl: expect.stringMatching(URL_RE),
      resumeCommand: `agctl task approve-step-up ${taskId} --step ${stepId} --transaction-id ${tx}`,
    });
    expect(count(r.stdout + r.stderr, r.json().resumeCommand)).toBe(1);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(
      '! cancelled (Ctrl-C) while waiting for the step-up; to resume, run the resumeCommand of the output',
    );
  });

  it.concurrent('gives up with exit 10 when the wait times out, with the URL and the resume command once each', async () => {
    const { taskId } = fresh();
    const started = Date.now();
    const r = await cli(['task', 'approve-step-up', taskId, '--wait-timeout', '1']);
    expect(r.code).toBe(10);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.stderr).toMatch(/step-up not completed within 1s/);
    const url = URL_RE.exec(r.stderr)![1]!;
    const resume = /^Resume with: +(.+)$/m.exec(r.stdout)![1]!;
    expect(resume).toMatch(/ --transaction-id [0-9A-Za-z]{27}$/);
    expect(count(r.stdout + r.stderr, url)).toBe(1);
    expect(count(r.stdout + r.stderr, resume)).toBe(1);
  });

  it('refuses a step that is not the current one (exit 7)', async () => {
    const { taskId, stepId } = fresh();
    const r = await cli(['task', 'approve-step-up', taskId, '--step', 'not-the-step']);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`is not the current step of task ${taskId} (the current step is ${stepId})`);
    expect(r.stderr).toContain('FailedPrecondition');
    const waiting = await cli(['task', 'approve-step-up', s.demo.tasks.waiting, '-o', 'json']);
    expect(waiting.code).toBe(7);
    expect(JSON.parse(waiting.stderr.trim().split('\n').at(-1)!).error).toMatchObject({
      status: 400,
      code: 'failed_precondition',
      message: expect.stringMatching(/not an approval/),
    });
    const closed = await cli(['task', 'approve-step-up', s.demo.tasks.closed]);
    expect(closed.code).toBe(7);
    expect(closed.stderr).toMatch(/closed/);
  });

  it('answers exit 5 for an unknown task and 4 for a caller who is not an approver', async () => {
    const r = await cli(['task', 'approve-step-up', 'no-such-task']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/task no-such-task not found/);
    const notApprover = await cli(['task', 'approve-step-up', s.demo.tasks.noStepUp]);
    expect(notApprover.code).toBe(4);
    expect(notApprover.stderr).toMatch(/not an approver/);
  });

  /** Starts a step-up with --no-wait and confirms its page: a verified transaction for (task, step, user-ci). */
  const verifiedTx = async (taskId: string, extra: string[] = []) => {
    const p = (await cli(['task', 'approve-step-up', taskId, '--no-wait', '-o', 'json', ...extra])).json();
    expect(await confirm(p.redirectUrl)).toBe(200);
    return p.stepUpTransactionId as string;
  };

  it('refuses invented, foreign and used transaction IDs', async () => {
    const { taskId, stepId } = fresh();
    // Invented: any opaque form is accepted as a flag, and the service does not know it.
    for (const invented of [randomUUID(), 'not-a-uuid-at-all']) {
      const r = await cli(['task', 'approve-step-up', taskId, '--transaction-id', invented]);
      expect(r.code, invented).toBe(5);
      expect(r.stderr).toContain(`step-up transaction ${invented} not found`);
    }
    const tx = await verifiedTx(taskId);
    // Another task's, or another user's: refused, nothing approved.
    const other = fresh();
    const elsewhere = await cli(['task', 'approve-step-up', other.taskId, '--transaction-id', tx]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain(`step-up transaction ${tx} is for task ${taskId}, not ${other.taskId}`);
    const asAda = await cli(['task', 'approve-step-up', taskId, '--transaction-id', tx], {
      env: { AGCTL_CLIENT_ID: s.keyClient.clientId, AGCTL_CLIENT_SECRET: s.keyClient.clientSecret },
    });
    // Another user's transaction is refused before anything is sent (the server would refuse it too: test/e2e/server/tasks.test.ts).
    expect(asAda.code).toBe(2);
    expect(asAda.stderr).toMatch(/belongs to user user-ci, not to user-ada/);
    expect(currentStep(other.taskId).id).toBe(other.stepId);
    expect(currentStep(taskId).id).toBe(stepId);
    // Used once, then refused.
    const ok = await cli(['task', 'approve-step-up', taskId, '--transaction-id', tx]);
    expect(ok.code, ok.stderr).toBe(0);
    const again = await cli(['task', 'approve-step-up', taskId, '--step', stepId, '--transaction-id', tx]);
    expect(again.code).toBe(7);
    expect(again.stderr).toMatch(/already used/);
    expect(again.stderr).toMatch(/hint: .*without --transaction-id/);
  });

  it('refuses an expired transaction (server clock moved past 10 minutes)', async () => {
    const { taskId, stepId } = fresh();
    const first = await cli(['task', 'approve-step-up', taskId, '--no-wait', '-o', 'json']);
    expect(first.code).toBe(10);
    const p = first.json();
    s.clock.advance(10 * 60_000 + 1000);
    expect(await confirm(p.redirectUrl)).toBe(410);
    const r = await cli(['task', 'approve-step-up', taskId, '--step', stepId, '--transaction-id', p.stepUpTransactionId]);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/expired/);
    expect(r.stderr).toMatch(/hint:/);
    expect(currentStep(taskId).id).toBe(stepId);
  });

  it('stops waiting when the transaction expires during the wait', async () => {
    const { taskId, stepId } = fresh();
    const run = startCli(['task', 'approve-step-up', taskId], spawnEnv);
    await run.waitForStderr(URL_RE);
    await run.waitForStderr(/Waiting up to/);
    s.clock.advance(11 * 60_000);
    const r = await run.done;
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/expired/);
    expect(currentStep(taskId).id).toBe(stepId);
  });

  it('expands every related object with * and every path field resolves into expanded (JSON output)', async () => {
    const { taskId } = fresh();
    const tx = await verifiedTx(taskId);
    const r = await cli(['task', 'approve-step-up', taskId, '--transaction-id', tx, '--expand', '*', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const res = r.json();
    expect(Object.keys(res).sort()).toEqual(['expanded', 'redirectUrl', 'taskView', 'ticketActionId']);
    expect(res.redirectUrl).toBe('');
    expect(res.ticketActionId).toMatch(/^[0-9A-Za-z]{27}$/);
    for (const f of TASK_PATH_FIELDS) expect(typeof res.taskView[f]).toBe('string');
    const resolved = resolveTaskViewPaths(res.taskView, res.expanded) as Record<string, any[]>;
    const nonEmpty = TASK_PATH_FIELDS.filter((f) => res.taskView[f] !== '');
    expect(nonEmpty.length).toBeGreaterThanOrEqual(7);
    for (const f of nonEmpty) {
      expect(resolved[f]!.length, f).toBeGreaterThan(0);
      for (const o of resolved[f]!) expect(o['@type'], f).toMatch(/^type\.googleapis\.com\//);
    }
    expect(resolved.appPath).toEqual([expect.objectContaining({ id: 'crm-app' })]);
    expect(resolved.createdByUserPath).toEqual([expect.objectContaining({ id: 'user-grace' })]);
    expect(resolved.entitlementsPath).toEqual([expect.objectContaining({ id: 'ent-crm-admin' })]);
    expect(resolved.approversPath!.map((u) => u.id)).toEqual(['user-ci']);
    // Every expanded object is reached by some path field.
    const reached = new Set(Object.values(resolved).flat());
    expect(res.expanded.every((o: unknown) => reached.has(o))).toBe(true);
    // The approval itself, and unknown enum values passed through.
    const approved = res.taskView.task.policy.history.at(-1).approval.approved;
    expect(approved).toMatchObject({ userId: 'user-ci', stepUpTransactionId: tx });
    expect(res.taskView.task.externalRefs[0].externalRefSource).toBe('EXTERNAL_REF_SOURCE_JIRA');
  });

  it('expands one path only', async () => {
    const { taskId } = fresh();
    const tx = await verifiedTx(taskId, ['--expand', 'app']);
    const done = await cli(['task', 'approve-step-up', taskId, '--transaction-id', tx, '--expand', 'app', '-o', 'json']);
    expect(done.code, done.stderr).toBe(0);
    const res = done.json();
    expect(res.expanded).toEqual([
      expect.objectContaining({ '@type': expect.stringMatching(/App$/), id: 'crm-app', displayName: 'Demo CRM' }),
    ]);
    expect(res.taskView.appPath).toBe('expanded[0]');
    for (const f of TASK_PATH_FIELDS) if (f !== 'appPath') expect(res.taskView[f], f).toBe('');
  });

  it('prints what it has when the table output lacks expanded objects', async () => {
    const { taskId } = fresh();
    const tx = await verifiedTx(taskId);
    const r = await cli(['task', 'approve-step-up', taskId, '--transaction-id', tx, '--expand', 'entitlements']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^App: +-$/m);
    expect(r.stdout).toMatch(/^Requester: +user-grace$/m);
    expect(r.stdout).toMatch(/^Approved step: +approval [0-9A-Za-z]{27} by user-ci at /m);
  });

  it('rejects bad flags before sending anything (exit 2)', async () => {
    const { taskId, stepId } = fresh();
    for (const args of [
      ['--transaction-id', ' '],
      ['--no-wait', '--embedded'],
      ['--expand', 'app,bogus'],
      ['--wait-timeout', '0'],
      ['--wait-timeout', 'soon'],
      ['--wait-timeout', '0.5'],
      ['--wait-timeout', '1.5'],
      ['--wait-timeout', '86401'],
      ['--step', ' '],
    ]) {
      const r = await cli(['task', 'approve-step-up', taskId, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^agctl: /m);
      // whole seconds from 1, as the help says
      if (args[0] === '--wait-timeout') expect(r.stderr).toContain('--wait-timeout must be a whole number from 1 to 86400');
      if (args[1] === '--embedded') expect(r.stderr).toMatch(/--no-wait cannot be used with --embedded[\s\S]*hint: run `agctl serve`/);
    }
    expect((await cli(['task', 'approve-step-up', '--help'])).stdout).toMatch(
      /--wait-timeout <seconds>\s+how long to wait for the step-up to be completed, in\s+whole seconds from 1 to 86400 \(default 300\)/,
    );
    const n = s.server.store.db.prepare('SELECT COUNT(*) AS n FROM step_up_transactions WHERE task_id = ?').get(taskId) as { n: number };
    expect(n.n).toBe(0);
    expect(currentStep(taskId).id).toBe(stepId);
  });

  it('--open hands the URL to $BROWSER, which confirms it', async () => {
    const { taskId, stepId } = fresh();
    const log = join(dir, 'browser.log');
    const envLog = join(dir, 'browser-env.log');
    const browser = join(dir, 'fake-browser.mjs');
    writeFileSync(
      browser,
      `#!${process.execPath}\nimport { appendFileSync, writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(envLog)}, JSON.stringify(process.env));\nappendFileSync(${JSON.stringify(log)}, process.argv[2] + '\\n');\nawait fetch(process.argv[2], { method: 'POST', body: 'confirm=yes', headers: { 'content-type': 'application/x-www-form-urlencoded' } });\n`,
    );
    chmodSync(browser, 0o755);
    const secrets = {
      AGCTL_ACCESS_TOKEN: undefined,
      AGCTL_CONFIG_KEY: 'a'.repeat(64),
      AGCTL_MCP_BEARER_TOKEN: 'mcp-bearer-secret',
      AGCTL_WEBHOOK_SECRET: 'webhook-secret',
    };
    const r = await cli(['task', 'approve-step-up', taskId, '--open'], { env: { BROWSER: browser, ...secrets } });
    expect(r.code, r.stderr).toBe(0);
    const opened = readFileSync(log, 'utf8').trim();
    expect(opened).toMatch(URL_RE);
    // The browser (long-running, starting other programs) gets none of agctl's settings, secrets included.
    const browserEnv = JSON.parse(readFileSync(envLog, 'utf8')) as Record<string, string>;
    expect(browserEnv.PATH).toBe(process.env.PATH);
    expect(Object.keys(browserEnv).filter((k) => k.startsWith('AGCTL_'))).toEqual([]);
    expect(JSON.stringify(browserEnv)).not.toContain(s.plainClient.clientSecret);
    expect(r.stderr).toContain(opened);
    expect(r.stdout).toMatch(new RegExp(`^Approved step: +approval ${stepId} by CI Robot \\(user-ci\\)`, 'm'));
  });

  it('warns when no browser can be opened and still waits', async () => {
    const { taskId } = fresh();
    const r = await cli(['task', 'approve-step-up', taskId, '--open', '--no-wait'], { env: { BROWSER: join(dir, 'no-such-browser') } });
    expect(r.code).toBe(10);
    expect(r.stderr).toMatch(/could not open a browser/);
  });

  it('BROWSER=false (a command that fails at once): one warning line, and the URL still printed', async () => {
    const { taskId } = fresh();
    const r = await cli(['task', 'approve-step-up', taskId, '--open', '--no-wait'], { env: { BROWSER: 'false' } });
    expect(r.code).toBe(10);
    expect(r.stderr.split('\n').filter((l) => /browser/.test(l))).toEqual([
      '! could not open a browser with BROWSER=false; open the step-up URL yourself',
    ]);
    expect(r.stdout).toMatch(/^Confirm at: +http:\/\/127\.0\.0\.1:\d+\/step-up\//m);
  });
});
