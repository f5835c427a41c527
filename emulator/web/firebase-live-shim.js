/*
 * gemini-emulator firebase-live-shim.js: Firebase AI Logic's Live API (firebase/ai getLiveGenerativeModel) against
 * a local gemini-emulator, for development only.
 *
 * firebase/ai builds its Live URL on a fixed host and ignores `baseUrl`:
 *   wss://firebasevertexai.googleapis.com/ws/google.firebase.vertexai.v1beta.GenerativeService/BidiGenerateContent?key=K
 *   wss://firebasevertexai.googleapis.com/ws/google.firebase.vertexai.v1beta.LlmBidiService/BidiGenerateContent/locations/L?key=K
 * This script wraps window.WebSocket so that those URLs, and only those, open on the emulator instead
 * (ws://127.0.0.1:8080/ws/..., the same path and query); every other WebSocket is left untouched.
 *
 * Use: load it as a classic script (not type="module") before the page connects, e.g. first in <head>:
 *
 *   <script src="http://127.0.0.1:8080/__emulator/firebase-live-shim.js"> and its closing tag
 *
 * (this file never spells that closing tag, so that a copy may also be pasted inline into a script element).
 * The emulator it sends them to is the first of:
 *   1. window.GEMINI_EMULATOR_URL, set before this script runs ("http://127.0.0.1:9090");
 *   2. ?emulator=URL on this script's src (".../firebase-live-shim.js?emulator=http://127.0.0.1:9090");
 *   3. the URL printed into this copy by `gemini-emulator firebase-live-shim --url URL` (a copy the page serves itself);
 *   4. the origin this script was loaded from (the usual case: the emulator served it);
 *   5. http://127.0.0.1:8080.
 * http becomes ws and https wss; a path on the URL (a proxy's prefix) is kept before /ws/...
 *
 * In Node (tests), where firebase/ai uses the global WebSocket too: set globalThis.WebSocket if the runtime has none
 * (Node 20: undici's), set globalThis.GEMINI_EMULATOR_URL, then run this file (import it, or vm.runInThisContext).
 */
(function () {
  'use strict';
  var HOST = 'firebasevertexai.googleapis.com';
  var PRINTED = ''; // `gemini-emulator firebase-live-shim --url URL` prints the emulator's URL here
  var root = typeof globalThis !== 'undefined' ? globalThis : window;
  var Native = root.WebSocket;
  if (typeof Native !== 'function' || Native.geminiEmulator) return; // no WebSocket, or already wrapped

  function configured() {
    if (root.GEMINI_EMULATOR_URL) return String(root.GEMINI_EMULATOR_URL);
    var script = typeof document !== 'undefined' ? document.currentScript : null;
    var src = script && script.src ? new URL(script.src) : null;
    if (src && src.searchParams.get('emulator')) return src.searchParams.get('emulator');
    if (PRINTED) return PRINTED;
    if (src && /^https?:$/.test(src.protocol)) return src.origin;
    return 'http://127.0.0.1:8080';
  }

  var emulator = new URL(configured());
  var base = (emulator.protocol === 'https:' ? 'wss://' : 'ws://') + emulator.host + emulator.pathname.replace(/\/+$/, '');

  /** The URL the socket opens: the emulator's for Firebase's Live host, else `url` as given. */
  function redirected(url) {
    var parsed;
    try {
      parsed = new URL(String(url));
    } catch (e) {
      return url; // let the WebSocket constructor refuse it as it would have
    }
    if (parsed.protocol !== 'wss:' || parsed.host !== HOST) return url;
    return base + parsed.pathname + parsed.search;
  }

  class WebSocket extends Native {
    constructor(url, ...protocols) {
      super(redirected(url), ...protocols);
    }
  }
  Object.defineProperty(WebSocket, 'geminiEmulator', { value: { base: base, redirected: redirected } });
  root.WebSocket = WebSocket;
  if (typeof console !== 'undefined' && console.info) {
    console.info('[gemini-emulator] WebSockets to wss://' + HOST + '/ now open on ' + base + '/');
  }
})();
