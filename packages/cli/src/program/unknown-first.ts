import type { Command, Option } from 'commander';

/**
 * Refuses a mistyped flag before commander looks for the required ones: commander checks the
 * required options first, so `send --form 1 …` said "required option '--from' not specified" and
 * never named the `--form` that was typed. Run from the root's `preSubcommand` hook, with the words
 * after the command's name; throws commander's own "unknown option" error (with its "Did you
 * mean" suggestion) for the first flag neither the command nor the root takes.
 *
 * @example
 * ```ts
 * root.hook('preSubcommand', (root, command) => refuseUnknownFirst(root, command, root.args.slice(1)))
 * ```
 */
export function refuseUnknownFirst(root: Command, command: Command, words: readonly string[]): void {
  // Commands that parse their own words (`sandbox`, the hidden `mcp`) take any flag.
  if ((command as unknown as { _allowUnknownOption?: boolean })._allowUnknownOption) return;
  const options = new Map<string, Option>();
  for (const option of [...root.options, ...command.options]) if (option.long) options.set(option.long, option);
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    if (word === '--') return;
    if (!word.startsWith('--')) continue;
    const [flag = word, inline] = word.split(/=(.*)/s);
    if (flag === '--help') return;
    const option = options.get(flag);
    if (option === undefined) unknown(command, flag);
    // The next word is this flag's value (commander takes it whatever it looks like), or, for an
    // optional value (`--wait [status]`), when it is not a flag itself.
    const next = words[i + 1];
    if (inline === undefined && (option.required || (option.optional && next !== undefined && !next.startsWith('-'))))
      i += 1;
  }
}

/** Commander's own error for an unknown flag, which names it and suggests the nearest one. */
function unknown(command: Command, flag: string): never {
  const own = (command as unknown as { unknownOption?: (flag: string) => never }).unknownOption;
  if (typeof own === 'function') own.call(command, flag);
  return command.error(`error: unknown option '${flag}'`, { code: 'commander.unknownOption', exitCode: 2 });
}
