// The command-line tools' options, read with node:util's parseArgs and refused in one line of our own wording:
// parseArgs's own message for an unknown option ends in an unbalanced quote (`as in '-- "--bogus"`).
import { type ParseArgsConfig, parseArgs } from 'node:util';

/** An option or argument that is not accepted: one line, the usage in parentheses. */
export class UsageError extends Error {}

/** What parseArgs's refusal says, in one plain line. */
export function describeArgumentError(error: unknown): string {
  const { code, message } = error as { code?: string; message: string };
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const option = /'([^']+)'/.exec(message)?.[1];
    if (option) return `unknown option ${option}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const option = /'(--?[\w-]+)/.exec(message)?.[1];
    if (option && /argument missing/.test(message)) return `${option} needs a value`;
  }
  return message.split('\n')[0] as string;
}

/** parseArgs with the process's arguments, a refusal thrown as a UsageError naming `usage`. */
export function readArguments<T extends ParseArgsConfig>(config: T, usage: string): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError(`${describeArgumentError(error)} (${usage})`);
  }
}
