// The sandbox proxy page (ext-apps spec, "Sandbox proxy"): served from the sandbox origin, framed
// by the web app, it holds the app's own frame and relays JSON-RPC between the two.
//
//   Ferry page (host) ⇄ postMessage ⇄ this page (sandbox origin) ⇄ postMessage ⇄ app frame
//
// The app frame is a srcdoc frame sandboxed WITHOUT allow-same-origin: its origin is opaque, so it
// has no cookies or storage at all (cookies are shared between ports of one host, an origin is not
// enough) and cannot reach this page's DOM either. It inherits this page's CSP (the header), and a
// <meta> repeats it inside the app's document. The page talks only to the origin that framed it.

/** Attributes of the app frame; the host's `sandbox` override is ignored (fail closed). */
const APP_FRAME_SANDBOX = 'allow-scripts allow-forms';

/** The proxy page, its policy for the app's <meta> built in; `<` escaped so it cannot end the script. */
export function proxyPageHtml(csp: string): string {
  const policy = JSON.stringify(csp).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>Ferry app sandbox</title>
<style>html,body{margin:0;padding:0;height:100%;overflow:hidden;background:transparent}iframe{border:0;width:100%;height:100%;display:block}</style>
</head>
<body>
<script>
(() => {
  'use strict';
  const POLICY = ${policy};
  const SANDBOX_PREFIX = 'ui/notifications/sandbox-';
  if (window.parent === window) {
    document.body.textContent = 'This page only runs inside Ferry.';
    return;
  }
  const params = new URLSearchParams(location.search);
  const claimed = params.get('host') || '';
  const ancestor = location.ancestorOrigins && location.ancestorOrigins.length ? location.ancestorOrigins[0] : '';
  // Where Ferry says it is must be where this page is framed (browsers that tell).
  if (!claimed || (ancestor && ancestor !== claimed)) {
    document.body.textContent = 'Refused: not framed by the host it names.';
    return;
  }
  const HOST = claimed;
  let frame = null;
  const escapeAttr = (text) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  const withPolicy = (html) => {
    const meta = '<meta http-equiv="Content-Security-Policy" content="' + escapeAttr(POLICY) + '">';
    const doctype = /^\\s*<!doctype[^>]*>/i.exec(html);
    return doctype ? doctype[0] + meta + html.slice(doctype[0].length) : meta + html;
  };
  const isSandboxMessage = (data) =>
    data !== null && typeof data === 'object' && typeof data.method === 'string' && data.method.startsWith(SANDBOX_PREFIX);
  window.addEventListener('message', (event) => {
    if (event.source === window.parent) {
      if (event.origin !== HOST) return;
      const data = event.data;
      if (isSandboxMessage(data)) {
        if (data.method !== SANDBOX_PREFIX + 'resource-ready' || frame) return;
        const html = data.params && typeof data.params.html === 'string' ? data.params.html : '';
        frame = document.createElement('iframe');
        frame.setAttribute('sandbox', ${JSON.stringify(APP_FRAME_SANDBOX)});
        frame.setAttribute('title', 'MCP App');
        frame.srcdoc = withPolicy(html);
        document.body.appendChild(frame);
        return;
      }
      if (frame && frame.contentWindow) frame.contentWindow.postMessage(data, '*');
      return;
    }
    // The app frame's origin is opaque ("null"): it is known by its window, not its origin.
    if (frame && event.source === frame.contentWindow) {
      if (isSandboxMessage(event.data)) return;
      window.parent.postMessage(event.data, HOST);
    }
  });
  window.parent.postMessage({ jsonrpc: '2.0', method: SANDBOX_PREFIX + 'proxy-ready', params: {} }, HOST);
})();
</script>
</body>
</html>
`;
}
