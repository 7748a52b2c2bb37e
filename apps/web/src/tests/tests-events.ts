/** A saved test announces itself, so the Tests panel of this page lists it at once. */
const target = new EventTarget();

export function announceTestsChanged(): void {
  target.dispatchEvent(new Event('changed'));
}

export function onTestsChanged(listener: () => void): () => void {
  target.addEventListener('changed', listener);
  return () => target.removeEventListener('changed', listener);
}
