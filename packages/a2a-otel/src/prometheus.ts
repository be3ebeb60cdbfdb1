import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

export interface PrometheusMetricsOptions {
  /** The scrape path. Default `/metrics`. */
  path?: string;
}

export interface PrometheusMetrics {
  /** Pass to `createServerInstrumentation({ meterProvider })` / `createClientInterceptors`, or register it globally. */
  readonly meterProvider: MeterProvider;
  readonly path: string;
  /** Answers a GET of `path` with the exposition text and returns true; returns false for any other request. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** Serves `path` on a server of its own (host default `127.0.0.1`); other requests get 404. */
  listen(options: { port: number; host?: string }): Promise<{ url: string; close(): Promise<void> }>;
  /** Shuts the meter provider and the exporter down. */
  shutdown(): Promise<void>;
}

function checkPath(path: string): void {
  if (typeof path !== 'string' || !/^\/[A-Za-z0-9._~/-]{0,255}$/.test(path)) {
    throw new TypeError(`expected path to be an absolute URL path such as /metrics, got ${JSON.stringify(path)}`);
  }
}

/**
 * A Prometheus scrape endpoint for an application (the sample agents, `a2a serve --metrics`):
 * a `MeterProvider` of the OpenTelemetry SDK read by `@opentelemetry/exporter-prometheus`, which
 * writes the exposition format. The exporter's own server is never started: `handle` plugs into
 * the application's server, `listen` starts one bound to loopback by default.
 */
export function createPrometheusMetrics(options: PrometheusMetricsOptions = {}): PrometheusMetrics {
  const path = options.path ?? '/metrics';
  checkPath(path);
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({ readers: [exporter] });

  const handle = (req: IncomingMessage, res: ServerResponse): boolean => {
    const target = req.url ?? '';
    const query = target.indexOf('?');
    if ((query === -1 ? target : target.slice(0, query)) !== path) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return true;
    }
    exporter.getMetricsRequestHandler(req, res);
    return true;
  };

  return {
    meterProvider,
    path,
    handle,
    listen({ port, host = '127.0.0.1' }) {
      const server = createServer((req, res) => {
        if (!handle(req, res)) res.writeHead(404).end();
      });
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          const hostname = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve({
            url: `http://${hostname}:${address.port}${path}`,
            close: () => new Promise<void>((done) => server.close(() => done())),
          });
        });
      });
    },
    shutdown: () => meterProvider.shutdown(),
  };
}
