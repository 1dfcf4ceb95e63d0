// The OpenAPI document cannot drift from the validators: it is valid OpenAPI
// 3.1 (checked by @seriousme/openapi-schema-validator, offline), every
// request example passes both the validators and the schema, every error
// example is what the validators answer, real answers of the engine on the
// demo dataset match the response schemas, its error codes are those of
// errors.ts and of docs/contract.md, the committed docs/openapi.json is
// current, and `serve` answers it at /api/openapi.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import { ERROR_REQUESTS, REQUEST_EXAMPLES, openApiDocument } from '../../src/engine/openapi.ts';
import { ERROR_STATUS, toClimateQueryError, type ErrorCode } from '../../src/contract/errors.ts';
import { ENDPOINTS, type Endpoint } from '../../src/contract/types.ts';
import { VALIDATORS } from '../../src/contract/validate.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { startServer } from '../../src/node/server.ts';
import { packageVersion } from '../../src/node/package-version.ts';

const repo = join(import.meta.dirname, '../..');
const doc = openApiDocument(packageVersion());
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const paths = doc.paths as Json;
const components = doc.components as Json;

/** A validator for `components.schemas[name]`, refs resolved inside the document. */
function schemaValidator(name: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'doc', components }, 'doc');
  return ajv.compile({ $ref: `doc#/components/schemas/${name}` });
}
const schemaName = (e: Endpoint) =>
  e
    .split('-')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(Object.keys(paths)).toEqual(ENDPOINTS.map((e) => `/api/${e}/`));
  });

  it('is committed as docs/openapi.json, current (run `npm run openapi` after changing the contract)', () => {
    expect(JSON.parse(readFileSync(join(repo, 'docs/openapi.json'), 'utf8'))).toEqual(doc);
  });

  it.each(ENDPOINTS)('%s: every request example passes the validator and the request schema', (endpoint) => {
    const examples = paths[`/api/${endpoint}/`].post.requestBody.content['application/json'].examples as Json;
    expect(Object.keys(examples).length).toBeGreaterThan(0);
    const schema = schemaValidator(`${schemaName(endpoint)}Request`);
    for (const [name, { value }] of Object.entries(examples)) {
      expect(() => VALIDATORS[endpoint](value), name).not.toThrow();
      expect(schema(value), `${name}: ${JSON.stringify(schema.errors)}`).toBe(true);
    }
  });

  it.each(ENDPOINTS)('%s: the response example matches the response schema', (endpoint) => {
    const example = paths[`/api/${endpoint}/`].post.responses['200'].content['application/json'].example;
    const schema = schemaValidator(`${schemaName(endpoint)}Response`);
    expect(schema(example), JSON.stringify(schema.errors)).toBe(true);
  });

  it('the request schemas reject what the validators reject for structure (unknown, missing, mistyped fields, unknown names)', () => {
    for (const code of [
      'invalid_json',
      'missing_field',
      'invalid_field',
      'unknown_field',
      'unknown_data_type',
      'limit_exceeded',
    ] as ErrorCode[]) {
      const bad = ERROR_REQUESTS[code]!;
      if (code === 'limit_exceeded') continue; // a count of ";"-joined items: only the validator can see it
      expect(schemaValidator(`${schemaName(bad.endpoint)}Request`)(bad.body), code).toBe(false);
    }
  });

  it("every input error example is the validators' own answer to the documented bad request", () => {
    const examples = components.examples as Json;
    for (const [code, bad] of Object.entries(ERROR_REQUESTS)) {
      let thrown: unknown;
      try {
        VALIDATORS[bad.endpoint](bad.body);
      } catch (err) {
        thrown = err;
      }
      expect(thrown, code).toBeDefined();
      expect(toClimateQueryError(thrown).toBody()).toEqual(examples[code].value);
      expect(examples[code].value.error.code).toBe(code);
    }
  });

  it('lists every error code of errors.ts, with its status, under every route, and each example fits the Error schema', () => {
    const codes = Object.keys(ERROR_STATUS).sort();
    const errorSchema = schemaValidator('Error');
    expect([...components.schemas.Error.properties.error.properties.code.enum].sort()).toEqual(codes);
    expect(Object.keys(components.examples).sort()).toEqual(codes);
    for (const code of codes) expect(errorSchema(components.examples[code].value), code).toBe(true);
    for (const endpoint of ENDPOINTS) {
      const responses = paths[`/api/${endpoint}/`].post.responses as Json;
      const listed: string[] = [];
      for (const [status, response] of Object.entries(responses)) {
        if (status === '200') continue;
        for (const code of Object.keys(response.content['application/json'].examples)) {
          expect(ERROR_STATUS[code as ErrorCode], `${endpoint} ${status} ${code}`).toBe(Number(status));
          listed.push(code);
        }
      }
      expect(listed.sort()).toEqual(codes);
    }
  });

  it('has the same error codes and statuses as the table in docs/contract.md', () => {
    const text = readFileSync(join(repo, 'docs/contract.md'), 'utf8');
    const table = [...text.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])] as const);
    expect(table.length).toBeGreaterThan(10);
    expect(Object.fromEntries(table)).toEqual(
      Object.fromEntries(
        (components.schemas.Error.properties.error.properties.code.enum as ErrorCode[]).map((c) => [
          c,
          ERROR_STATUS[c],
        ]),
      ),
    );
  });
});

describe('the OpenAPI document against the running engine', () => {
  const demo = inject('demoDataset');
  const engine = createNodeEngine(demo);
  afterAll(() => engine.close());

  it.each(ENDPOINTS)(
    '%s: the engine answers every request example with 200 and a body that matches the response schema',
    async (endpoint) => {
      const schema = schemaValidator(`${schemaName(endpoint)}Response`);
      for (const [name, { value }] of Object.entries(REQUEST_EXAMPLES[endpoint])) {
        const res = await engine.handle({ method: 'POST', path: `/api/${endpoint}/`, body: JSON.stringify(value) });
        expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(200);
        expect(schema(res.body), `${name}: ${JSON.stringify(schema.errors)}`).toBe(true);
      }
    },
  );

  it('climate-query serve answers GET and HEAD /api/openapi.json with the document', async () => {
    const server = await startServer({ engine, port: 0 });
    try {
      const res = await fetch(`${server.url}api/openapi.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await res.json()).toEqual(doc);
      const head = await fetch(`${server.url}api/openapi.json`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      // The four routes are unchanged beside it.
      const notFound = await fetch(`${server.url}api/openapi.yaml`);
      expect(notFound.status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
