// The step-up page in a real browser: `agctl task approve-step-up` waits while
// headless Chromium (driven by puppeteer-core) opens the page the command
// printed and clicks its confirm button; the command then finishes the
// approval. Unlike a plain POST, this runs the page's HTML form as a browser
// does, under the page's Content-Security-Policy (form-action 'self').
// Skipped, with the reason printed, where no Chromium is installed
// (AGCTL_TEST_CHROMIUM names another binary; .ci/run installs Debian's).
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { insertStepUpTask } from '../../../src/server/fixtures/tasks.js';
import { baseEnv, startCli, tempDir } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';

const CHROMIUM = process.env.AGCTL_TEST_CHROMIUM || '/usr/bin/chromium';
const missing = (() => {
  try {
    accessSync(CHROMIUM, constants.X_OK);
    return '';
  } catch {
    return `no Chromium at ${CHROMIUM} (install Debian's chromium, or set AGCTL_TEST_CHROMIUM to a Chromium binary)`;
  }
})();
if (missing) console.warn(`skipping the step-up page browser test: ${missing}`);

/** Flags for this machine's closed network: no background connections, no GPU, no sandbox (tests run as root). */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const LAUNCH_MS = 20_000;
const STEP_MS = 10_000;
const URL_RE = /(http:\/\/127\.0\.0\.1:\d+\/step-up\/\S+)/;

describe.skipIf(!!missing)(`the step-up page in headless Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it('is confirmed with a click, and the waiting approve-step-up completes the approval', { timeout: 60_000 }, async () => {
    const s = await startTestServer();
    const dir = tempDir();
    const { taskId, stepId } = insertStepUpTask(s.server.store, s.clock);
    const txState = (id: string) =>
      (s.server.store.db.prepare('SELECT state FROM step_up_transactions WHERE id = ?').get(id) as { state: string }).state;

    const profile = mkdtempSync(join(tmpdir(), 'agctl-chromium-'));
    let browser: Browser | undefined;
    let run: ReturnType<typeof startCli> | undefined;
    let tx: string | undefined;
    try {
      browser = await puppeteer.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: FLAGS,
        userDataDir: profile,
        timeout: LAUNCH_MS,
        protocolTimeout: STEP_MS,
      });
      const page = await browser.newPage();
      page.setDefaultTimeout(STEP_MS);

      // Bounded: a confirm that does nothing ends the command with exit 10 after 20 s, not the default 5 minutes.
      run = startCli(['task', 'approve-step-up', taskId, '--wait-timeout', '20'], {
        ...baseEnv(dir),
        AGCTL_BASE_URL: s.baseUrl,
        AGCTL_CLIENT_ID: s.plainClient.clientId,
        AGCTL_CLIENT_SECRET: s.plainClient.clientSecret,
      });
      const [, url] = await run.waitForStderr(URL_RE);
      [, tx] = await run.waitForStderr(/Step-up transaction: (\S+)/);
      await run.waitForStderr(/Waiting up to 20s/);

      const shown = await page.goto(url!, { waitUntil: 'load' });
      expect(shown?.status()).toBe(200);
      expect(await page.title()).toBe('Confirm approval');
      expect(await page.$eval('dl', (el) => el.textContent)).toContain(taskId);
      // Shown, not yet confirmed: the command is still waiting.
      expect(txState(tx!)).toBe('pending');

      const [answer] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('form button')]);
      expect(answer?.request().method()).toBe('POST');
      expect(answer?.status()).toBe(200);
      expect(await page.$eval('h1', (el) => el.textContent)).toBe('Step-up confirmed');
    } catch (err) {
      run?.interrupt(); // the command stops waiting at once
      await run?.done;
      throw err;
    } finally {
      await browser?.close().catch(() => browser?.process()?.kill('SIGKILL'));
      rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
    }

    const r = await run!.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Approved step ${stepId}`);
    expect(r.stdout).toMatch(new RegExp(`^Approved step: +approval ${stepId} by CI Robot \\(user-ci\\) at .*\\(step-up ${tx}\\)$`, 'm'));
    expect(txState(tx!)).toBe('used');
  });
});
