import { render } from 'preact';
import { App } from './app.js';

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
  // The first meaningful paint: the first frame with the console's view in it (scripts/measure.mjs reads it).
  requestAnimationFrame(() => performance.mark('console:ready'));
}
