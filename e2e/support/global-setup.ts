/** Once per e2e run: Chromium must be there, and the editor built (rebuilt when stale). */
import { chromiumMissing, ensureWebBuild } from './app.ts';

export default function setup(): void {
  const missing = chromiumMissing();
  if (missing) throw new Error(missing);
  const build = ensureWebBuild();
  process.stderr.write(`e2e: editor build: ${build}\n`);
}
