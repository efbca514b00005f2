/** The oldest Node.js the bins support (their package.json `engines`). */
export const REQUIRED_NODE = [22, 19] as const;

/**
 * The one line a bin writes on stderr when it runs on a Node.js older than {@link REQUIRED_NODE}
 * (it still runs, and colour and output behave), naming the version found and the one needed;
 * `undefined` on a Node.js new enough.
 *
 * @default version process.versions.node
 * @example
 * ```ts
 * const warning = oldNodeWarning('tenant-messaging-mcp')
 * if (warning) process.stderr.write(warning)
 * ```
 */
export function oldNodeWarning(bin: string, version: string = process.versions.node): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [needMajor, needMinor] = REQUIRED_NODE;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  const needed = REQUIRED_NODE.join('.');
  return `${bin}: Node.js ${version} is older than the ${needed} this command requires; some commands may fail. Install Node.js ${needed} or later.\n`;
}
