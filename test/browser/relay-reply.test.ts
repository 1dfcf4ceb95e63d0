// What the service worker makes of a page's relayed answer: the current form, an older
// page's form (a new service worker takes over pages still running old code), or neither.
import { describe, expect, it } from 'vitest';
import { relayedAnswer, type RelayReply } from '../../src/worker/protocol.ts';

type Reply = Extract<RelayReply, { type: 'response' }>;

describe('relayed answers', () => {
  it('passes the JSON text of the current form on untouched', () => {
    expect(relayedAnswer({ type: 'response', status: 200, json: '{"a":1.5}' })).toEqual({
      status: 200,
      json: '{"a":1.5}',
    });
  });

  it("reads an older page's { response: { status, body } }", () => {
    const old = {
      type: 'response',
      response: { status: 400, body: { error: { code: 'invalid_field', message: 'x' } } },
    } as unknown as Reply;
    expect(relayedAnswer(old)).toEqual({ status: 400, json: '{"error":{"code":"invalid_field","message":"x"}}' });
  });

  it('anything else is engine_unavailable saying to reload, never an empty 200', () => {
    for (const bad of [
      { type: 'response' },
      { type: 'response', status: '200', json: '{}' },
      { type: 'response', status: 200 },
    ]) {
      const r = relayedAnswer(bad as unknown as Reply);
      expect(r.status).toBe(503);
      expect(JSON.parse(r.json)).toMatchObject({
        error: { code: 'engine_unavailable', message: expect.stringContaining('Reload the page') },
      });
    }
  });
});
