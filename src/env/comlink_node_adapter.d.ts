// comlink ships types for its Node adapter as node-adapter.d.ts next to the .mjs we import (Node
// ESM needs the extension), so TypeScript does not pair them; this declares the .mjs path.
declare module 'comlink/dist/esm/node-adapter.mjs' {
  import type { Endpoint } from 'comlink';
  /** The parts of a MessagePort / Worker / parentPort the adapter uses. */
  export interface NodeEndpoint {
    postMessage(message: unknown, transfer?: readonly unknown[]): void;
    on(type: string, listener: (value: unknown) => void): unknown;
    off(type: string, listener: (value: unknown) => void): unknown;
    start?: () => void;
  }
  /** Wraps a Node message port so comlink can use it like a Web Worker. */
  export default function nodeEndpoint(endpoint: NodeEndpoint): Endpoint;
}
