// The one Node API the Worker uses (through nodejs_compat), typed here rather than pulling all
// of @types/node into the Worker's globals.
declare module "node:async_hooks" {
  export class AsyncLocalStorage<T> {
    getStore(): T | undefined;
    run<R>(store: T, fn: () => R): R;
  }
}
