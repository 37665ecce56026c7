/**
 * The dashboard page (`fed ui`): preact + htm, bundled by scripts/ui-bundle.mjs into dist/ui/app.js. It
 * imports nothing of fed at run time (only types): it speaks to the server's JSON routes and event stream.
 */
import { html } from 'htm/preact';
import { render } from 'preact';
import { App } from './app.js';
import { connectLive } from './live.js';
import { onLinkClick } from './router.js';

const root = document.getElementById('app');
if (!root) throw new Error('the page shell has no #app element');
document.addEventListener('click', onLinkClick);
connectLive();
render(html`<${App} />`, root);
