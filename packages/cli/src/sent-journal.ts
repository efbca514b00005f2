/**
 * The record of a send-many run in progress: `<file>.sent.ndjson`, one line per row sent
 * (`{"line":12,"id":345}`, its log id), appended synchronously as each answer comes, so it holds
 * every row sent however the process ends. A complete run removes it (its log ids are in the
 * summary); an interrupted one leaves it, and a later run of the same file is refused while it is
 * there (`--force` sends the file whole again).
 */
import { appendFileSync, existsSync, rmSync } from 'node:fs';
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

  /** Removes it: the run is complete, nothing of it is left to resume. */
  remove(): void {
    rmSync(this.path, { force: true });
  }
}
