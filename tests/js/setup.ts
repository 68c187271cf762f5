// Jest runs each suite in a vm context whose Symbol lacks the Symbol.dispose that Node defines in its main
// context; `using` needs it. Defined here as TypeScript's documentation advises for runtimes without it.
(Symbol as { dispose?: symbol }).dispose ??= Symbol.for('Symbol.dispose');
