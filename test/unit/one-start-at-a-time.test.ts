import { describe, expect, it } from 'vitest';
import { oneAtATimePerKey } from '@folio-vault/api/night-audit/one-start-at-a-time';

describe('oneAtATimePerKey', () => {
  it('runs one key’s work in order, one at a time, other keys beside it, and goes on after a failure', async () => {
    const run = oneAtATimePerKey();
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = run('1', async () => {
      events.push('1a start');
      await gate;
      events.push('1a end');
      throw new Error('first failed');
    });
    const second = run('1', async () => {
      events.push('1b');
      return 'b';
    });
    const other = run('2', async () => {
      events.push('2');
      return 'other';
    });
    expect(await other).toBe('other');
    expect(events).toEqual(['1a start', '2']);
    release();
    await expect(first).rejects.toThrow('first failed');
    expect(await second).toBe('b');
    expect(events).toEqual(['1a start', '2', '1a end', '1b']);
  });
});
