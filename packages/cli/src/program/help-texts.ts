/**
 * The long help at the end of `--help`, command by command: what a command reads and writes, what
 * its output looks like, its exit codes, and examples. The one-line descriptions and short examples
 * stay beside each command in program.ts.
 */
import { REASON_COLUMN } from '../rows/row-fields.js';

/** The end of the root `--help`: the exit codes and where the credentials come from. */
export const ROOT_HELP = `
Exit codes: 0 done, 1 the API or the network failed it (nothing sent), 2 bad usage, 3 outcome
unknown (the message may have been sent), 4 wait timed out, 5 sent (the message was accepted, its
log id printed, but the wait after it failed or was stopped: do not send it again), 128 + the
signal when stopped (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP). With --json, once a message is
accepted, stdout has its log whatever happens next.
Credentials: TENANT_MESSAGING_BASE_URL and TENANT_MESSAGING_API_KEY, or --base-url and
--api-key-file <path>. A key on the command line (--api-key) is refused: ps and shell history show it.`;

/** The end of `tail --help`: its line per event, and what it leaves out. */
export const TAIL_HELP = `
One line per event: its time, the log, its type, the recipient, and the status (or its change):
  2026-11-25T04:25:52Z  message log 15  text      to +15557654321  sent
  2026-11-25T04:25:54Z  message log 15  text      to +15557654321  sent -> delivered
A new log's time is its sent_at; a change's is when tail saw it (the API records no delivery or
read time). The content is left out: tenant-messaging get <log-id> shows it, and --ndjson prints
each event with the whole log.

Example:
  $ tenant-messaging tail --follow --ndjson | jq .log.id`;

/** The end of `listen --help`: which events are forwarded, how they are signed and retried, the secret. */
export const LISTEN_HELP = `
Only what happens after listen starts is forwarded (the logs already there are not replayed): a new
log as message.<its status>, then each change of its delivery_status, signed with Standard Webhooks
(webhook-id msg_<log id>_<status>, the same on every retry). A failed delivery is retried with
backoff for 10 minutes; after a 410 Gone the URL is sent nothing more. Without --secret-file or
TENANT_MESSAGING_WEBHOOK_SECRET, a new secret is made and printed once on stderr. A secret on the
command line (--secret) is refused: ps and shell history show it. Stdout has one line per event
forwarded; the endpoint's answers are counted in the summary at Ctrl-C.

Examples:
  $ tenant-messaging listen --forward-to http://localhost:3000/hooks/messaging
  $ tenant-messaging listen --forward-to http://localhost:3000/hooks --secret-file ./hooks.secret \\
      --events message.delivered,message.read --ndjson`;

/** The end of `demo --help`: the local sandbox without credentials, a real tenant with them. */
export const DEMO_HELP = `
With no credentials, the demo starts the local sandbox in this process (a real HTTP server on
127.0.0.1) and runs the whole story against it: who am I, subscription, sender numbers, a lookup,
a text, an image with upload progress, the wait until read, the latest logs, usage, four messages
paced to two people, and one deliberate error. Nothing to set up; it takes a couple of seconds.
With TENANT_MESSAGING_BASE_URL and TENANT_MESSAGING_API_KEY (or --base-url and --api-key-file)
it runs against that tenant instead, sends real messages, and only to --to (required then).
A sandbox's credentials (a tm_test_ key, a base URL on loopback: \`tenant-messaging sandbox\`)
need no --to: the story runs against that sandbox, sending to its phone that reads.

Examples:
  $ npx tenant-messaging-cli demo
  $ TENANT_MESSAGING_BASE_URL=https://acme.example.com TENANT_MESSAGING_API_KEY=... \\
      npx tenant-messaging-cli demo --to +15551234567`;

/**
 * The end of `send-many --help`: the files it reads and writes, stop signals, and its exit code.
 *
 * @example
 * ```ts
 * command.addHelpText('after', SEND_MANY_HELP)
 * ```
 */
export const SEND_MANY_HELP = `
The file: CSV with a header row, or NDJSON (.ndjson, .jsonl: one object a line). UTF-8, with or
without the byte-order mark Excel's "CSV UTF-8" writes, or UTF-16 with its mark. Columns (keys):
to, one of text, image, voice, document (a path), and optionally from and caption; to_phone,
sender_phone and sender_number_id are read as to and from. A file that is not valid text (a
Latin-1 export, say: the line and byte offset are named), is not valid CSV, or names a field
twice (to,text,to) is refused before any request, with exit code 2.

Failed rows go to <file>.failed.<ext> and rows whose outcome is unknown to <file>.unknown.<ext>,
each as it was, with its reason added as a last column, ${REASON_COLUMN} (NDJSON: a key). Fix the
failed rows and send that file (${REASON_COLUMN} is not read); reconcile the unknown ones first.
Ctrl-C, SIGTERM or SIGHUP: the sends in flight finish and are recorded, nothing new starts, and
the rows not attempted go to <file>.remaining.<ext> (send it to go on: no row is sent twice). A
second signal ends at once, the sends in flight written as unknown, the rest as remaining, and
the summary printed. Each row sent and its log id go to <file>.sent.ndjson as they come; while an
interrupted run's records are there, running the same file again is refused, naming the file to
send to go on (--force sends it whole again); a complete run removes them, and a complete run of
a remaining file removes that file too.
The summary goes to stderr; with --json, it is the one JSON document on stdout, with the log_ids
of the rows sent; with --ndjson, each row sent is a line as it is sent, then the summary.

Exit code, the first that applies: 128 + the signal's number when interrupted (130 Ctrl-C, 143
SIGTERM, 129 SIGHUP); 3 some rows' outcome is unknown; 1 rows refused; 5 sent, but with --track
not every delivery was confirmed (timed out, failed, or could not be read); 0 every row sent (and
tracked). Bad usage (2) is found before any request.

Example:
  $ tenant-messaging send-many --file campaign.csv --from +15550001001 --concurrency 8 --rate 20/s`;
