/**
 * A DevTools protocol client for headless Chromium over `--remote-debugging-pipe` (no port to
 * discover, no WebSocket), and a tab that loads a page and reads what it drew: test/integration/docs-site.test.ts.
 */
import type { Readable, Writable } from 'node:stream';

/** What a page held once loaded. */
export interface PageVisit {
  /** Console errors, uncaught exceptions and failed loads (Chromium's log). */
  errors: string[];
  /** Every `a[href]` once the page's scripts have drawn it (the side navigation included). */
  links: string[];
  /** Every `id` and `name` on the page: the anchors a link may point at. */
  ids: Set<string>;
}

type Message = { id?: number; method?: string; params?: Record<string, unknown>; sessionId?: string } & {
  result?: unknown;
  error?: { message: string };
};

/** A DevTools protocol client over Chromium's pipe: JSON messages, each ended by a NUL byte. */
export class Cdp {
  private next = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly listeners = new Set<(message: Message) => void>();

  constructor(
    private readonly input: Writable,
    output: Readable,
  ) {
    let buffered = '';
    output.setEncoding('utf8');
    output.on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\0'); end !== -1; end = buffered.indexOf('\0')) {
        const message = JSON.parse(buffered.slice(0, end)) as Message;
        buffered = buffered.slice(end + 1);
        const waiter = message.id === undefined ? undefined : this.pending.get(message.id);
        if (waiter && message.id !== undefined) {
          this.pending.delete(message.id);
          if (message.error) waiter.reject(new Error(message.error.message));
          else waiter.resolve(message.result);
        }
        for (const listener of this.listeners) listener(message);
      }
    });
  }

  send<T = unknown>(method: string, params: object = {}, sessionId?: string): Promise<T> {
    const id = this.next++;
    this.input.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
    });
  }

  on(listener: (message: Message) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** One tab, attached in flat mode: its events carry its sessionId. */
export class Tab {
  private errors: string[] = [];
  private loaded: (() => void) | undefined;
  private readonly off: () => void;

  private constructor(
    private readonly cdp: Cdp,
    private readonly targetId: string,
    private readonly session: string,
  ) {
    this.off = cdp.on((message) => {
      if (message.sessionId !== session) return;
      const params = message.params ?? {};
      if (message.method === 'Page.loadEventFired') this.loaded?.();
      if (message.method === 'Runtime.exceptionThrown') {
        const details = params['exceptionDetails'] as { text: string; exception?: { description?: string } };
        this.errors.push(`uncaught: ${details.exception?.description ?? details.text}`);
      }
      if (message.method === 'Runtime.consoleAPICalled' && ['error', 'assert'].includes(params['type'] as string)) {
        const args = params['args'] as { value?: unknown; description?: string }[];
        this.errors.push(`console.${params['type']}: ${args.map((a) => a.description ?? String(a.value)).join(' ')}`);
      }
      if (message.method === 'Log.entryAdded') {
        const entry = params['entry'] as { level: string; text: string; url?: string };
        if (entry.level === 'error') this.errors.push(`${entry.text} ${entry.url ?? ''}`.trim());
      }
    });
  }

  static async open(cdp: Cdp): Promise<Tab> {
    const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', {
      url: 'about:blank',
      newWindow: true,
    });
    const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    const tab = new Tab(cdp, targetId, sessionId);
    await Promise.all(['Page.enable', 'Runtime.enable', 'Log.enable'].map((method) => tab.send(method)));
    await tab.send('Emulation.setDeviceMetricsOverride', {
      width: 1280,
      height: 900,
      deviceScaleFactor: 1,
      mobile: false,
    });
    return tab;
  }

  send<T = unknown>(method: string, params: object = {}): Promise<T> {
    return this.cdp.send<T>(method, params, this.session);
  }

  async evaluate<T>(expression: string): Promise<T> {
    const { result, exceptionDetails } = await this.send<{
      result: { value: T };
      exceptionDetails?: { text: string };
    }>('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
    if (exceptionDetails) throw new Error(`in the page: ${exceptionDetails.text}`);
    return result.value;
  }

  /** Loads `url`, waits until TypeDoc's scripts have drawn the navigation, then reads the page. */
  async visit(url: string): Promise<PageVisit> {
    this.errors = [];
    const loaded = new Promise<void>((resolve) => {
      this.loaded = resolve;
    });
    const { errorText } = await this.send<{ errorText?: string }>('Page.navigate', { url });
    if (errorText) return { errors: [`navigation failed: ${errorText}`], links: [], ids: new Set() };
    await loaded;
    const read = await this.evaluate<{ links: string[]; ids: string[] }>(`(async () => {
      // The body stays hidden until TypeDoc's script has drawn the navigation (showPage()).
      if (document.body.style.display) {
        await new Promise((resolve) => {
          const observer = new MutationObserver(() => {
            if (!document.body.style.display) observer.disconnect(), resolve();
          });
          observer.observe(document.body, { attributes: true, attributeFilter: ['style'] });
        });
      }
      return {
        links: [...document.querySelectorAll('a[href]')].map((a) => a.href),
        ids: [...document.querySelectorAll('[id], a[name]')].map((e) => e.id || e.getAttribute('name')),
      };
    })()`);
    return { errors: [...this.errors], links: read.links, ids: new Set(read.ids) };
  }

  async screenshot(url: string): Promise<Buffer> {
    await this.visit(url);
    // TypeDoc shows the page once its script runs (the body is hidden until then), and scrolls to the hash.
    await this.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
    const { data } = await this.send<{ data: string }>('Page.captureScreenshot', { format: 'png' });
    return Buffer.from(data, 'base64');
  }

  async close(): Promise<void> {
    this.off();
    await this.cdp.send('Target.closeTarget', { targetId: this.targetId });
  }
}
