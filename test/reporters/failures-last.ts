/**
 * Names every failure in the last lines of `npm test`: a failed test, a file that failed to load,
 * an unhandled error. vitest's own report lists them higher up, above its summary, where a long
 * log (a CI log that keeps only its end, a terminal that scrolled) loses them.
 */
import type { Reporter, SerializedError, TestModule } from 'vitest/node';

const MAX_LINES = 4;

/** The first lines of an error, indented under the failure they explain. */
function firstLines(error: { message?: string; name?: string } | undefined): string {
  const text = `${error?.name ?? 'Error'}: ${error?.message ?? '(no message)'}`;
  return text
    .split('\n')
    .slice(0, MAX_LINES)
    .map((line) => `    ${line}`)
    .join('\n');
}

export default class FailuresLast implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    const lines: string[] = [];
    for (const module of testModules) {
      const where = `${module.project.name ? `[${module.project.name}] ` : ''}${module.relativeModuleId}`;
      for (const error of module.errors()) lines.push(`FAILED  ${where} (the file itself)\n${firstLines(error)}`);
      for (const test of module.children.allTests('failed')) {
        const result = test.result();
        const error = result.state === 'failed' ? result.errors[0] : undefined;
        lines.push(`FAILED  ${where} > ${test.fullName}\n${firstLines(error)}`);
      }
    }
    for (const error of unhandledErrors) lines.push(`UNHANDLED ERROR\n${firstLines(error)}`);
    if (lines.length === 0) return;
    process.stdout.write(`\n${lines.length} failure(s), named again at the end:\n${lines.join('\n')}\n`);
  }
}
