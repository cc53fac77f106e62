/** Types for serve.mjs (plain JS so it runs before anything is installed). */
export function isolationHeaders(hubOrigin?: string): Record<string, string>;
export function serveStatic(options?: {
  dir?: string;
  port?: number;
  host?: string;
  isolate?: boolean;
}): Promise<{ url: string; close: () => Promise<void> }>;
