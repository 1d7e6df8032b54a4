// @shipyard/snippets: a save, and a search at 100,000 snippets against the same question as a LIKE scan.
import { join } from 'node:path';
import { migrate, openDatabase } from '@shipyard/db';
import { contentHash, headOf, lineCount } from '../../../servers/snippets/src/domain/model.ts';
import { CONFIG, documentParts } from '../../../servers/snippets/src/store/postgres/search.ts';
import { ftsColumns } from '../../../servers/snippets/src/store/sqlite/store.ts';
import { insertRows, openSeedDatabase, type Value } from '../src/postgres.ts';
import { defineBench, type PostgresSeedContext, type SeedContext, type ToolCall } from '../src/scenario.ts';
import { prng, words } from '../src/seed.ts';

/** Words + a language filter, taken in turn: first page of 20 with its total. */
const SEARCHES: ToolCall[] = (
  [
    ['debounce input', 'TypeScript'],
    ['retry request', 'TypeScript'],
    ['parse config', 'Python'],
    ['cache user', 'Go'],
    ['validate token', 'Rust'],
    ['backup files', 'Shell'],
    ['orders customer', 'SQL'],
    ['stream events', 'Python'],
  ] as const
).map(([query, language]) => ({ name: 'search_snippets', arguments: { query, language } }));

let saved = 0;
/** A save of new code each time (a duplicate would be a read): the counter makes each body differ. */
const SAVE: ToolCall = {
  name: 'save_snippet',
  arguments: {
    title: 'Benchmark snippet',
    language: 'ts',
    tags: ['bench'],
    get code() {
      saved += 1;
      return `export const benchValue${saved} = ${saved};\n`;
    },
  },
};

export default defineBench({
  coldStartTarget: 0.6,
  scenarios: [
    { name: '`save_snippet`', calls: [SAVE], target: 3 },
    {
      name: '`search_snippets`, words + language, 100,000 snippets',
      seed: seedSnippets,
      seedPostgres: seedSnippetsPostgres,
      calls: SEARCHES,
      reference: { label: '`LIKE` scan', open: openLikeScan },
      runs: 40,
      target: 1 / 15,
    },
  ],
  throughput: {
    name: '`get_snippet`',
    setup: [SAVE],
    call: ([saved]) => ({
      name: 'get_snippet',
      arguments: {
        id: (saved as { structuredContent: { snippet: { id: string } } }).structuredContent.snippet.id,
      },
    }),
  },
});

const SNIPPETS = 100_000;
const SMOKE_SNIPPETS = 1_000;

const VERBS = words(`parse load save fetch retry debounce throttle validate format render cache sync merge
  split build send read write stream encode decode hash sort filter map group count resolve connect close
  open backup restore compress upload download schedule notify log trace measure check convert normalize
  apply attach bind call clear clone collect compare compile compute configure copy create delete detect
  diff dispatch drain emit enqueue escape evaluate expand export extract flatten flush generate handle
  import index init inject insert inspect install invoke join lock lookup mark migrate mount move observe
  pack patch poll prepare print probe publish push query queue rank read reduce refresh register release
  reload remove rename repair replace report request reset retain rotate route sample scan seed select
  serialize serve shuffle sign skip slice snapshot spawn start stop store submit subscribe swap tag tokenize
  transform trim unlock unpack update upsert verify visit wait walk watch wrap zip`);
const NOUNS = words(`config user token request response file input event order customer session query
  result item record path url header payload message queue job batch cache key value date time list tree
  node graph buffer chunk line row table schema report account address agent alarm archive asset audit
  avatar backend balance bucket bundle button calendar cart certificate channel chart checkout client
  cluster column command comment commit connection container context cookie counter coupon credential
  cursor dashboard database dataset deadline delivery dependency device dialog digest directory document
  domain draft email endpoint entity entry error export feature feed field filter flag folder form frame
  gateway grid handler hook host image index invoice issue item label layout ledger limit link locale
  lock log manifest matrix media member menu metric migration model module monitor namespace network
  note notification offset option package page parser partition password patch payment permission
  pipeline plugin policy pool port post preference price process product profile project promise prompt
  provider proxy range rate receipt region registry release repository resource role rule runner sample
  scope screen script secret segment selector sensor server service setting shard signal snapshot socket
  source span stage state status storage stream subscription summary task team template tenant thread
  ticket timer topic trace transaction upload vector version video viewport volume webhook widget worker`);
const TAGS = words(`http async io cli db testing parsing strings dates auth cache perf utils react node api
  errors logging config security files json csv regex concurrency`);
const LANGUAGES = ['TypeScript', 'Python', 'Go', 'Rust', 'Shell', 'SQL', 'JavaScript', 'Java'] as const;
type Language = (typeof LANGUAGES)[number];

const cap = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * Code in a language's own shape: functions of statements over names made of the snippet's own few verbs
 * and nouns (as real code keeps to its subject), so that a word is in a few percent of the snippets.
 */
function generator(random: () => number) {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  return (language: Language) => {
    const verbs = Array.from({ length: 4 }, () => pick(VERBS));
    const nouns = Array.from({ length: 5 }, () => pick(NOUNS));
    const verb = () => pick(verbs);
    const noun = () => pick(nouns);
    const camel = () => `${verb()}${cap(noun())}`;
    const snake = () => `${verb()}_${noun()}`;
    const lines: Record<Language, (fn: string) => string[]> = {
      TypeScript: (fn) => [
        `export async function ${fn}(${noun()}: string, options: { ${noun()}?: number } = {}): Promise<string[]> {`,
        `  const ${noun()} = await ${camel()}(${noun()});`,
        `  if (!${noun()}) throw new Error('${verb()} ${noun()} failed');`,
        `  for (const ${noun()} of ${camel()}()) ${camel()}(${noun()}, options);`,
        `  return [${noun()}].map((x) => ${camel()}(x));`,
        '}',
      ],
      JavaScript: (fn) => [
        `function ${fn}(${noun()}, ${noun()}) {`,
        `  const ${noun()} = ${camel()}(${noun()});`,
        `  return ${noun()}.filter((x) => ${camel()}(x)).map(${camel()});`,
        '}',
      ],
      Python: (fn) => [
        `def ${fn.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}(${noun()}, ${noun()}=None):`,
        `    """${cap(verb())} the ${noun()} and ${verb()} the ${noun()}."""`,
        `    ${noun()} = ${snake()}(${noun()})`,
        `    for ${noun()} in ${snake()}():`,
        `        ${snake()}(${noun()})`,
        `    return [${snake()}(x) for x in ${noun()}]`,
        '',
      ],
      Go: (fn) => [
        `func ${cap(fn)}(${noun()} string) ([]string, error) {`,
        `\t${noun()}, err := ${camel()}(${noun()})`,
        '\tif err != nil {',
        `\t\treturn nil, fmt.Errorf("${verb()} ${noun()}: %w", err)`,
        '\t}',
        `\treturn ${camel()}(${noun()}), nil`,
        '}',
      ],
      Rust: (fn) => [
        `pub fn ${fn.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}(${noun()}: &str) -> Result<Vec<String>, Error> {`,
        `    let mut ${noun()} = ${snake()}(${noun()})?;`,
        `    for ${noun()} in ${snake()}().iter() {`,
        `        ${noun()}.push(${snake()}(${noun()}));`,
        '    }',
        `    Ok(${noun()})`,
        '}',
      ],
      Shell: (fn) => [
        `${fn.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}() {`,
        `  local ${noun()}="$1"`,
        `  if [ -z "$${noun()}" ]; then echo "${verb()}: missing ${noun()}" >&2; return 1; fi`,
        `  ${verb()} "$${noun()}" | grep -v "${noun()}" > "/tmp/${noun()}.txt"`,
        '}',
      ],
      SQL: () => [
        `SELECT ${noun()}.id, ${noun()}.${noun()}, count(*) AS ${noun()}_count`,
        `FROM ${noun()} JOIN ${noun()} ON ${noun()}.id = ${noun()}.${noun()}_id`,
        `WHERE ${noun()}.${noun()} > now() - interval '${1 + Math.floor(random() * 30)} days'`,
        `GROUP BY ${noun()}.id ORDER BY ${noun()}_count DESC;`,
        '',
      ],
      Java: (fn) => [
        `public static List<String> ${fn}(String ${noun()}) throws IOException {`,
        `    List<String> ${noun()} = ${camel()}(${noun()});`,
        `    for (String ${noun()} : ${camel()}()) { ${camel()}(${noun()}); }`,
        `    return ${noun()};`,
        '}',
      ],
    };
    // 20-400 lines, most of them short, as snippets are.
    const target = 20 + Math.floor(380 * random() ** 4);
    const out: string[] = [];
    while (out.length < target) out.push(...lines[language](camel()));
    const title = `${cap(verbs[0] as string)} ${nouns[0]} ${nouns[1]}`;
    const description = `${title}: ${verbs[1]} the ${nouns[2]} and ${verbs[2]} the ${nouns[3]}.`;
    return { code: out.slice(0, target).join('\n'), title, description };
  };
}

interface SnippetRow {
  n: number;
  id: string;
  title: string;
  language: Language;
  description: string;
  tags: string[];
  worked: number;
  failed: number;
  at: string;
  code: string;
}

/** The seeded snippets, the same every run, for either engine. */
function* snippetRows(smoke: boolean): Generator<SnippetRow> {
  const count = smoke ? SMOKE_SNIPPETS : SNIPPETS;
  const random = prng(7);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const generate = generator(random);
  const start = Date.parse('2024-01-01T00:00:00Z');
  const span = 2 * 365 * 24 * 3600 * 1000;
  for (let n = 1; n <= count; n++) {
    const language = pick(LANGUAGES);
    const { code: body, title, description } = generate(language);
    // The snippet's number in a comment keeps every body distinct, as the content hash requires.
    const code = `${language === 'Python' || language === 'Shell' ? '#' : language === 'SQL' ? '--' : '//'} ${n}\n${body}`;
    const tags = [...new Set([pick(TAGS), pick(TAGS)].slice(0, 1 + Math.floor(random() * 2)))];
    const at = new Date(start + Math.floor((span * n) / count)).toISOString();
    const id = `sn-${n.toString(36).padStart(5, '0')}`;
    const worked = random() < 0.2 ? Math.floor(random() * 5) : 0;
    const failed = random() < 0.1 ? Math.floor(random() * 3) : 0;
    yield { n, id, title, language, description, tags, worked, failed, at, code };
  }
}

/**
 * Snippets in eight languages written straight into the server's tables after its migrations, with their
 * full-text index rows built as the server builds them (store.ts's ftsColumns).
 */
function seedSnippets({ dataDir, root, smoke }: SeedContext): void {
  const database = openDatabase({ server: 'snippets', dataDir });
  try {
    migrate(database, join(root, 'servers/snippets/drizzle'));
    const { sqlite } = database;
    const insert = sqlite.prepare(
      `INSERT INTO snippets (n, id, title, language, description, tags, source, hash, version, worked, failed,
         created_at, updated_at, head, lines, code) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, 1, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertTag = sqlite.prepare('INSERT INTO snippet_tags (tag, n) VALUES (?, ?)');
    const insertFts = sqlite.prepare(
      'INSERT INTO snippets_fts (rowid, title, tags, description, code, words) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const write = sqlite.transaction((batch: SnippetRow[]) => {
      for (const r of batch) {
        insert.run(
          r.n,
          r.id,
          r.title,
          r.language,
          r.description,
          JSON.stringify(r.tags),
          contentHash(r.code),
          r.worked,
          r.failed,
          r.at,
          r.at,
          headOf(r.code),
          lineCount(r.code),
          r.code,
        );
        for (const tag of r.tags) insertTag.run(tag, r.n);
        insertFts.run(r.n, ...ftsColumns({ ...r, source: null }));
      }
    });
    let batch: SnippetRow[] = [];
    for (const row of snippetRows(smoke)) {
      batch.push(row);
      if (batch.length === 5_000) {
        write(batch);
        batch = [];
      }
    }
    write(batch);
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    database.close();
  }
}

/**
 * The same snippets in PostgreSQL, a batch of rows per statement, with the stored search document built
 * from the same parts as the server builds it (store/postgres/search.ts).
 */
async function seedSnippetsPostgres({ databaseUrl, root, smoke }: PostgresSeedContext): Promise<void> {
  const database = await openSeedDatabase({ databaseUrl, root, server: 'snippets' });
  try {
    const tags: Value[][] = [];
    const rows = function* (): Generator<Value[]> {
      for (const r of snippetRows(smoke)) {
        for (const tag of r.tags) tags.push([tag, r.n]);
        const { a, b, d } = documentParts({ ...r, source: null });
        const at = r.at;
        yield [
          r.n,
          r.id,
          r.title,
          r.language,
          r.description,
          JSON.stringify(r.tags),
          contentHash(r.code),
          r.worked,
          r.failed,
          at,
          at,
          headOf(r.code),
          lineCount(r.code),
          r.code,
          a,
          b,
          d,
        ];
      }
    };
    await insertRows(database, {
      table: 'snippets',
      inputs: ['n', 'id', 'title', 'language', 'description', 'tags', 'hash', 'worked', 'failed'].concat([
        'created_at',
        'updated_at',
        'head',
        'lines',
        'code',
        'doc_a',
        'doc_b',
        'doc_d',
      ]),
      rows: rows(),
      computed: {
        search:
          `setweight(to_tsvector('${CONFIG}', u.doc_a), 'A') || setweight(to_tsvector('${CONFIG}', u.doc_b), 'B') || ` +
          `setweight(to_tsvector('${CONFIG}', u.doc_d), 'D')`,
      },
    });
    await insertRows(database, { table: 'snippet_tags', inputs: ['tag', 'n'], rows: tags });
  } finally {
    await database.close();
  }
}

/**
 * The search without an index: every word as LIKE '%word%' over title, tags, description and code, the
 * same language filter, newest first, a page of 20 and the total, on its own connection to the server's file.
 */
function openLikeScan({ dataDir }: SeedContext) {
  const database = openDatabase({ server: 'snippets', dataDir, readonly: true });
  const { sqlite } = database;
  return {
    run(call: ToolCall) {
      const input = call.arguments as { query: string; language: string };
      const terms = input.query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
      const where = terms.map(
        () =>
          "(title LIKE ? ESCAPE '\\' OR tags LIKE ? ESCAPE '\\' OR description LIKE ? ESCAPE '\\' OR code LIKE ? ESCAPE '\\')",
      );
      const params: string[] = terms.flatMap((w) => Array(4).fill(`%${w}%`) as string[]);
      where.push('language = ?');
      params.push(input.language);
      const filter = `WHERE ${where.join(' AND ')}`;
      const rows = sqlite
        .prepare(
          `SELECT id, title, language, tags, description, head, lines, version, worked, failed, updated_at
           FROM snippets ${filter} ORDER BY updated_at DESC, n DESC LIMIT 20`,
        )
        .all(...params);
      const total =
        rows.length < 20
          ? rows.length
          : sqlite
              .prepare(`SELECT count(*) FROM snippets ${filter}`)
              .pluck()
              .get(...params);
      return { rows, total };
    },
    close: () => database.close(),
  };
}
