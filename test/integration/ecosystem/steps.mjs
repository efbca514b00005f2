// The steps of the ecosystem programs (program.mjs, entries.mjs): each step's outcome recorded by
// name, `{ ok: true, value }` or `{ ok: false, error }`, so the test can say which step failed where.
export function stepper() {
  const steps = {};
  const step = async (name, body) => {
    try {
      steps[name] = { ok: true, value: await body() };
    } catch (error) {
      steps[name] = { ok: false, error: `${error?.name}: ${error?.message}`.slice(0, 400) };
    }
  };
  return { steps, step };
}
