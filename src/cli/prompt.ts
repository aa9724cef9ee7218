// Prompts (@inquirer/prompts, loaded on first use), written to stderr so stdout stays data.
import { UsageError } from '../lib/exit.js';
import type { IO } from './io.js';

export interface Prompter {
  readonly enabled: boolean;
  input(message: string, opts?: { default?: string; validate?: (v: string) => true | string }): Promise<string>;
  password(message: string, opts?: { validate?: (v: string) => true | string }): Promise<string>;
  confirm(message: string, opts?: { default?: boolean }): Promise<boolean>;
  select<T extends string>(
    message: string,
    choices: { value: T; name?: string; description?: string }[],
    opts?: { default?: T },
  ): Promise<T>;
}

const same = (text: string) => text;

/** The prompts' theme without colour: their default one's text, no escape sequences. */
const PLAIN_THEME = {
  prefix: { idle: '?', done: '✔' },
  spinner: { interval: 80, frames: ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] },
  style: {
    answer: same,
    message: same,
    error: (text: string) => `> ${text}`,
    defaultAnswer: (text: string) => `(${text})`,
    help: same,
    highlight: same,
    key: (text: string) => `<${text}>`,
    // select's own
    disabled: (text: string) => `- ${text}`,
    description: same,
    keysHelpTip: (keys: [string, string][]) => keys.map(([key, action]) => `${key} ${action}`).join(' • '),
  },
};

export class InquirerPrompter implements Prompter {
  constructor(
    readonly enabled: boolean,
    private readonly io: IO,
    /** Whether the prompts may colour their text (the context decides: --no-color, NO_COLOR, a terminal on stderr). */
    private readonly color: boolean,
  ) {}

  async #lib() {
    if (!this.enabled) throw new UsageError('cannot prompt: not a terminal, CI is set, or --no-input was given');
    return import('@inquirer/prompts');
  }

  /** The theme every prompt gets: its own (coloured) one, or the plain one. */
  get #theme() {
    return this.color ? undefined : PLAIN_THEME;
  }

  get #ctx() {
    return { input: this.io.stdin as NodeJS.ReadableStream, output: this.io.stderr as NodeJS.WritableStream };
  }

  async input(message: string, opts: { default?: string; validate?: (v: string) => true | string } = {}) {
    const { input } = await this.#lib();
    return input({ message, default: opts.default, validate: opts.validate, theme: this.#theme }, this.#ctx);
  }

  async password(message: string, opts: { validate?: (v: string) => true | string } = {}) {
    const { password } = await this.#lib();
    // No mask character: a row of * would tell the secret's length.
    return password({ message, mask: false, validate: opts.validate, theme: this.#theme }, this.#ctx);
  }

  async confirm(message: string, opts: { default?: boolean } = {}) {
    const { confirm } = await this.#lib();
    return confirm({ message, default: opts.default ?? false, theme: this.#theme }, this.#ctx);
  }

  async select<T extends string>(
    message: string,
    choices: { value: T; name?: string; description?: string }[],
    opts: { default?: T } = {},
  ) {
    const { select } = await this.#lib();
    return select<T>({ message, choices, default: opts.default, theme: this.#theme }, this.#ctx);
  }
}
