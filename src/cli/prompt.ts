// Prompts (@inquirer/prompts, loaded on first use), written to stderr so stdout stays data.
import { UsageError } from '../lib/exit.js';
import type { IO } from './io.js';

export interface Prompter {
  readonly enabled: boolean;
  input(message: string, opts?: { default?: string; validate?: (v: string) => true | string }): Promise<string>;
  password(message: string, opts?: { validate?: (v: string) => true | string }): Promise<string>;
  confirm(message: string, opts?: { default?: boolean }): Promise<boolean>;
  select<T extends string>(message: string, choices: { value: T; name?: string; description?: string }[], opts?: { default?: T }): Promise<T>;
}

export class InquirerPrompter implements Prompter {
  constructor(
    readonly enabled: boolean,
    private readonly io: IO,
    /** --no-color: the prompts are plain too. */
    private readonly noColor = false,
  ) {}

  async #lib() {
    if (!this.enabled) throw new UsageError('cannot prompt: not a terminal, CI is set, or --no-input was given');
    // The prompts' colour library decides once, from the environment, when it is first loaded.
    if (this.noColor) process.env.NO_COLOR = '1';
    return import('@inquirer/prompts');
  }

  get #ctx() {
    return { input: this.io.stdin as NodeJS.ReadableStream, output: this.io.stderr as NodeJS.WritableStream };
  }

  async input(message: string, opts: { default?: string; validate?: (v: string) => true | string } = {}) {
    const { input } = await this.#lib();
    return input({ message, default: opts.default, validate: opts.validate }, this.#ctx);
  }

  async password(message: string, opts: { validate?: (v: string) => true | string } = {}) {
    const { password } = await this.#lib();
    // No mask character: a row of * would tell the secret's length.
    return password({ message, mask: false, validate: opts.validate }, this.#ctx);
  }

  async confirm(message: string, opts: { default?: boolean } = {}) {
    const { confirm } = await this.#lib();
    return confirm({ message, default: opts.default ?? false }, this.#ctx);
  }

  async select<T extends string>(message: string, choices: { value: T; name?: string; description?: string }[], opts: { default?: T } = {}) {
    const { select } = await this.#lib();
    return select<T>({ message, choices, default: opts.default }, this.#ctx);
  }
}
