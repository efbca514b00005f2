/**
 * The record of a send-many run in progress: `<file>.sent.ndjson`, one line per row sent
 * (`{"line":12,"id":345}`, its log id), appended synchronously as each answer comes, so it holds
 * every row sent however the process ends. A complete run removes it (its log ids are in the
 * summary); an interrupted one leaves it, and a later run of the same file is refused while it is
 * there (`--force` sends the file whole again), until a complete run of its remaining rows' file
 * marks it complete (`{"complete":true,...}`, its last line).
 */
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { siblingPath } from './sibling-path.js';

/** The journal of the runs of one input file. */
export class SentJournal {
  /** Where it is kept: `campaign.csv` -> `campaign.sent.ndjson`. */
  readonly path: string;
  rows = 0;

  constructor(input: string) {
    this.path = siblingPath(input, 'sent', '.ndjson');
  }

  /** Whether an earlier run of the file left one (it was interrupted, or killed). */
  existsNow(): boolean {
    return existsSync(this.path);
  }

  /** Records a row sent, before anything else is told of it. */
  record(line: number, id: number): void {
    appendFileSync(this.path, `${JSON.stringify({ line, id })}\n`);
    this.rows++;
  }

  /**
   * Marks a campaign's journal complete: its remaining rows (`remainingPath`) were all sent, `sent`
   * of them. Its log ids are kept; a run of the campaign's file is no longer refused for it.
   */
  complete(remainingPath: string, sent: number): void {
    if (!this.existsNow()) return;
    appendFileSync(this.path, `${JSON.stringify({ complete: true, remaining: remainingPath, sent })}\n`);
  }

  /** Whether its last line says the campaign was completed. */
  isComplete(): boolean {
    try {
      const lines = readFileSync(this.path, 'utf8').trimEnd().split('\n');
      return (JSON.parse(lines.at(-1) ?? '{}') as { complete?: unknown }).complete === true;
    } catch {
      return false;
    }
  }

  /** Removes it: the run is complete, nothing of it is left to resume. */
  remove(): void {
    rmSync(this.path, { force: true });
  }
}
