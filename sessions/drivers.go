package sessions

// The drivers run inside the held interpreter. Requests arrive as JSON
// lines on fd 3 ({"code": …, "marker": …}); the code runs in one
// persistent namespace with the interpreter's real stdout and stderr (so
// subprocess output is captured too); then the driver writes the marker to
// both streams, so the holder knows where this request's output ends, and
// replies {"exit_code": N} on fd 4. An uncaught exception prints its
// traceback to stderr and gives exit_code 1; the interpreter lives on.

// pythonDriver is run as python3 -u -c pythonDriver.
const pythonDriver = `
import ast, json, os, sys, traceback
def _delta_main():
    ns = {"__name__": "__main__", "__builtins__": __builtins__}
    req = os.fdopen(3, "r", encoding="utf-8")
    rep = os.fdopen(4, "w", encoding="utf-8")
    while True:
        try:
            line = req.readline()
        except KeyboardInterrupt:
            continue
        if not line:
            return
        r = json.loads(line)
        rc = 0
        try:
            rc = _delta_run(r["code"], ns)
        except KeyboardInterrupt:
            traceback.print_exc()
            rc = 130
        except BaseException:
            rc = 1
        try:
            sys.stdout.flush(); sys.stderr.flush()
        except BaseException:
            pass
        m = r["marker"].encode()
        os.write(1, m); os.write(2, m)
        rep.write(json.dumps({"exit_code": rc}) + "\n"); rep.flush()

def _delta_run(code, ns):
    try:
        tree = ast.parse(code, "<session>", "exec")
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, "<session>", "exec"), ns)
        if last is not None:
            v = eval(compile(last, "<session>", "eval"), ns)
            if v is not None:
                ns["_"] = v
                print(repr(v))
        return 0
    except SystemExit as e:
        c = e.code
        if c is None:
            return 0
        if isinstance(c, int):
            return c
        print(c, file=sys.stderr)
        return 1
    except SyntaxError as e:
        traceback.print_exception(type(e), e, None)
        return 1
    except KeyboardInterrupt as e:
        traceback.print_exception(type(e), e, e.__traceback__.tb_next)
        return 130
    except BaseException as e:
        traceback.print_exception(type(e), e, e.__traceback__.tb_next)
        return 1

_delta_main()
`

// nodeDriver is run as node -e nodeDriver. The driver lives in a closure,
// so user code can neither see nor clobber its names (const fs = …,
// function pump(){} are the user's own); the few globals it relies on are
// captured before any user code runs. User code runs with
// vm.runInThisContext (the main realm: objects from require'd modules are
// ordinary Arrays and Objects), so var, let, const and function
// declarations of one exec are visible in the next; a returned promise is
// awaited. Code with a top-level await that does not compile as a script
// runs inside an async function instead (see topLevelAwait).
const nodeDriver = `
(() => {
const fs = require('fs'), vm = require('vm'), readline = require('readline'), util = require('util');
const stringify = JSON.stringify, parse = JSON.parse, writeSync = fs.writeSync;
const errWrite = process.stderr.write.bind(process.stderr), outWrite = process.stdout.write.bind(process.stdout);
globalThis.require = require;
process.on('uncaughtException', (e) => { errWrite((e && e.stack || String(e)) + '\n'); });
process.on('SIGINT', () => {});
const rep = fs.createWriteStream(null, {fd: 4});
const rl = readline.createInterface({input: fs.createReadStream(null, {fd: 3})});
const queue = [];
let busy = false;
rl.on('line', (line) => { queue.push(parse(line)); pump(); });
rl.on('close', () => process.exit(0));
// trim drops the driver's own frames from a stack trace.
function trim(stack) {
  const lines = String(stack).split('\n');
  const i = lines.findIndex((l) => /at (sigintHandlersWrap|Script\.runInThisContext|Object\.runInThisContext|new Script|createScript|runCode)/.test(l));
  return (i >= 0 ? lines.slice(0, i) : lines).join('\n');
}
// topLevelAwait rewrites code that uses await at the top level into an
// async function whose last expression statement is returned. Declarations
// at the start of a line (const x = …, let, var, function f, class C)
// become globals so later execs see them, as in the node REPL.
function topLevelAwait(code) {
  const lines = code.replace(/\s+$/, '').split('\n');
  const body = lines.map((l) => l
    .replace(/^(const|let|var)\s+([A-Za-z_$][\w$]*)\s*=/, 'globalThis.$2 =')
    .replace(/^(async\s+)?function\s*(\*?)\s*([A-Za-z_$][\w$]*)/, 'globalThis.$3 = $1function$2 $3')
    .replace(/^class\s+([A-Za-z_$][\w$]*)/, 'globalThis.$1 = class $1'));
  const last = body.length - 1;
  const m = /^(.*;)?\s*([^;]+?);?\s*$/.exec(body[last]);
  if (m && !/^\s*(globalThis\.|if\b|for\b|while\b|return\b|throw\b|try\b|[}\]])/.test(m[2])) {
    body[last] = (m[1] || '') + ' return (' + m[2] + ');';
  }
  return '(async () => {\n' + body.join('\n') + '\n})()';
}
function runCode(code) {
  let script;
  try {
    script = new vm.Script(code, {filename: '<session>'});
  } catch (e) {
    if (!(e instanceof SyntaxError) || !/\bawait\b/.test(code)) throw e;
    try {
      script = new vm.Script(topLevelAwait(code), {filename: '<session>'});
    } catch (e2) {
      throw e;
    }
  }
  return script.runInThisContext({breakOnSigint: true});
}
async function pump() {
  if (busy) return;
  busy = true;
  while (queue.length) {
    const r = queue.shift();
    let rc = 0;
    try {
      let v = runCode(r.code);
      if (v && typeof v.then === 'function') v = await v;
      if (v !== undefined) outWrite(util.inspect(v) + '\n');
    } catch (e) {
      errWrite(trim(e && e.stack || String(e)) + '\n');
      rc = 1;
    }
    writeSync(1, r.marker); writeSync(2, r.marker);
    rep.write(stringify({exit_code: rc}) + '\n');
  }
  busy = false;
}
})();
`
