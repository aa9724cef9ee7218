// Approve tasks with step-up authentication as the service defines it: the
// server issues the transaction, agctl finds it through the transaction
// search; --no-wait and the printed resume command, the step-up page
// (completed by a POST, as the browser's button does), waiting while the page
// is confirmed, expansion of related objects, and the refusals.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const title = 'Approve a task with step-up authentication';

const bin = fileURLToPath(new URL('../../bin/agctl.js', import.meta.url));
/** The step-up URL agctl shows while it waits. */
const URL_RE = /Confirm it at:\n\s+(\S+)/;

/** Splits a command line agctl printed (words, or single-quoted with '\'' inside) into its arguments. */
function shellWords(line) {
  return [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replaceAll("'\\''", "'") : m[2]));
}

/** The step-up page, reduced to its text. */
async function showPage(url, bold) {
  console.log(`\n${bold(`$ curl '${url}'`)}   # the step-up page a browser would show`);
  const res = await fetch(url);
  const html = await res.text();
  const body = html.slice(html.indexOf('<body>'));
  const lines = body
    .replace(/<\/(dd|h1|p)>/g, '\n')
    .replace(/<button[^>]*>([^<]*)<\/button>/g, '[$1]\n')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)))
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  console.log(`HTTP ${res.status}\n  ${lines.join('\n  ')}`);
  if (res.status !== 200) throw new Error(`the step-up page answered ${res.status}`);
}

async function confirmPage(url, bold) {
  console.log(`\n${bold(`$ curl -X POST -d confirm=yes '${url}'`)}   # the page's confirm button`);
  const res = await fetch(url, { method: 'POST', body: 'confirm=yes', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  const h1 = /<h1>([^<]*)<\/h1>/.exec(await res.text())?.[1];
  console.log(`HTTP ${res.status}: ${h1}`);
  if (res.status !== 200) throw new Error(`confirming the step-up page answered ${res.status}`);
}

/** Runs agctl in the background, confirms the step-up page as soon as it prints the URL, and waits for it. */
function runWhileConfirming(args, env, bold) {
  console.log(
    `\n${bold('$ agctl ' + args.map((a) => (/[\s*'"]/.test(a) ? `'${a}'` : a)).join(' '))}   # confirmed in the "browser" while it waits`,
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let confirmed = false;
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d;
      const m = URL_RE.exec(stderr);
      if (m && !confirmed && /Waiting/.test(stderr)) {
        confirmed = true;
        fetch(m[1], { method: 'POST', body: 'confirm=yes', headers: { 'content-type': 'application/x-www-form-urlencoded' } }).catch(
          reject,
        );
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      process.stdout.write(stderr);
      if (code !== 0) return reject(new Error(`agctl exited ${code}:\n${stdout}`));
      resolve(stdout);
    });
  });
}

export default async function ({ agctl: run, ready, env, bold }) {
  // Credentials from the environment (they win over any profile): the key-form
  // client acts as user-ada, an approver of the demo tasks; the plain-form
  // client acts as user-ci.
  const key = ready.clients.find((c) => c.form === 'key');
  const plain = ready.clients.find((c) => c.form === 'plain');
  const asAda = { AGCTL_BASE_URL: ready.baseUrl, AGCTL_CLIENT_ID: key.clientId, AGCTL_CLIENT_SECRET: key.clientSecret };
  const asCi = { ...asAda, AGCTL_CLIENT_ID: plain.clientId, AGCTL_CLIENT_SECRET: plain.clientSecret };
  const agctl = (args, opts = {}) => run(args, { ...opts, extraEnv: { ...asAda, ...opts.extraEnv } });
  const t = ready.demo.tasks;

  // 0. Find the tasks: those whose current step Ada may approve, and one in full.
  agctl(['task', 'list']);
  agctl(['task', 'list', '--mine', '--jq', '.[].task.id']);
  agctl(['task', 'get', t.stepUp]);

  // 1. Start the approval without waiting: the server issues a transaction; agctl
  //    finds its ID through the transaction search and exits 10 with the URL and
  //    the command that resumes it.
  const first = agctl(['task', 'approve-step-up', t.stepUp, '--comment', 'Approved for the quarterly clean-up', '--no-wait'], {
    expect: 10,
  });
  const field = (name) => new RegExp(`^${name}: +(.+)$`, 'm').exec(first.stdout)?.[1];
  const url = field('Confirm at');
  const resume = field('Resume with');
  if (!url || !resume) throw new Error('approve-step-up --no-wait did not print the URL and the resume command');
  const resumeArgs = shellWords(resume).slice(1);
  const step = resumeArgs[resumeArgs.indexOf('--step') + 1];

  // 2. The step-up page, then its confirmation by a POST.
  await showPage(url, bold);
  await confirmPage(url, bold);

  // 3. The printed resume command: the transaction is verified, the approval goes
  //    through; the same transaction cannot be used again, nor one the server never issued.
  agctl(resumeArgs);
  agctl(resumeArgs, { expect: 7 });
  agctl(['task', 'approve-step-up', t.stepUp2, '--transaction-id', 'invented-by-the-client'], { expect: 5 });

  // 4. Waiting: agctl follows the transaction until the page is confirmed, then
  //    approves with it; every related object expanded.
  const out = await runWhileConfirming(['task', 'approve-step-up', t.stepUp2, '--expand', '*', '-o', 'json'], { ...env, ...asAda }, bold);
  const res = JSON.parse(out);
  const { resolveTaskViewPaths } = await import('../../dist/api/tasks.js');
  const resolved = resolveTaskViewPaths(res.taskView, res.expanded);
  console.log(`ticketActionId: ${res.ticketActionId}   redirectUrl: "${res.redirectUrl}"   expanded: ${res.expanded.length} objects`);
  for (const [field, objs] of Object.entries(resolved)) {
    console.log(
      `  ${field.padEnd(20)} ${res.taskView[field].padEnd(16)} -> ${objs.map((o) => `${o['@type'].split('.').pop()} ${o.id}`).join(', ')}`,
    );
  }
  if (res.redirectUrl !== '' || !res.ticketActionId) throw new Error('the waiting approval did not go through');

  // 5. A step that needs no step-up is approved at once; only its approvers may approve it.
  agctl(['task', 'approve-step-up', t.noStepUp], { expect: 4, extraEnv: asCi });
  agctl(['task', 'approve-step-up', t.noStepUp, '--expand', 'app,approvers']);

  // 6. Refusals: not an approval step, a closed task, a step that is not current, an unknown task.
  agctl(['task', 'approve-step-up', t.waiting], { expect: 7 });
  agctl(['task', 'approve-step-up', t.closed], { expect: 7 });
  agctl(['task', 'approve-step-up', t.stepUp, '--step', step], { expect: 7 });
  agctl(['task', 'approve-step-up', 'no-such-task'], { expect: 5 });
  // --embedded: its server (and step-up page) stops with agctl, so --no-wait is refused.
  agctl(['--embedded', 'task', 'approve-step-up', t.stepUp, '--no-wait'], { expect: 2 });
}
