// Emscripten --pre-js for the test pages (tests/webgl/shell.html): what the program prints
// is appended to <pre id="out"> (standard error prefixed), and how it ends is written into
// the page's title ("exit N" or "abort"), which xtask reads from Chromium's --dump-dom.
var Module = Module || {};
(function () {
  function append(text) {
    document.getElementById('out').textContent += text + '\n';
  }
  Module.arguments = typeof ELO_ARGUMENTS === 'undefined' ? [] : ELO_ARGUMENTS;
  Module.print = append;
  Module.printErr = function (text) { append('stderr: ' + text); };
  Module.onExit = function (code) { document.title = 'exit ' + code; };
  Module.onAbort = function (reason) { append('abort: ' + reason); document.title = 'abort'; };
})();
