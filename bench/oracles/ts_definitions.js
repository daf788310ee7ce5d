// bench/oracles/ts_definitions.js — the TypeScript compiler's own view of a file's
// definitions, the oracle of bench/extract_oracle.py for TypeScript and JavaScript.
// Usage: node ts_definitions.js TYPESCRIPT_LIB ROOT < paths  (one relative path a line)
// Prints one JSON object a line: {path, name, line, end, kind, overload}; lines are
// 1-based. Definitions inside a named function's or method's body are not reported, nor
// object-literal methods; anonymous functions (IIFEs, callbacks) and other expressions
// are looked into, so what they declare counts at the enclosing level.
const fs = require("fs");
const path = require("path");
const ts = require(process.argv[2]);
const root = process.argv[3];

function nameOf(node, sf) {
  return node.name && ts.isIdentifier(node.name) || node.name && ts.isPrivateIdentifier(node.name)
    || node.name && ts.isStringLiteral(node.name) ? node.name.text
    : node.name ? node.name.getText(sf) : null;
}

function isFunctionValue(init) {
  return init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init));
}

function walk(sf, rel, out) {
  const line = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const emit = (node, name, kind, overload) => {
    if (name) out.push({ path: rel, name, line: line(node.getStart(sf)), end: line(node.end),
                         kind, overload: !!overload });
  };
  const visit = (node) => {
    if (ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node)
        || ts.isEnumDeclaration(node) || ts.isTypeAliasDeclaration(node)) {
      emit(node, nameOf(node, sf), "class");
      if (!ts.isTypeAliasDeclaration(node) && !ts.isEnumDeclaration(node)) {
        node.members.forEach(member);
      }
      return;
    }
    if (ts.isFunctionDeclaration(node)) {
      emit(node, nameOf(node, sf), "function", !node.body);
      return;  // nested definitions are not compared
    }
    if (ts.isVariableDeclaration(node) && node.initializer) {
      if (ts.isIdentifier(node.name) && isFunctionValue(node.initializer)) {
        emit(node, node.name.text, "function");
        return;  // a named function: its body is not compared
      }
    }
    if (ts.isMethodDeclaration(node) || ts.isGetAccessorDeclaration(node)
        || ts.isSetAccessorDeclaration(node)) {
      return;  // an object-literal member: not a definition
    }
    ts.forEachChild(node, visit);
  };
  const member = (node) => {
    if (ts.isMethodDeclaration(node) || ts.isMethodSignature(node)) {
      emit(node, nameOf(node, sf), "method", ts.isMethodDeclaration(node) && !node.body);
    } else if (ts.isConstructorDeclaration(node)) {
      emit(node, "constructor", "method", !node.body);
    } else if (ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) {
      emit(node, nameOf(node, sf), "method");
    } else if (ts.isPropertyDeclaration(node) && isFunctionValue(node.initializer)) {
      emit(node, nameOf(node, sf), "method");
    }
  };
  visit(sf);
}

const out = [];
for (const rel of fs.readFileSync(0, "utf8").split("\n").filter(Boolean)) {
  const text = fs.readFileSync(path.join(root, rel), "utf8");
  const kind = rel.endsWith(".tsx") ? ts.ScriptKind.TSX : rel.match(/\.[cm]?jsx?$/)
    ? ts.ScriptKind.JSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true, kind);
  walk(sf, rel, out);
}
process.stdout.write(out.map((o) => JSON.stringify(o)).join("\n") + "\n");
