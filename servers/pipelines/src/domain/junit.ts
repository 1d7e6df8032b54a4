// JUnit XML (Jest, pytest, Maven Surefire, go-junit-report, …) to plain test results.
import { InvalidInput } from '@shipyard/core';
import { load } from '../load.js';

export type TestStatus = 'passed' | 'failed' | 'skipped';

export interface TestResult {
  suite: string;
  name: string;
  status: TestStatus;
  duration_ms: number;
  /** The failure's message (first lines), empty when it passed. */
  message: string;
}

/** Most characters of a failure message kept per test. */
export const MAX_MESSAGE_CHARS = 2_000;

type Node = Record<string, unknown>;

type Fxp = typeof import('fast-xml-parser');
let fxp: Fxp | undefined;

const asArray = (value: unknown): Node[] =>
  value === undefined || value === null ? [] : (Array.isArray(value) ? value : [value]).map(asNode);
/** An element as an object: one with only text (`<failure>trace</failure>`) parses as its text. */
const asNode = (value: unknown): Node =>
  typeof value === 'object' && value !== null ? (value as Node) : { '#text': String(value ?? '') };

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  const node = asNode(value);
  return typeof node['#text'] === 'string' || typeof node['#text'] === 'number' ? String(node['#text']) : '';
}

/** A failure's message: its `message` attribute, else its body, trimmed and bounded. */
function failureMessage(node: Node): string {
  const attribute = typeof node.message === 'string' ? node.message : '';
  const body = text(node).trim();
  const message =
    attribute && body && !body.startsWith(attribute) ? `${attribute}\n${body}` : attribute || body;
  return message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message;
}

function seconds(value: unknown): number {
  const n = Number(typeof value === 'string' ? value.replace(/,/g, '') : value);
  return Number.isFinite(n) && n >= 0 ? Math.round(n * 1000) : 0;
}

function collect(suite: Node, out: TestResult[], parentName: string): void {
  const suiteName = typeof suite.name === 'string' ? suite.name : parentName;
  for (const testcase of asArray(suite.testcase)) {
    const failure = [...asArray(testcase.failure), ...asArray(testcase.error)][0];
    const skipped = testcase.skipped !== undefined;
    const classname = typeof testcase.classname === 'string' && testcase.classname ? testcase.classname : '';
    out.push({
      suite: classname || suiteName || '(no suite)',
      name: typeof testcase.name === 'string' ? testcase.name : String(testcase.name ?? '(unnamed)'),
      status: failure ? 'failed' : skipped ? 'skipped' : 'passed',
      duration_ms: seconds(testcase.time),
      message: failure ? failureMessage(failure) : '',
    });
  }
  for (const inner of asArray(suite.testsuite)) collect(inner, out, suiteName);
}

/**
 * The test results of a JUnit XML report: `<testsuites>` or a lone `<testsuite>` root, suites nested or not.
 * A test's suite is its `classname`, else the name of its `<testsuite>`. Malformed XML is refused naming the
 * line and column.
 */
export async function parseJUnit(xml: string, source: string): Promise<TestResult[]> {
  fxp ??= load('fast-xml-parser') as Fxp;
  const checked = fxp.XMLValidator.validate(xml);
  if (checked !== true) {
    const { line, col, msg } = checked.err;
    throw new InvalidInput(`${source} is not well-formed XML: line ${line}, column ${col}: ${msg}`, {
      hint: 'Pass the JUnit XML file as the test runner wrote it (Jest with jest-junit, pytest --junitxml, Surefire, go-junit-report)',
    });
  }
  const parser = new fxp.XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    parseTagValue: false,
    ignoreDeclaration: true,
    processEntities: true,
    // Numeric character references (&#10; in pytest's messages) as well as the five XML entities.
    htmlEntities: true,
  });
  const doc = asNode(parser.parse(xml));
  const roots = [
    ...asArray(doc.testsuites),
    ...asArray(doc.testsuite).map((suite) => ({ testsuite: suite })),
  ];
  if (roots.length === 0) {
    throw new InvalidInput(`${source} has no <testsuites> or <testsuite> element: it is not a JUnit report`, {
      hint: 'Pass a JUnit XML report; other formats are not read',
    });
  }
  const results: TestResult[] = [];
  for (const root of roots) collect(root, results, '');
  return results;
}
