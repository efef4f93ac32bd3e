// The HTTP side of metrics: GET /metrics (Prometheus text format) and GET /ready (200 once the
// server accepts CQL connections, 503 before and while shutting down).

import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import type { ServerMetrics } from './metrics.js';
import { startupFailureMessage } from './startup-failure.js';

export async function startMetricsEndpoint(
  metrics: ServerMetrics,
  host: string,
  port: number,
  logger: Logger,
): Promise<Server | undefined> {
  const server = createServer((req, res) => {
    if (req.url === '/metrics') {
      metrics.registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType });
          res.end(text);
        },
        (e: unknown) => {
          res.writeHead(500);
          res.end(String(e));
        },
      );
    } else if (req.url === '/ready') {
      res.writeHead(metrics.ready ? 200 : 503, { 'content-type': 'text/plain' });
      res.end(metrics.ready ? 'ready\n' : 'not ready\n');
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  // Metrics are not worth failing start-up for (e.g. a second node on one host): warn and go on.
  return new Promise((resolve) => {
    server.once('error', (e) => {
      const reason = startupFailureMessage(Object.assign(e, { address: host, port }), 'metrics_port') ?? e.message;
      logger.warn({ port }, `metrics endpoint not started: ${reason}`);
      resolve(undefined);
    });
    server.listen(port, host, () => {
      const addr = server.address();
      logger.info(
        { metrics: `http://${host}:${typeof addr === 'object' && addr ? addr.port : port}/metrics` },
        'metrics endpoint listening',
      );
      resolve(server);
    });
  });
}
