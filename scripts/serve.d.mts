/** Types for serve.mjs (plain JS so it runs before anything is installed). */
export function isolationHeaders(hubOrigin?: string): Record<string, string>;
export function serveStatic(options?: {
  dir?: string;
  port?: number;
  host?: string;
  isolate?: boolean;
  tls?: { cert: string | Uint8Array; key: string | Uint8Array };
}): Promise<{ url: string; port: number; close: () => Promise<void> }>;
export function parseServeArgs(
  argv?: string[],
  env?: Record<string, string | undefined>,
): { host: string; port: number; dir: string; cert: string; key: string; help: boolean };
export function lanAddresses(): string[];
