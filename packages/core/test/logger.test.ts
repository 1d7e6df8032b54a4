import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';

describe('createLogger', () => {
  it('writes each event as one line at column 0, its further lines indented and control characters escaped', () => {
    const lines: string[] = [];
    const log = createLogger('test', { write: (line) => lines.push(line) });
    const forged = '2026-01-01T00:00:00.000Z error [test] forged';
    log.info(`started: hi\n${forged}\r\n${forged}\u2028x\u001b[31mred`, { user: 'a\nb' });
    const text = lines.join('');
    expect(text.split('\n').filter((line) => /^\d{4}-/.test(line))).toHaveLength(1);
    expect(text).toContain(`\n    ${forged}\n    ${forged}\n    x\\u001b[31mred {"user":"a\\nb"}\n`);
  });
});
