/**
 * The Workers build's stand-ins for the `node:` modules (src/internal/workerd), as a Worker with no
 * compatibility flag gets them: `process.getBuiltinModule` gives nothing. Each behaves as a runtime
 * without the feature must; with the module there, each is the runtime's own.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

/** The four stand-in modules, loaded afresh with `process.getBuiltinModule` giving `given`. */
async function loaded(given: (id: string) => unknown) {
  vi.resetModules();
  vi.spyOn(process, 'getBuiltinModule').mockImplementation(given as typeof process.getBuiltinModule);
  return {
    stream: await import('../../src/internal/workerd/node-stream.js'),
    fs: await import('../../src/internal/workerd/node-fs.js'),
    path: await import('../../src/internal/workerd/node-path.js'),
    channels: await import('../../src/internal/workerd/node-diagnostics-channel.js'),
  };
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.resetModules();
});

describe('the Workers build where the runtime has no node: module', () => {
  it('Readable: nothing is one, and from() keeps an async iterable as it is', async () => {
    const { stream } = await loaded(() => undefined);
    const body = (async function* () {
      yield new Uint8Array([1]);
    })();
    expect(stream.Readable.from(body)).toBe(body);
    for (const value of [{}, body, new ReadableStream(), new Blob([])])
      expect(value instanceof stream.Readable).toBe(false);
  });

  it('fs: nothing is a ReadStream, and a read of a file is a ValidationError that says what to pass', async () => {
    const { fs } = await loaded(() => undefined);
    expect({ path: '/a' } instanceof fs.ReadStream).toBe(false);
    for (const read of [() => fs.promises.stat('/a'), () => fs.promises.open('/a', 'r')]) {
      const error = await read().catch((e: unknown) => e);
      // Loaded afresh (resetModules), the module's ValidationError is not this file's class: by name.
      expect(error).toMatchObject({ name: 'ValidationError', code: 'validation.params' });
      expect((error as { issues: { message: string }[] }).issues[0]?.message).toMatch(/pass the bytes/);
    }
  });

  it.each([
    ['/tmp/receipt.pdf', 'receipt.pdf'],
    ['C:\\files\\receipt.pdf', 'receipt.pdf'],
    ['receipt.pdf', 'receipt.pdf'],
    ['dir/', ''],
  ])('basename(%j) is %j', async (path, name) => {
    const { path: node } = await loaded(() => undefined);
    expect(node.basename(path)).toBe(name);
  });

  it('channels: no subscribers, a publish goes nowhere, and tracePromise runs the call with its arguments', async () => {
    const { channels } = await loaded(() => undefined);
    const retry = channels.channel('tenant-messaging:retry');
    expect(retry.hasSubscribers).toBe(false);
    expect(() => retry.publish({ attempt: 1 })).not.toThrow();
    const traced = channels.tracingChannel('tenant-messaging:request');
    expect(traced.hasSubscribers).toBe(false);
    const call = vi.fn(async (a: number, b: number) => a + b);
    await expect(traced.tracePromise(call, {}, undefined, 2, 3)).resolves.toBe(5);
    expect(call).toHaveBeenCalledOnce();
  });
});

describe('the Workers build where the runtime has the modules (nodejs_compat)', () => {
  it('each is the runtime’s own', async () => {
    const ids = ['node:stream', 'node:fs', 'node:path', 'node:diagnostics_channel'] as const;
    const real = new Map<string, unknown>(await Promise.all(ids.map(async (id) => [id, await import(id)] as const)));
    const [stream, fs, path, channels] = ids.map((id) => real.get(id)) as [
      typeof import('node:stream'),
      typeof import('node:fs'),
      typeof import('node:path'),
      typeof import('node:diagnostics_channel'),
    ];
    const modules = await loaded((id) => real.get(id));
    expect(modules.stream.Readable).toBe(stream.Readable);
    expect(modules.fs.ReadStream).toBe(fs.ReadStream);
    expect(modules.fs.promises).toBe(fs.promises);
    expect(modules.path.basename).toBe(path.basename);
    expect(modules.channels.channel).toBe(channels.channel);
    expect(modules.channels.tracingChannel).toBe(channels.tracingChannel);
  });
});
