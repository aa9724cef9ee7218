// The step-up URLs agctl keeps for resume commands: best effort, a day, 50 at most.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recalledStepUpUrl, rememberStepUpUrl } from '../../../src/cli/commands/task/approve-step-up/urls.js';
import { tempDir } from '../../helpers/cli.js';

const DAY = 24 * 60 * 60 * 1000;

describe('kept step-up URLs', () => {
  it('keeps a URL per transaction in a 0600 file, for a day', () => {
    const env = { AGCTL_CONFIG_DIR: tempDir() };
    expect(recalledStepUpUrl(env, 0, 'tx1')).toBe('');
    expect(rememberStepUpUrl(env, 1000, 'tx1', 'https://t.example/su/1')).toBe(true);
    expect(rememberStepUpUrl(env, 2000, 'tx2', 'https://t.example/su/2')).toBe(true);
    expect(recalledStepUpUrl(env, 3000, 'tx1')).toBe('https://t.example/su/1');
    expect(recalledStepUpUrl(env, 3000, 'tx2')).toBe('https://t.example/su/2');
    expect(recalledStepUpUrl(env, 1000 + DAY, 'tx1')).toBe('');
    expect(statSync(join(env.AGCTL_CONFIG_DIR, 'step-up-urls.json')).mode & 0o777).toBe(0o600);
    // Writing drops what is older than a day.
    rememberStepUpUrl(env, 2000 + DAY - 1, 'tx3', 'https://t.example/su/3');
    expect(Object.keys(JSON.parse(readFileSync(join(env.AGCTL_CONFIG_DIR, 'step-up-urls.json'), 'utf8')))).toEqual(['tx2', 'tx3']);
  });

  it('keeps the newest 50, and reads a damaged file as empty', () => {
    const env = { AGCTL_CONFIG_DIR: tempDir() };
    for (let i = 0; i < 60; i++) rememberStepUpUrl(env, 1000 + i, `tx${i}`, `https://t.example/su/${i}`);
    expect(recalledStepUpUrl(env, 2000, 'tx9')).toBe('');
    expect(recalledStepUpUrl(env, 2000, 'tx10')).toBe('https://t.example/su/10');
    expect(recalledStepUpUrl(env, 2000, 'tx59')).toBe('https://t.example/su/59');
    writeFileSync(join(env.AGCTL_CONFIG_DIR, 'step-up-urls.json'), '{"tx1": ');
    expect(recalledStepUpUrl(env, 2000, 'tx10')).toBe('');
    expect(rememberStepUpUrl(env, 3000, 'tx1', 'https://t.example/su/a')).toBe(true);
    expect(recalledStepUpUrl(env, 3000, 'tx1')).toBe('https://t.example/su/a');
  });

  it("keeps no entry with a transaction ID over 256 characters or a URL over 8192 (a server's, of any size)", () => {
    const env = { AGCTL_CONFIG_DIR: tempDir() };
    expect(rememberStepUpUrl(env, 1000, 'x'.repeat(257), 'https://t.example/su/1')).toBe(false);
    expect(rememberStepUpUrl(env, 1000, 'tx1', `https://t.example/su/1?${'a'.repeat(8192)}`)).toBe(false);
    expect(rememberStepUpUrl(env, 1000, 'x'.repeat(256), `https://t.example/su/?${'a'.repeat(8000)}`)).toBe(true);
    expect(recalledStepUpUrl(env, 2000, 'tx1')).toBe('');
    expect(Object.keys(JSON.parse(readFileSync(join(env.AGCTL_CONFIG_DIR, 'step-up-urls.json'), 'utf8')))).toEqual(['x'.repeat(256)]);
  });

  it('does not fail when the config directory cannot be written', () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, '');
    expect(rememberStepUpUrl({ AGCTL_CONFIG_DIR: file }, 0, 'tx1', 'https://t.example/su/1')).toBe(false);
    expect(recalledStepUpUrl({ AGCTL_CONFIG_DIR: file }, 0, 'tx1')).toBe('');
  });
});
