import { describe, expect, it } from 'vitest';
import { cardFreeIds } from '@folio-vault/shared/tracing/sdk';
import { holdsPan, redactPans } from '@folio-vault/shared/vault/card/redact-pan';

/** An id source that hands out the given ids in turn (the SDK's random generator's interface). */
function idsInTurn(traceIds: string[], spanIds: string[]) {
  return { generateTraceId: () => traceIds.shift()!, generateSpanId: () => spanIds.shift()! };
}

describe('trace and span ids (tracing/sdk.ts, cardFreeIds)', () => {
  // A span id a run of the suite drew: its first 14 characters are digits that pass brand, length
  // and Luhn, and the log line's redaction cut it to 694156****6492eb.
  const PAN_SHAPED_SPAN = '69415693286492eb';
  const PAN_SHAPED_TRACE = `e4294b4a${PAN_SHAPED_SPAN}0fbe3209`;

  it('the ids below are what the log redaction would cut', () => {
    expect(redactPans(PAN_SHAPED_SPAN)).toBe('694156****6492eb');
    expect(holdsPan(PAN_SHAPED_TRACE)).toBe(true);
  });

  it('draws again when an id holds a card-shaped run, and keeps the next one', () => {
    const ids = cardFreeIds(idsInTurn([PAN_SHAPED_TRACE, PAN_SHAPED_TRACE, 'e4294b4aef4a6a460fbe3209a9286093'], [PAN_SHAPED_SPAN, '7c1f0a9be2d34f58']));
    expect(ids.generateTraceId()).toBe('e4294b4aef4a6a460fbe3209a9286093');
    expect(ids.generateSpanId()).toBe('7c1f0a9be2d34f58');
  });

  // Enough pairs that ids drawn straight from the SDK would hold a card-shaped run (operations.md#tracing).
  it('hands out W3C ids (32 and 16 lower-case hex characters) that pass the log redaction whole', () => {
    const ids = cardFreeIds();
    for (let i = 0; i < 20_000; i += 1) {
      const [trace, span] = [ids.generateTraceId(), ids.generateSpanId()];
      expect(trace).toMatch(/^[0-9a-f]{32}$/);
      expect(span).toMatch(/^[0-9a-f]{16}$/);
      // Each alone, as a log line holds them ("trace_id":"…","span_id":"…").
      expect([redactPans(trace), redactPans(span)]).toEqual([trace, span]);
    }
  });
});
