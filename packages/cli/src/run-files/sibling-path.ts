/**
 * The files a send-many run writes beside its input, named from it: `campaign.csv` ->
 * `campaign.failed.csv`, or with `ext`, `campaign.sent.ndjson`.
 *
 * @example
 * ```ts
 * siblingPath('campaign.csv', 'remaining') // 'campaign.remaining.csv'
 * ```
 */
export function siblingPath(path: string, kind: string, ext?: string): string {
  const dot = path.lastIndexOf('.');
  const hasExt = dot > path.lastIndexOf('/');
  const base = hasExt ? path.slice(0, dot) : path;
  return `${base}.${kind}${ext ?? (hasExt ? path.slice(dot) : '')}`;
}
