/** The datastore's SQL and Lua, bundled as text (tsup's loader; vitest.config.ts for the tests). */
declare module '*.sql' {
  const text: string;
  export default text;
}
declare module '*.lua' {
  const text: string;
  export default text;
}
