import { readFile } from 'node:fs/promises';
import { ScriptModel, parseScript } from '../models/script-model.js';

/** Reads a JSONL script file into a `ScriptModel` (throws with the line number on a bad line). */
export async function loadScriptModel(path: string): Promise<ScriptModel> {
  const text = await readFile(path, 'utf8');
  return new ScriptModel(parseScript(text), { name: `script:${path}` });
}
