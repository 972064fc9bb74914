/**
 * REST contract: `GET /api/spec` serves the OpenAPI document (imports/core/openapi.js, built
 * once from the registered views and the configured ingest limits), and `POST /api/decode`
 * decodes reports without storing them (decode-handler.js). Thin: build, mount, answer.
 */
import compression from 'compression';
import { buildOpenApiDocument } from '/imports/core/openapi';
import { VIEW_DEFINITIONS } from '/imports/core/analytics';
import { BATCH_DEFAULTS, BATCH_ERRORS } from '/imports/ingest/http-batch';
import { createDecodeHandler } from './decode-handler';

export function registerSpecApi({ handlers, engine, settings, version }) {
  const { maxBodyBytes, maxBatch } = settings.sources.http;
  const document = buildOpenApiDocument({
    views: VIEW_DEFINITIONS.filter((definition) => engine.views.has(definition.name)),
    limits: { maxBodyBytes, maxBatch },
    batch: { maxDepth: BATCH_DEFAULTS.maxDepth, maxFieldChars: BATCH_DEFAULTS.maxFieldChars, errors: BATCH_ERRORS },
    version,
  });
  const text = JSON.stringify(document);

  handlers.use('/api/spec', compression({ threshold: settings.http.compressionThresholdBytes }));
  handlers.use('/api/spec', (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'application/json; charset=utf-8', allow: 'GET' });
      res.end(JSON.stringify({ error: 'method_not_allowed', message: 'use GET' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' });
    res.end(req.method === 'HEAD' ? undefined : text);
  });

  handlers.use('/api/decode', createDecodeHandler({ keyring: engine.keyring, maxBodyBytes, maxBatch, verifyAdverts: engine.store.options.verifyAdverts }));
}
