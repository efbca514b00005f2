/**
 * What `make` builds from the current provider, built again only when `provider()` returns
 * another provider. Used for the global providers, which are read at each recording rather than
 * once in `instrument()`: the global meter provider is no proxy, and the application may load
 * another copy of `@opentelemetry/api` (its ES module build next to the CommonJS build this entry
 * loads) whose proxy tracer provider this copy's would never see the SDK's provider through. The
 * global registry both copies share is read at each call, so both see the provider registered
 * last, even after `instrument()`.
 */
export function perProvider<Provider, Made>(provider: () => Provider, make: (provider: Provider) => Made): () => Made {
  let current: { provider: Provider; made: Made } | undefined;
  return () => {
    const now = provider();
    if (current === undefined || current.provider !== now) current = { provider: now, made: make(now) };
    return current.made;
  };
}
