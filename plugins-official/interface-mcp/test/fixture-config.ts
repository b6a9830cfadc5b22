/** A project config exercising what serve exposes: typed params, an enum, a failing tool, a denied one, a confirmed one. */
export const SERVE_CONFIG = `tools:
  repeat:
    type: cli
    description: Repeat a word.
    command: node
    args: ["-e", "process.stdout.write(process.argv[1].repeat(Number(process.argv[2])))", "{{word}}", "{{times}}"]
    parameters:
      - {name: word, required: true, description: The word.}
      - {name: times, type: integer, min: 1, max: 5, default: 2}
      - {name: mood, type: enum, enum: [calm, loud]}
  stats:
    type: cli
    description: Print a JSON object.
    command: node
    args: ["-e", "process.stdout.write(JSON.stringify({ok: true, n: 3}))"]
  fail:
    type: cli
    description: Always fails.
    command: node
    args: ["-e", "process.stdout.write('partial'); process.stderr.write('boom'); process.exit(3)"]
  forbidden:
    type: cli
    command: "true"
    shadow: {deny: true}
  guarded:
    type: cli
    description: Needs a person's yes.
    command: node
    args: ["-e", "process.stdout.write('ran ' + process.argv[1])", "{{what}}"]
    parameters: [{name: what, required: true}]
    shadow: {confirm: true, timeout: 20s}
  slow:
    type: cli
    command: node
    args: ["-e", "setTimeout(() => process.stdout.write('finished'), 1500)"]
`;
