/** Whether the CI variable is set (to anything but empty, 0 or false): then agctl never prompts and never uses the OS keyring. */
export function ciSet(env: NodeJS.ProcessEnv): boolean {
  return env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
}
