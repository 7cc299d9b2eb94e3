// Types of meshport's JavaScript API (api.mjs).
export type Bytes = Uint8Array | ArrayBuffer | ArrayBufferView | string;

export interface RunResult {
  status: number;
  stdout: string;
  stderr: string;
  files: Record<string, Uint8Array>;
}

export class MeshportError extends Error {
  status: number;
  stderr: string;
  stdout: string;
  diagnostics: string[];
  /** The module trapped (ran out of memory, aborted) and was reloaded; workspaces are gone. */
  moduleLost?: boolean;
}

export interface ConvertOptions {
  name?: string;
  from?: string;
  to?: string;
  output?: string;
  files?: Record<string, Bytes>;
  inputs?: string[];
  [cliOption: string]: unknown;
}

export interface ConvertResult {
  data: Uint8Array;
  files: Record<string, Uint8Array>;
  diagnostics: string[];
}

export interface ValidateResult {
  ok: boolean;
  status: number;
  report: any;
}

export interface DiffResult {
  same: boolean;
  count: number;
  differences: { path: string; a: string; b: string; message: string }[];
  notes: { path: string; a: string; b: string; message: string }[];
}

export function run(args: string[], files?: Record<string, Bytes>): Promise<RunResult>;
export function formats(): Promise<any[]>;
export function convert(input: Bytes, options?: ConvertOptions): Promise<ConvertResult>;
export function info(input: Bytes, nameOrOptions?: string | { name?: string; from?: string; files?: Record<string, Bytes>; [cliOption: string]: unknown }): Promise<any>;
export function validate(input: Bytes, nameOrOptions?: string | { name?: string; from?: string; files?: Record<string, Bytes>; [cliOption: string]: unknown }): Promise<ValidateResult>;
export function diff(a: Bytes, b: Bytes, options?: { nameA?: string; fromA?: string; nameB?: string; fromB?: string; files?: Record<string, Bytes>; tolerance?: number; [cliOption: string]: unknown }): Promise<DiffResult>;

export interface Workspace {
  write(path: string, data: Bytes): void;
  remove(path: string): void;
  read(path: string): Uint8Array;
  list(): string[];
  run(args: string[]): Promise<RunResult>;
  dispose(): void;
}

export function workspace(): Promise<Workspace>;
