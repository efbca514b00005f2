// `npm run docs:api`: docs/api.md, the API reference in one page, from the types and their TSDoc
// (TypeDoc's model of the public entries): for each entry of package.json's `exports`, its
// classes, functions and interfaces with methods in one line each, then a table for every options
// object a public constructor, function or method takes (`| Option | Type | Default |
// Description |`: the `@default` tag, the summary's first sentence). It also fills every marked
// table in README.md and docs/*.md:
//
//   <!-- options: ClientOptions -->
//   (generated: | Option | Default | Meaning |)
//   <!-- /options -->
//
// `--json` writes nothing and prints `{ files: { path: content }, gaps: [...] }`: what the files
// must hold, and the options without a summary or a `@default` (test/integration/api-reference.test.ts).
// Without it, the files are written, and the gaps printed with exit code 1.
//
// What costs the time is TypeScript reading the program. TypeDoc needs only our own sources here
// (a type from a dependency is shown by its name, as written), so the program leaves out every
// dependency's declarations (`noResolve`), @types/node and the DOM library: about 2 s of CPU in
// all instead of 3. The reference site (`npm run docs`) reads the whole program.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { entryNames, td, typedocApp } from './typedoc-app.mjs';

const K = td.ReflectionKind;
const API_MD = 'docs/api.md';
/** Where marked tables may be: the README and the guides (never docs/api.md, which is all generated). */
const MARKED = ['README.md', ...readdirSync('docs').map((name) => `docs/${name}`)].filter(
  (path) => path.endsWith('.md') && path !== API_MD,
);
const MARKER = /^<!-- options: ([\w$]+) -->$/;
const END_MARKER = '<!-- /options -->';
/** How deep nested option objects are expanded into rows of their own (`a.b.c`). */
const MAX_DEPTH = 3;

// --- The model: entries, their classes and functions, the options objects they take ---

/**
 * docs/api.md, and every options type by name (for the marked tables): `{ markdown, options }`.
 */
function reference(project) {
  const receivers = receiverNames(project);
  /** Options tables in order of first use: key -> { title, anchor, type or members, usedBy[] }. */
  const tables = new Map();
  const slugs = new Slugs();
  // In the order of package.json's exports.
  const order = [...entryNames().values()];
  const entries = [...(project.children ?? [])].sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  const sections = [];

  for (const entry of entries) {
    const anchor = slugs.take(entry.name);
    const classes = [];
    const errors = [];
    const interfaces = [];
    const functions = [];
    const reexports = [];
    for (const child of entry.children ?? []) {
      if (child.kindOf(K.Reference)) reexports.push(child);
      else if (child.kindOf(K.Class)) (isError(child) ? errors : classes).push(child);
      else if (child.kindOf(K.Interface) && methodsOf(child).length > 0) interfaces.push(child);
      else if (child.kindOf(K.Function)) functions.push(child);
    }
    // The entry's own doc comment (`@packageDocumentation`), without its leading `name: `.
    const about = firstSentence(entry.comment)?.replace(`${entry.name}: `, '');
    const lines = about ? [`${about[0].toUpperCase()}${about.slice(1)}`, ''] : [];
    const optionsOf = (call, signature) => {
      const links = [];
      for (const parameter of signature.parameters ?? []) {
        const table = optionsTable(parameter, signature, call, entry, tables);
        if (!table) continue;
        table.usedBy.push(`\`${call}\``);
        links.push(table);
      }
      return links;
    };
    const listCallable = (owner, indent) => {
      const listed = new Set();
      const bases = new Set();
      for (const member of membersToList(owner)) {
        const base = member.inheritedFrom?.reflection?.parent;
        if (base && listedOwner(base)) {
          bases.add(base.name);
          continue;
        }
        for (const signature of member.signatures ?? []) {
          const call = callText(owner, member, signature, receivers);
          if (listed.has(call)) continue; // overloads that differ only in their types
          listed.add(call);
          const skipOptions = member.kindOf(K.Constructor) && isError(owner);
          const links = skipOptions ? [] : optionsOf(call, signature);
          lines.push(`${indent}- \`${call}\`${listText(signature.comment ?? member.comment, links)}`);
        }
      }
      for (const base of bases) lines.push(`${indent}- and every method of \`${base}\``);
    };

    const group = (title, items, each) => {
      if (items.length === 0) return;
      lines.push(`### ${title}`, '');
      for (const item of items) each(item);
      lines.push('');
    };
    const withMethods = (owner) => {
      lines.push(`- \`${owner.name}\`${heldAs(owner, receivers)}${listText(owner.comment, [])}`);
      listCallable(owner, '  ');
    };
    group('Classes', classes, withMethods);
    group('Functions', functions, (fn) => {
      for (const signature of fn.signatures ?? []) {
        const call = callText(undefined, fn, signature, receivers);
        lines.push(`- \`${call}\`${listText(signature.comment ?? fn.comment, optionsOf(call, signature))}`);
      }
    });
    group('Interfaces with methods', interfaces, withMethods);
    group('Errors', errors, (error) => lines.push(`- \`${error.name}\`${listText(error.comment, [])}`));
    if (reexports.length > 0) {
      const names = reexports.map((ref) => {
        const target = ref.getTargetReflectionDeep();
        const from = entryOf(target);
        return from ? `\`${ref.name}\` (from [${from.name}](#${slugs.peek(from.name)}))` : `\`${ref.name}\``;
      });
      lines.push(`Also exported here: ${names.join(', ')}.`, '');
    }
    sections.push({ entry, anchor, lines });
  }

  // The options tables, under the entry that exports each type (or that takes an inline object).
  const options = new Map();
  for (const table of tables.values()) {
    // An options type that extends another with a table of its own shows only what it adds.
    const base = table.target?.extendedTypes
      ?.map((type) => (type.type === 'reference' ? type.reflection : undefined))
      .find((reflection) => reflection && tables.has(reflection.id));
    if (base) {
      table.base = tables.get(base.id);
      table.members = table.members.filter((member) => member.inheritedFrom?.reflection?.parent !== base);
    }
    table.rows = rowsOf(table);
    if (table.named) options.set(table.title, table);
  }
  for (const section of sections) {
    const own = [...tables.values()].filter((table) => table.entry === section.entry);
    if (own.length === 0) continue;
    section.lines.push('### Options', '');
    for (const table of own) {
      table.anchor = slugs.take(table.title);
      section.lines.push(`#### ${table.title}`, '');
      const about = firstSentence(table.comment);
      section.lines.push(`${about ? `${about} ` : ''}Taken by ${table.usedBy.join(', ')}.`, '');
      section.lines.push(...fullTable(table.rows), '');
      if (table.base) section.lines.push(`And every option of \0table:${table.base.id}\0.`, '');
    }
  }
  // Links to tables are resolved once every anchor is known.
  const markdown = [
    '# API reference',
    '',
    'What this page is for: every public entry of the package at a glance, its classes, functions',
    'and interfaces with methods in one line each, and a table for every options object they take:',
    "each option's type, default and purpose. It is generated from the types and their doc comments",
    '(`npm run docs:api`), so it cannot drift from the code; every type in full is in the reference',
    'site (`npm run docs`). Back to the [README](../README.md).',
    '',
    ...sections.map(({ entry, anchor }) => `- [${entry.name}](#${anchor})`),
    '',
    ...sections.flatMap(({ entry, lines }) => [`## ${entry.name}`, '', ...lines]),
  ]
    .join('\n')
    .replace(/\0table:(\d+)\0/g, (_, id) => {
      const table = [...tables.values()].find((t) => t.id === Number(id));
      return `[${table.title}](#${table.anchor})`;
    })
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\n*$/, '\n');
  return { markdown, options };
}

/** The options table a parameter calls for, registered in `tables` on first use; else undefined. */
function optionsTable(parameter, signature, call, entry, tables) {
  const type = withoutUndefined(parameter.type);
  if (type?.type === 'reference' && type.reflection && /Options$/.test(type.name)) {
    const target = type.reflection;
    if (!membersOf(target)) return undefined;
    let table = tables.get(target.id);
    if (!table) {
      table = {
        id: tables.size,
        title: target.name,
        named: true,
        entry: entryOf(target) ?? entry,
        comment: target.comment,
        target,
        owner: target.name,
        members: membersOf(target),
        usedBy: [],
      };
      tables.set(target.id, table);
    }
    return table;
  }
  if (type?.type === 'reflection' && membersOf(type.declaration)) {
    const name = call.replace(/\(.*$/, '');
    const table = {
      id: tables.size,
      title: `${name} options`,
      named: false,
      entry,
      comment: undefined,
      owner: `${name}(${parameter.name === '__namedParameters' ? 'options' : parameter.name})`,
      members: membersOf(type.declaration),
      usedBy: [],
    };
    tables.set(`${signature.id}:${parameter.id}`, table);
    return table;
  }
  return undefined;
}

/** The properties of an object type (an interface, or an alias or literal of one), or undefined. */
function membersOf(reflection) {
  let target = reflection;
  if (target?.kindOf(K.TypeAlias) && target.type?.type === 'reflection') target = target.type.declaration;
  if (!target || target.kindOf(K.Class)) return undefined;
  if (!target.kindOf(K.Interface | K.TypeLiteral)) return undefined;
  if (target.signatures?.length || target.indexSignatures?.length) return undefined;
  // Only properties: an interface with methods (a `Logger`, a pool) is an object you give, not options.
  const members = target.children ?? [];
  if (members.length === 0 || members.some((member) => !member.kindOf(K.Property))) return undefined;
  return [...members].sort(bySource);
}

/** Base members first (an interface that extends another), then each in declaration order. */
function bySource(a, b) {
  const rank = (member) => (member.inheritedFrom ? 0 : 1);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  const sa = a.sources?.[0];
  const sb = b.sources?.[0];
  return (sa?.fileName ?? '').localeCompare(sb?.fileName ?? '') || (sa?.line ?? 0) - (sb?.line ?? 0);
}

/** The rows of a table: each option, and under an option object, its own options (`a.b`). */
function rowsOf(table) {
  const rows = [];
  const walk = (members, prefix, owner, depth, seen) => {
    for (const member of members) {
      const name = `${prefix}${member.name}`;
      const type = withoutUndefined(member.type);
      const comment = member.comment ?? member.signatures?.[0]?.comment;
      const row = {
        name,
        type: typeText(member, type),
        required: !member.flags.isOptional,
        default: defaultText(comment),
        description: firstSentence(comment),
      };
      rows.push(row);
      const where = `${owner}.${name}`;
      if (!row.description) gaps.push(`${where}: no summary`);
      if (!row.required && row.default === undefined) gaps.push(`${where}: optional, with no @default`);
      if (row.required && row.default !== undefined) gaps.push(`${where}: required, yet a @default`);
      const nested = nestedOptions(type);
      if (nested && depth < MAX_DEPTH && !seen.has(nested.target.id)) {
        walk(
          nested.members,
          `${name}${nested.array ? '[]' : ''}.`,
          owner,
          depth + 1,
          new Set([...seen, nested.target.id]),
        );
      }
    }
  };
  walk(table.members, '', table.owner, 1, new Set());
  return rows;
}

/**
 * An option whose value is itself an options object (one of our interfaces or literals, or an
 * array of them): its members get rows of their own. Classes, unions and dependencies' types don't.
 */
function nestedOptions(type) {
  let array = false;
  let inner = type;
  if (inner?.type === 'typeOperator' && inner.operator === 'readonly') inner = inner.target;
  if (inner?.type === 'array') {
    array = true;
    inner = inner.elementType;
  }
  const target =
    inner?.type === 'reference' ? inner.reflection : inner?.type === 'reflection' ? inner.declaration : undefined;
  const members = target && membersOf(target);
  return members ? { target, members, array } : undefined;
}

// --- Names, calls and summaries ---

/**
 * How code reaches each class's or interface's instance: `client` for `MessagingClient`, `queue`
 * for `MessagingQueue`, `client.messages` for what `MessagingClient#messages` holds (the first
 * class or interface with methods that holds one in a property of its own).
 */
function receiverNames(project) {
  const owners = project.getReflectionsByKind(K.Class | K.Interface);
  const receivers = new Map(owners.map((reflection) => [reflection.id, lowerCamel(reflection.name)]));
  const held = new Set();
  for (const owner of owners.filter(listedOwner)) {
    for (const property of owner.children ?? []) {
      const type = property.kindOf(K.Property) ? property.type : undefined;
      if (type?.type !== 'reference' || !type.reflection || property.flags.isStatic || property.inheritedFrom) continue;
      if (held.has(type.reflection.id)) continue;
      held.add(type.reflection.id);
      receivers.set(type.reflection.id, `${receivers.get(owner.id)}.${property.name}`);
    }
  }
  return receivers;
}

/** ` (\`sandbox.faults\`)` for what a property holds, unless its summary says so first. */
function heldAs(owner, receivers) {
  const receiver = receivers.get(owner.id);
  const said = firstSentence(owner.comment)?.startsWith(`\`${receiver}\``);
  return receiver.includes('.') && !said ? ` (\`${receiver}\`)` : '';
}

/** `MessagingClient` -> `client`, `APIPromise` -> `apiPromise`, `WebhookRelay` -> `webhookRelay`. */
function lowerCamel(name) {
  const bare = name.replace(/^Messaging(?=[A-Z])/, '');
  return bare.replace(/^[A-Z]+(?=[A-Z][a-z]|$)|^[A-Z]/, (head) => head.toLowerCase());
}

/** `client.waitForDelivery(id, options?)`, `new MessagingClient(options?)`, `startSandbox(options?)`. */
function callText(owner, member, signature, receivers) {
  const parameters = (signature.parameters ?? []).map((parameter) => {
    const name = parameter.name === '__namedParameters' ? 'options' : parameter.name;
    const rest = parameter.flags.isRest ? '...' : '';
    const optional = parameter.flags.isOptional || parameter.defaultValue !== undefined ? '?' : '';
    return `${rest}${name}${optional}`;
  });
  const args = `(${parameters.join(', ')})`;
  if (!owner) return `${member.name}${args}`;
  if (member.kindOf(K.Constructor)) return `new ${owner.name}${args}`;
  if (member.flags.isStatic) return `${owner.name}.${member.name}${args}`;
  return `${receivers.get(owner.id)}.${member.name}${args}`;
}

/** The constructor and the public methods of a class or interface (not `[Symbol.asyncIterator]`). */
function membersToList(owner) {
  return (owner.children ?? []).filter(
    (member) => member.kindOf(K.Constructor | K.Method) && !member.name.startsWith('['),
  );
}

/** A class, or an interface with methods: what the lists show with its methods. */
function listedOwner(reflection) {
  return reflection.kindOf(K.Class) || (reflection.kindOf(K.Interface) && methodsOf(reflection).length > 0);
}

function methodsOf(reflection) {
  return (reflection.children ?? []).filter((member) => member.kindOf(K.Method));
}

function isError(cls) {
  for (const type of cls.extendedTypes ?? []) {
    if (type.type !== 'reference') continue;
    if (type.name === 'Error') return true;
    if (type.reflection?.kindOf(K.Class) && isError(type.reflection)) return true;
  }
  return false;
}

/** The entry (module) a reflection is declared in. */
function entryOf(reflection) {
  let at = reflection;
  while (at && !at.kindOf(K.Module)) at = at.parent;
  return at;
}

/** `: First sentence. Options: [X](#x).` for a list line. */
function listText(comment, tables) {
  const parts = [];
  const sentence = firstSentence(comment);
  if (sentence) parts.push(sentence);
  if (tables.length > 0) parts.push(`Options: ${tables.map((table) => `\0table:${table.id}\0`).join(', ')}.`);
  return parts.length > 0 ? `: ${parts.join(' ')}` : '';
}

/** The summary's first sentence, on one line, as Markdown; undefined when there is no summary. */
function firstSentence(comment) {
  const text = markdownOf(comment?.summary ?? []);
  if (!text) return undefined;
  // The end of a sentence: a full stop (outside code) before a line break, a capital, or the end.
  let inCode = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '`') inCode = !inCode;
    if (inCode || text[i] !== '.') continue;
    const before = text.slice(Math.max(0, i - 4), i + 1);
    if (/\b(e\.g|i\.e|etc|vs)\.$/.test(before)) continue;
    const after = text.slice(i + 1);
    if (after === '' || /^\s*\n/.test(after) || /^\s+[A-Z`(]/.test(after)) return oneLine(text.slice(0, i + 1));
  }
  return oneLine(text);
}

/** Display parts as Markdown: inline code kept, `{@link X}` as `X`. */
function markdownOf(parts) {
  return parts
    .map((part) => {
      if (part.kind === 'inline-tag') return `\`${part.text}\``;
      return part.text;
    })
    .join('')
    .trim();
}

function oneLine(text) {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * The `@default` tag as a table shows it: a value in code (`30000`, `'delivered'`,
 * `{ adaptive: true }`, `process.env.X`), words as written; `undefined` alone is "—".
 */
function defaultText(comment) {
  const tag = comment?.blockTags?.find((t) => t.tag === '@default' || t.tag === '@defaultValue');
  if (!tag) return undefined;
  // TypeDoc hands a tag without inline code over as one code block (jsDocCompatibility.defaultTag).
  const only = tag.content.length === 1 ? tag.content[0] : undefined;
  const block = only?.kind === 'code' && /^```\w*\n([\s\S]*)\n```$/.exec(only.text);
  const raw = oneLine(block ? block[1] : markdownOf(tag.content));
  if (raw === '' || raw === 'undefined') return '—';
  return codeLiterals(raw);
}

const LITERAL = String.raw`(?:-?[\d_.]+|'[^'\s]*'|"[^"\s]*"|true|false|null|undefined)`;
const PATH = String.raw`(?:[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?)`;

/** Puts code-like parts of a default in backticks: the leading value, and quoted strings. */
function codeLiterals(text) {
  const lead = leadingValue(text);
  const rest = text.slice(lead.length);
  const head = lead ? `\`${lead}\`` : '';
  // Quoted strings without spaces elsewhere, outside existing code spans.
  const tail = rest
    .split(/(`[^`]*`)/)
    .map((piece, i) => (i % 2 === 1 ? piece : piece.replace(/(^|[\s(])('[^'\s]+')(?=$|[\s),.;:])/g, '$1`$2`')))
    .join('');
  return head + tail;
}

/** `{ adaptive: true } (no fixed rate)` -> `{ adaptive: true }`; `86400 (1 day)` -> `86400`; prose -> ''. */
function leadingValue(text) {
  if (text.startsWith('`')) return '';
  if (text[0] === '{' || text[0] === '[') {
    const close = { '{': '}', '[': ']' }[text[0]];
    let depth = 0;
    for (let i = 0; i < text.length; i++) {
      if (text[i] === text[0]) depth++;
      if (text[i] === close && --depth === 0) return text.slice(0, i + 1);
    }
    return '';
  }
  const literal = new RegExp(`^${LITERAL}(?=$|[\\s,:;)])`).exec(text);
  if (literal) return literal[0];
  // A name or a path (`console`, `process.env.X`, `RETENTION_DEFAULTS`, `new Date()`), when it is
  // the whole default or clearly code (a dot, a call, a capital or an underscore in it).
  const path = new RegExp(`^(?:new )?${PATH}(?=$|[\\s,:;)])`).exec(text);
  if (path && (path[0] === text || /[.()_A-Z]/.test(path[0].replace(/^new /, '')))) return path[0];
  return '';
}

/**
 * The option's type as its declaration writes it (what TypeDoc would print instead is the
 * checker's reordered view, and a dependency's type left out of the program would be `any`), `|
 * undefined` left out: the Default column says whether it is optional. TypeDoc's when the source
 * has comments inside (an inline object type) or there is no declaration.
 */
function typeText(member, type) {
  const written = writtenTypes.get(member.id);
  if (written === undefined || /\/[/*]/.test(written)) return type?.toString() ?? '';
  const kept = splitTopLevel(oneLine(written), '|').filter((part) => part !== 'undefined');
  const text = kept.join(' | ');
  return kept.length === 1 && wrapped(text) ? text.slice(1, -1) : text;
}

/** `a | (b | c) | d` -> [a, (b | c), d]: split on a separator outside brackets and strings. */
function splitTopLevel(text, separator) {
  const parts = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if ('([{<'.includes(c)) depth++;
    else if (')]}>'.includes(c) && text[i - 1] !== '=') depth--;
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter((part) => part !== '');
}

/** `(x: number) => void` wrapped in parentheses of its own: `((x: number) => void)`. */
function wrapped(text) {
  if (!text.startsWith('(') || !text.endsWith(')')) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    if (text[i] === ')' && --depth === 0) return i === text.length - 1;
  }
  return false;
}

function withoutUndefined(type) {
  if (type?.type !== 'union') return type;
  const kept = type.types.filter((t) => !(t.type === 'intrinsic' && t.name === 'undefined'));
  if (kept.length === type.types.length) return type;
  return kept.length === 1 ? kept[0] : new td.UnionType(kept);
}

// --- Markdown ---

/** A cell's text: one line, and no `|` that would end the cell. */
function cell(text) {
  return oneLine(text).replace(/\|/g, '\\|');
}

function defaultCell(row) {
  return row.required ? 'required' : (row.default ?? '—');
}

/** docs/api.md's table: | Option | Type | Default | Description |. */
function fullTable(rows) {
  return [
    '| Option | Type | Default | Description |',
    '|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| \`${row.name}\` | \`${cell(row.type)}\` | ${cell(defaultCell(row))} | ${cell(row.description ?? '')} |`,
    ),
  ];
}

/** The README's and the guides' shorter table: | Option | Default | Meaning |. */
function shortTable(rows) {
  return [
    '| Option | Default | Meaning |',
    '|---|---|---|',
    ...rows.map((row) => `| \`${row.name}\` | ${cell(defaultCell(row))} | ${cell(row.description ?? '')} |`),
  ];
}

/** Replaces what stands between each `<!-- options: Name -->` and `<!-- /options -->` in a page. */
function fillMarkers(path, text, options) {
  const lines = text.split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const open = MARKER.exec(lines[i]);
    out.push(lines[i]);
    if (!open) continue;
    const end = lines.indexOf(END_MARKER, i + 1);
    const table = options.get(open[1]);
    if (end === -1) fail(`${path}:${i + 1}: ${lines[i]} has no ${END_MARKER} after it`);
    if (!table) fail(`${path}:${i + 1}: no options object named ${open[1]} (known: ${[...options.keys()].join(', ')})`);
    out.push('', ...shortTable(table.rows), '');
    if (table.base) {
      const api = path.startsWith('docs/') ? 'api.md' : API_MD;
      out.push(`And every option of [${table.base.title}](${api}#${table.base.anchor}).`, '');
    }
    out.push(END_MARKER);
    i = end;
  }
  return out.join('\n');
}

function fail(message) {
  console.error(message);
  process.exit(1);
}

/** GitHub's heading anchors (TypeDoc's are the same for headings without inline code). */
class Slugs {
  #seen = new Map();
  peek(heading) {
    return heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
  }
  take(heading) {
    const base = this.peek(heading);
    const count = this.#seen.get(base) ?? 0;
    this.#seen.set(base, count + 1);
    return count === 0 ? base : `${base}-${count}`;
  }
}

// --- The run (last: the functions and classes above must be defined) ---

const app = await typedocApp({
  options: { logLevel: 'Error', disableGit: true, sourceLinkTemplate: '{path}' },
});
const compilerOptions = app.options.getCompilerOptions(app.logger);
app.options.setCompilerOptions(
  app.options.getFileNames().filter((file) => !file.includes('/packages/')),
  {
    ...compilerOptions,
    noResolve: true,
    types: [],
    lib: compilerOptions.lib?.filter((lib) => !/dom/i.test(lib)),
  },
  [],
);
/** Each property's type annotation, as written in its declaration (see `typeText`). */
const writtenTypes = new Map();
app.converter.on(td.Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
  if (!reflection.kindOf(K.Property)) return;
  const node = context.getSymbolFromReflection(reflection)?.declarations?.[0];
  if (node?.type) writtenTypes.set(reflection.id, node.type.getText());
});
const project = await app.convert();
if (!project) process.exit(3);

const gaps = [];
const api = reference(project);
const files = { [API_MD]: api.markdown };
for (const path of MARKED) {
  const text = readFileSync(path, 'utf8');
  const filled = fillMarkers(path, text, api.options);
  if (filled !== text || text.includes('<!-- options:')) files[path] = filled;
}

if (process.argv.includes('--json')) {
  process.stdout.write(JSON.stringify({ files, gaps }));
} else {
  for (const [path, content] of Object.entries(files)) {
    if (existsSync(path) && readFileSync(path, 'utf8') === content) continue;
    writeFileSync(path, content);
    console.log(`wrote ${path}`);
  }
  if (gaps.length > 0) {
    console.error(`Options without a summary or a @default (add them to the doc comments):\n- ${gaps.join('\n- ')}`);
    process.exit(1);
  }
}
