/**
 * REST: a read-only mirror of the views (`GET /api/views/<name>?param=value`), the health
 * endpoint (`GET /api/health`), and packet ingest (`POST /api/packets`, see imports/ingest/http.js).
 * Responses above the threshold are compressed by the `compression` package.
 */
import compression from 'compression';
import { SnapshotError } from '/imports/core/publish-hub';
import { cachedAnswer } from '/imports/core/answer-stamp';

function sendJson(res, status, body) {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.end(JSON.stringify(body));
}

export function registerRestApi({ handlers, engine, cache, decorate, health, settings, packetsHandler }) {
  const compress = compression({ threshold: settings.http.compressionThresholdBytes });

  handlers.use('/api/packets', (req, res) => packetsHandler(req, res));

  handlers.use('/api/health', compress);
  handlers.use('/api/health', (req, res) => {
    if (req.method !== 'GET') return sendJson(res, 405, { error: 'method_not_allowed', message: 'use GET' });
    return sendJson(res, 200, health());
  });

  handlers.use('/api/views', compress);
  handlers.use('/api/views', async (req, res) => {
    if (req.method !== 'GET') return sendJson(res, 405, { error: 'method_not_allowed', message: 'use GET' });
    const url = new URL(req.url, 'http://localhost');
    const name = decodeURIComponent(url.pathname.replace(/^\/+/, '').split('/')[0] || '');
    if (!name) return sendJson(res, 200, { views: Array.from(engine.views.keys()), usage: 'GET /api/views/<name>?param=value' });
    const view = engine.views.get(name);
    if (!view) return sendJson(res, 404, { error: 'unknown_view', message: `no view "${name}"`, views: Array.from(engine.views.keys()) });
    let params;
    try {
      params = view.normalizeParams(Object.fromEntries(url.searchParams.entries()));
    } catch (err) {
      return sendJson(res, 400, { error: 'bad_params', message: err.message });
    }
    try {
      return sendJson(res, 200, await cachedAnswer({ cache, decorate, store: engine.store }, name, view, params));
    } catch (err) {
      // Too many region-scoped instances built this minute (imports/core/analytics/region-scope.js).
      if (err && err.retryAfterSeconds) {
        res.setHeader('retry-after', String(err.retryAfterSeconds));
        return sendJson(res, 503, { error: 'region_scope_busy', message: err.message });
      }
      return sendJson(res, 500, { error: 'snapshot_failed', message: new SnapshotError(name, err).message });
    }
  });
}
